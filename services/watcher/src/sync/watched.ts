// What the watcher watches and how each object becomes a state-plane snapshot.
import { nodeSignalKey, stateKey, type NodeState, type StateKindName } from "@lockstep/contracts";
import { Resources, type ResourceType } from "@lockstep/kube";
import {
  FENCE_AGENTS_REMEDIATION,
  KURED_LOCK_ANNOTATION,
  kuredNormalizer,
  MACHINE,
  machineConfigSignal,
  NODE_MAINTENANCE,
  normalizeBootImagePolicy,
  normalizeBootImages,
  normalizeClusterOperator,
  normalizeClusterVersion,
  normalizeDisruptionBudget,
  normalizeFenceAgentsRemediation,
  normalizeInfrastructure,
  normalizeLease,
  normalizeMachineConfig,
  normalizeMachineSet,
  normalizeMachineSignal,
  normalizeNode,
  normalizeNodeDisruptionPolicy,
  normalizeNodeMaintenance,
  normalizePodDisruptionBudget,
  normalizePool,
  normalizeSelfNodeRemediation,
  type Obj,
  SELF_NODE_REMEDIATION,
} from "@lockstep/normalize";

export interface Watched {
  /** Unique name, used in logs and metrics. */
  name: string;
  resource: ResourceType;
  kind: StateKindName;
  namespace?: string;
  fieldSelector?: string;
  /** undefined: the object has no snapshot (a node signal source that signals nothing now). */
  normalize(o: Obj): unknown;
  /** kind "nodeSignal": the source kind its keys carry (nodeSignalKey). */
  signalKind?: string;
  /**
   * A second snapshot derived from the same object and its snapshot, under its own key (a Node's
   * MCO update as a NodeSignalState): no second watch of the same objects.
   */
  derived?: { kind: "nodeSignal"; signalKind: string; normalize(o: Obj, primary: unknown): unknown };
}

export interface WatchSettings {
  leaseNamespaces: string[];
  bootImagesNamespace: string;
  bootImagesName: string;
  /** kured's DaemonSet and lock annotation (the Reboot adapter); absent: the defaults. */
  kured?: { namespace: string; name: string; annotation: string };
  /** Which disruptors' signals are published (the lease adapters); absent: all. */
  signalSources?: readonly SignalSourceName[];
  /** PodDisruptionBudget in the version the API server serves (sync/served.ts); absent: the current one. */
  podDisruptionBudget?: ResourceType;
}

/** The disruptors whose own objects the watcher reads node signals from. */
export const SIGNAL_SOURCES = ["nodemaintenance", "selfnoderemediation", "fenceagentsremediation", "kured", "machine", "machineconfig"] as const;
export type SignalSourceName = (typeof SIGNAL_SOURCES)[number];

export const KURED_DEFAULTS = { namespace: "kube-system", name: "kured", annotation: KURED_LOCK_ANNOTATION } as const;

