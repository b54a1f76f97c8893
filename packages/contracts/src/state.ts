// The state plane: KV bucket, key grammar and the snapshot type stored under each key prefix.
// Keys are `<kind>.<name>` or `<kind>.<namespace>.<name>`, each name token encoded with
// encodeToken, so a key always parses back to exactly one object.
import type { Codec } from "./codec.js";
import { ClusterOperatorState, ClusterVersionState, InfrastructureState } from "./gen/lockstep/state/v1/cluster.js";
import { LeaseState } from "./gen/lockstep/state/v1/lease.js";
import { MachineConfigState } from "./gen/lockstep/state/v1/machine_config.js";
import { BootImagesState, MachineSetState, PodDisruptionBudgetState } from "./gen/lockstep/state/v1/machine_set.js";
import { Heartbeat } from "./gen/lockstep/state/v1/heartbeat.js";
import { SyncMarker } from "./gen/lockstep/state/v1/meta.js";
import { NodeState } from "./gen/lockstep/state/v1/node.js";
import { NodeSignalState } from "./gen/lockstep/state/v1/node_signal.js";
import { BootImagePolicyState, DisruptionBudgetState, NodeDisruptionPolicyState } from "./gen/lockstep/state/v1/policy.js";
import { PoolState } from "./gen/lockstep/state/v1/pool.js";
import { decodeToken, encodeToken } from "./names.js";

export const STATE_BUCKET = "lockstep-state-v1";

/**
 * The lease-coordinators' shared wait queue: one key per waiting requester (leaseQueueKey), value
 * a LeaseWaiter. Not part of the state plane: only lease-coordinator replicas read and write it.
 */
export const LEASE_QUEUE_BUCKET = "lockstep-lease-queue-v1";

export interface StateKind<T> {
  readonly prefix: string;
  readonly namespaced: boolean;
  readonly typeName: string;
  readonly codec: Codec<T>;
}

function kind<T>(prefix: string, namespaced: boolean, message: string, codec: Codec<T>): StateKind<T> {
  return { prefix, namespaced, typeName: `lockstep.state.v1.${message}`, codec };
}

export const StateKinds = {
  node: kind("node", false, "NodeState", NodeState),
  pool: kind("pool", false, "PoolState", PoolState),
  machineConfig: kind("mc", false, "MachineConfigState", MachineConfigState),
  clusterVersion: kind("clusterversion", false, "ClusterVersionState", ClusterVersionState),
  clusterOperator: kind("clusteroperator", false, "ClusterOperatorState", ClusterOperatorState),
  infrastructure: kind("infrastructure", false, "InfrastructureState", InfrastructureState),
  machineSet: kind("machineset", true, "MachineSetState", MachineSetState),
  bootImages: kind("bootimages", true, "BootImagesState", BootImagesState),
  lease: kind("lease", true, "LeaseState", LeaseState),
  podDisruptionBudget: kind("pdb", true, "PodDisruptionBudgetState", PodDisruptionBudgetState),
  nodeDisruptionPolicy: kind("ndp", false, "NodeDisruptionPolicyState", NodeDisruptionPolicyState),
  bootImagePolicy: kind("bootimagepolicy", false, "BootImagePolicyState", BootImagePolicyState),
  disruptionBudget: kind("disruptionbudget", false, "DisruptionBudgetState", DisruptionBudgetState),
  nodeSignal: kind("signal", true, "NodeSignalState", NodeSignalState),
  meta: kind("meta", false, "SyncMarker", SyncMarker),
  heartbeat: kind("heartbeat", false, "Heartbeat", Heartbeat),
} as const;

export type StateKindName = keyof typeof StateKinds;
export type StateOf<K extends StateKindName> = (typeof StateKinds)[K] extends StateKind<infer T> ? T : never;

/** Key written by the watcher once its initial lists are complete. */
export const SYNCED_KEY = "meta.synced";

/**
 * Key the watcher rewrites every few seconds while its view of the API server is current: how
 * consumers know the age of the state plane (a dead watcher leaves every other key looking valid).
 */
export const HEARTBEAT_KEY = "heartbeat.watcher";

const byPrefix = new Map<string, StateKindName>(
  (Object.keys(StateKinds) as StateKindName[]).map((k) => [StateKinds[k].prefix, k]),
);

export function stateKey(kind: StateKindName, name: string, namespace?: string): string {
  const k = StateKinds[kind];
  if (k.namespaced) {
    if (namespace === undefined) throw new Error(`state kind ${kind} is namespaced: a namespace is required`);
    return `${k.prefix}.${encodeToken(namespace)}.${encodeToken(name)}`;
  }
  if (namespace !== undefined && namespace !== "") throw new Error(`state kind ${kind} is cluster-scoped`);
  return `${k.prefix}.${encodeToken(name)}`;
}

export interface ParsedStateKey {
  kind: StateKindName;
  namespace?: string;
  name: string;
}

/** Parses a state key; returns undefined for keys Lockstep does not own. */
export function parseStateKey(key: string): ParsedStateKey | undefined {
  const parts = key.split(".");
  const kindName = byPrefix.get(parts[0] ?? "");
  if (!kindName) return undefined;
  const k = StateKinds[kindName];
  try {
    if (k.namespaced && parts.length === 3) return { kind: kindName, namespace: decodeToken(parts[1]!), name: decodeToken(parts[2]!) };
    if (!k.namespaced && parts.length === 2) return { kind: kindName, name: decodeToken(parts[1]!) };
  } catch {
    return undefined;
  }
  return undefined;
}

/** The object a node signal was read from, as its key names it. */
export interface SignalSourceRef {
  kind: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  name: string;
}

/**
 * Key of the NodeSignalState read from one object: `signal.<namespace>.<Kind>/<name>`. The kind is
 * part of the name because a NodeMaintenance and a remediation CR may share one.
 */
export function nodeSignalKey(source: SignalSourceRef): string {
  if (source.kind === "" || source.kind.includes("/")) throw new Error(`node signal source kind "${source.kind}" must be non-empty and without "/"`);
  return stateKey("nodeSignal", `${source.kind}/${source.name}`, source.namespace);
}

/** Inverse of nodeSignalKey (undefined for other keys). */
export function parseNodeSignalKey(key: string): SignalSourceRef | undefined {
  const parsed = parseStateKey(key);
  if (parsed?.kind !== "nodeSignal") return undefined;
  const slash = parsed.name.indexOf("/");
  if (slash <= 0) return undefined;
  return { kind: parsed.name.slice(0, slash), namespace: parsed.namespace ?? "", name: parsed.name.slice(slash + 1) };
}

/** KV watch filter for all keys of one kind, e.g. `node.>`. */
export function stateKindFilter(kind: StateKindName): string {
  return `${StateKinds[kind].prefix}.>`;
}

/** Key of one waiter in LEASE_QUEUE_BUCKET: `waiter.<node>.<holder>`, each token encoded. */
export function leaseQueueKey(node: string, holder: string): string {
  return `waiter.${encodeToken(node)}.${encodeToken(holder)}`;
}

/** Inverse of leaseQueueKey (undefined for other keys). */
export function parseLeaseQueueKey(key: string): { node: string; holder: string } | undefined {
  const parts = key.split(".");
  if (parts.length !== 3 || parts[0] !== "waiter") return undefined;
  try {
    return { node: decodeToken(parts[1]!), holder: decodeToken(parts[2]!) };
  } catch {
    return undefined;
  }
}
