// What the skew-enforcer reads from the state plane, and how it becomes the pure rules' inputs.
import type { CachedOf, StateProjections } from "@lockstep/bus";
import type { BootImagesState, ClusterVersionState, MachineSetState, StateKindName } from "@lockstep/contracts";
import { type PoolTally, type SkewInputs, type SkewSettings, skewMachineConfigOf, skewNodeOf } from "@lockstep/skew-rules";

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

/**
 * What the StateCache keeps of the large kinds: only the fields the rules declare they read
 * (packages/skew-rules/src/rule-inputs.ts). At 10,000 nodes a whole NodeState (conditions, dates,
 * roles, drain annotations...) is most of the heap, and a node change that leaves these fields alone
 * does not wake the enforcer.
 */
export const SKEW_PROJECTIONS = { node: skewNodeOf, machineConfig: skewMachineConfigOf } satisfies StateProjections;

/** What the view holds of kind K. */
export type SkewStateOf<K extends StateKindName> = CachedOf<typeof SKEW_PROJECTIONS, K>;

/** The read side of a StateCache with SKEW_PROJECTIONS (a plain object in unit tests). */
export interface StateReader {
  get<K extends StateKindName>(kind: K, name: string, namespace?: string): SkewStateOf<K> | undefined;
  list<K extends StateKindName>(kind: K): SkewStateOf<K>[];
}

export interface ViewSettings {
  readonly settings: SkewSettings;
  /** Namespace and name of the release's boot image ConfigMap (as the watcher publishes it). */
  readonly bootImagesNamespace: string;
  readonly bootImagesName: string;
}

/**
 * Singletons are read by their well-known names; a cluster without them (plain Kubernetes, or
 * before the object exists) gives `undefined`, which the rules treat as upstream does. `nodes`: the
 * tally the caller keeps current (NodeTally); without it the nodes are listed and tallied.
 */
export function skewInputs(state: StateReader, s: ViewSettings, nodes?: PoolTally): SkewInputs {
  return {
    clusterVersion: clusterVersionOf(state),
    infrastructure: state.get("infrastructure", "cluster"),
    pools: state.list("pool"),
    nodes: nodes ?? state.list("node"),
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
