// What the skew-enforcer reads from the state plane, and how it becomes the pure rules' inputs.
import type { BootImagesState, ClusterVersionState, MachineSetState, StateKindName, StateOf } from "@lockstep/contracts";
import type { SkewInputs, SkewSettings } from "./skew/index.js";

/** State kinds whose changes can change a verdict (anything else is ignored). */
export const WATCHED_KINDS = [
  "pool",
  "node",
  "machineConfig",
  "clusterVersion",
  "clusterOperator",
  "infrastructure",
  "machineSet",
  "bootImages",
  "bootImagePolicy",
] as const satisfies readonly StateKindName[];

/** The read side of a StateCache (a plain object in unit tests). */
export interface StateReader {
  get<K extends StateKindName>(kind: K, name: string, namespace?: string): StateOf<K> | undefined;
  list<K extends StateKindName>(kind: K): StateOf<K>[];
}

export interface ViewSettings {
  readonly settings: SkewSettings;
  /** Namespace and name of the release's boot image ConfigMap (as the watcher publishes it). */
  readonly bootImagesNamespace: string;
  readonly bootImagesName: string;
}

/**
 * Singletons are read by their well-known names; a cluster without them (plain Kubernetes, or
 * before the object exists) gives `undefined`, which the rules treat as upstream does.
 */
export function skewInputs(state: StateReader, s: ViewSettings): SkewInputs {
  return {
    clusterVersion: clusterVersionOf(state),
    infrastructure: state.get("infrastructure", "cluster"),
    pools: state.list("pool"),
    nodes: state.list("node"),
    machineConfigs: new Map(state.list("machineConfig").map((mc) => [mc.name, mc])),
    bootImagePolicy: state.get("bootImagePolicy", "cluster"),
    settings: s.settings,
  };
}

/** ClusterVersion `version`; any other single ClusterVersion as a fallback (there is only one). */
function clusterVersionOf(state: StateReader): ClusterVersionState | undefined {
  return state.get("clusterVersion", "version") ?? state.list("clusterVersion")[0];
}

export function bootImagesOf(state: StateReader, s: ViewSettings): BootImagesState | undefined {
  return state.get("bootImages", s.bootImagesName, s.bootImagesNamespace);
}

export function machineSetOf(state: StateReader, namespace: string, name: string): MachineSetState | undefined {
  return state.get("machineSet", name, namespace);
}