export function watchedResources(s: WatchSettings): Watched[] {
  const sources = new Set<SignalSourceName>(s.signalSources ?? SIGNAL_SOURCES);
  const out: Watched[] = [
    {
      name: "nodes",
      resource: Resources.node,
      kind: "node",
      normalize: normalizeNode,
      ...(sources.has("machineconfig") ? { derived: { kind: "nodeSignal", signalKind: "Node", normalize: (_o: Obj, node: unknown) => machineConfigSignal(node as NodeState) } as const } : {}),
    },
    { name: "machineconfigpools", resource: Resources.machineConfigPool, kind: "pool", normalize: normalizePool },
    { name: "machineconfigs", resource: Resources.machineConfig, kind: "machineConfig", normalize: normalizeMachineConfig },
    { name: "clusterversions", resource: Resources.clusterVersion, kind: "clusterVersion", normalize: normalizeClusterVersion },
    { name: "clusteroperators", resource: Resources.clusterOperator, kind: "clusterOperator", normalize: normalizeClusterOperator },
    { name: "infrastructures", resource: Resources.infrastructure, kind: "infrastructure", normalize: normalizeInfrastructure },
    { name: "machinesets", resource: Resources.machineSet, kind: "machineSet", normalize: normalizeMachineSet },
    {
      name: "bootimages",
      resource: Resources.configMap,
      kind: "bootImages",
      namespace: s.bootImagesNamespace,
      fieldSelector: `metadata.name=${s.bootImagesName}`,
      normalize: normalizeBootImages,
    },
    // In the version the server serves (RBAC grants are per group, so the same either way).
    { name: "poddisruptionbudgets", resource: Resources.podDisruptionBudget, ...(s.podDisruptionBudget ? { resource: s.podDisruptionBudget } : {}), kind: "podDisruptionBudget", normalize: normalizePodDisruptionBudget },
    { name: "nodedisruptionpolicies", resource: Resources.nodeDisruptionPolicy, kind: "nodeDisruptionPolicy", normalize: normalizeNodeDisruptionPolicy },
    { name: "bootimagepolicies", resource: Resources.bootImagePolicy, kind: "bootImagePolicy", normalize: normalizeBootImagePolicy },
    { name: "disruptionbudgets", resource: Resources.disruptionBudget, kind: "disruptionBudget", normalize: normalizeDisruptionBudget },
  ];
  // Disruptors' own kinds (the lease adapters): absent CRDs are skipped and looked for again later.
  const signals: Array<{ source: SignalSourceName; name: string; resource: ResourceType; signalKind: string; normalize: (o: Obj) => unknown }> = [
    { source: "nodemaintenance", name: "nodemaintenances", resource: Resources.nodeMaintenance, signalKind: NODE_MAINTENANCE.kind, normalize: normalizeNodeMaintenance },
    { source: "selfnoderemediation", name: "selfnoderemediations", resource: Resources.selfNodeRemediation, signalKind: SELF_NODE_REMEDIATION.kind, normalize: normalizeSelfNodeRemediation },
    { source: "fenceagentsremediation", name: "fenceagentsremediations", resource: Resources.fenceAgentsRemediation, signalKind: FENCE_AGENTS_REMEDIATION.kind, normalize: normalizeFenceAgentsRemediation },
    { source: "machine", name: "machines", resource: Resources.machine, signalKind: MACHINE.kind, normalize: normalizeMachineSignal },
  ];
  for (const { source, ...w } of signals) if (sources.has(source)) out.push({ ...w, kind: "nodeSignal" });
  if (sources.has("kured")) {
    const kured = s.kured ?? KURED_DEFAULTS;
    out.push({
      name: "kured",
      resource: Resources.daemonSet,
      kind: "nodeSignal",
      signalKind: "DaemonSet",
      namespace: kured.namespace,
      fieldSelector: `metadata.name=${kured.name}`,
      normalize: kuredNormalizer(kured.annotation),
    });
  }
  for (const ns of s.leaseNamespaces) {
    out.push({ name: `leases/${ns}`, resource: Resources.lease, kind: "lease", namespace: ns, normalize: normalizeLease });
  }
  return out;
}

/** State key of an API object under a watched resource. */
export function keyFor(w: Watched, o: Obj): string {
  const name = o?.metadata?.name ?? "";
  if (w.kind === "nodeSignal") return nodeSignalKey({ kind: w.signalKind ?? w.resource.kind, namespace: w.resource.namespaced ? (o?.metadata?.namespace ?? "") : "", name });
  return w.resource.namespaced ? stateKey(w.kind, name, o?.metadata?.namespace ?? "") : stateKey(w.kind, name);
}

/** State key of the snapshot derived from an object (Watched.derived). */
export function derivedKeyFor(w: Watched & { derived: NonNullable<Watched["derived"]> }, o: Obj): string {
  return nodeSignalKey({ kind: w.derived.signalKind, namespace: w.resource.namespaced ? (o?.metadata?.namespace ?? "") : "", name: o?.metadata?.name ?? "" });
}

function signalKindOf(name: string): string {
  const slash = name.indexOf("/");
  return slash < 0 ? "" : name.slice(0, slash);
}

/** Whether a state key is one this watched resource derives (for deleting keys of vanished objects). */
export function ownsDerivedKey(w: Watched, parsed: { kind: StateKindName; namespace?: string; name: string }): boolean {
  return w.derived !== undefined && parsed.kind === w.derived.kind && signalKindOf(parsed.name) === w.derived.signalKind;
}

/** Whether a state key belongs to this watched resource (for deleting keys of vanished objects). */
export function ownsKey(w: Watched, parsed: { kind: StateKindName; namespace?: string; name: string }, s: WatchSettings): boolean {
  if (parsed.kind !== w.kind) return false;
  if (w.kind === "nodeSignal" && signalKindOf(parsed.name) !== (w.signalKind ?? w.resource.kind)) return false;
  if (w.name === "bootimages") return parsed.namespace === s.bootImagesNamespace && parsed.name === s.bootImagesName;
  if (w.namespace !== undefined) return parsed.namespace === w.namespace;
  return true;
}
