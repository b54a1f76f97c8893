// Node signals for the lease adapters: what another component's own API objects say it is doing to
// nodes, normalised to NodeSignalState (one per source object; undefined: the object signals
// nothing and has no key). Groups, versions, fields and annotations are the upstream projects' own:
//
// - medik8s/node-maintenance-operator api/v1beta1/nodemaintenance_types.go: NodeMaintenance,
//   group nodemaintenance.medik8s.io, cluster-scoped (kubebuilder scope=Cluster), spec.nodeName,
//   spec.reason; the node is cordoned and drained while the object exists → Maintenance.
// - medik8s/self-node-remediation api/v1alpha1 (group self-node-remediation.medik8s.io) and
//   medik8s/fence-agents-remediation api/v1alpha1 (group fence-agents-remediation.medik8s.io):
//   namespaced remediation CRs that node-healthcheck-operator creates named after the unhealthy
//   node, or, for remediators with several templates, with the node in the medik8s common
//   annotation remediation.medik8s.io/node-name → Fence while the CR exists.
// - kubereboot/kured pkg/daemonsetlock/daemonsetlock.go: the lock is an annotation (default
//   weave.works/kured-node-lock) on kured's own DaemonSet; its JSON value is one lock
//   {nodeID, metadata, created, TTL} or, with --concurrency > 1, {maxOwners, locks: [...]}. TTL is a
//   Go time.Duration (nanoseconds); 0 means the lock does not expire → Reboot until created + TTL.
// - openshift/api machine/v1beta1 Machine: status.nodeRef.name, metadata.deletionTimestamp, and the
//   machine-api's machine.openshift.io/delete-machine annotation (scale-down picks it first)
//   → Deprovision.
// - openshift/machine-config-operator node annotations machineconfiguration.openshift.io/state,
//   currentConfig, desiredConfig: the daemon is applying a config while state is Working and
//   desiredConfig ≠ currentConfig → Update.
import type { NodeSignal, NodeSignalState, NodeState, SignalSource } from "@lockstep/contracts";
import { MalformedObjectError, meta, requireName, str, time, type Obj } from "./common.js";

export const NODE_MAINTENANCE = { group: "nodemaintenance.medik8s.io", version: "v1beta1", kind: "NodeMaintenance", plural: "nodemaintenances" } as const;
export const SELF_NODE_REMEDIATION = { group: "self-node-remediation.medik8s.io", version: "v1alpha1", kind: "SelfNodeRemediation", plural: "selfnoderemediations" } as const;
export const FENCE_AGENTS_REMEDIATION = { group: "fence-agents-remediation.medik8s.io", version: "v1alpha1", kind: "FenceAgentsRemediation", plural: "fenceagentsremediations" } as const;
export const MACHINE = { group: "machine.openshift.io", version: "v1beta1", kind: "Machine", plural: "machines" } as const;

/** medik8s common: the node of a remediation CR not named after it. */
export const REMEDIATION_NODE_ANNOTATION = "remediation.medik8s.io/node-name";
/** machine-api: the Machine a MachineSet deletes first on scale-down. */
export const DELETE_MACHINE_ANNOTATION = "machine.openshift.io/delete-machine";
/** kured's default --lock-annotation. */
export const KURED_LOCK_ANNOTATION = "weave.works/kured-node-lock";
export const MCD_WORKING = "Working";

interface SourceType {
  group: string;
  version: string;
  kind: string;
}

function source(t: SourceType, o: Obj, name: string): SignalSource {
  const m = meta(o);
  return { group: t.group, version: t.version, kind: t.kind, namespace: str(m.namespace), name, uid: str(m.uid) };
}

function signal(node: string, operation: string, description: string, since?: Date, expires?: Date): NodeSignal {
  return { node, operation, since, expires, description };
}

export function normalizeNodeMaintenance(o: Obj): NodeSignalState | undefined {
  const name = requireName(NODE_MAINTENANCE.kind, o);
  const node = str(o.spec?.nodeName);
  if (node === "") return undefined; // the API requires it; an object without one disrupts nothing
  const reason = str(o.spec?.reason);
  return {
    source: source(NODE_MAINTENANCE, o, name),
    signals: [signal(node, "Maintenance", `NodeMaintenance ${name}${reason ? `: ${reason}` : ""}`, time(meta(o).creationTimestamp))],
  };
}

/** A medik8s remediation CR (SelfNodeRemediation, FenceAgentsRemediation): its node is being fenced. */
export function remediationNormalizer(t: SourceType): (o: Obj) => NodeSignalState | undefined {
  return (o) => {
    const name = requireName(t.kind, o);
    const m = meta(o);
    const node = str(m.annotations?.[REMEDIATION_NODE_ANNOTATION]) || name;
    const ns = str(m.namespace);
    return { source: source(t, o, name), signals: [signal(node, "Fence", `${t.kind} ${ns ? `${ns}/` : ""}${name} remediates ${node}`, time(m.creationTimestamp))] };
  };
}

export const normalizeSelfNodeRemediation = remediationNormalizer(SELF_NODE_REMEDIATION);
export const normalizeFenceAgentsRemediation = remediationNormalizer(FENCE_AGENTS_REMEDIATION);

const NANOS_PER_MS = 1_000_000;

function kuredLock(v: unknown, where: string, dsName: string): { node: string; created: Date | undefined; ttlMs: number } {
  if (v === null || typeof v !== "object" || Array.isArray(v)) throw new MalformedObjectError("DaemonSet", dsName, `${where} is not a kured lock object`);
  const l = v as Obj;
  if (typeof l.nodeID !== "string" || l.nodeID === "") throw new MalformedObjectError("DaemonSet", dsName, `${where}.nodeID is missing`);
  const ttl = l.TTL === undefined ? 0 : l.TTL;
  if (typeof ttl !== "number" || !Number.isFinite(ttl) || ttl < 0) throw new MalformedObjectError("DaemonSet", dsName, `${where}.TTL ${JSON.stringify(l.TTL)} is not a duration in nanoseconds`);
  return { node: l.nodeID, created: time(l.created), ttlMs: ttl / NANOS_PER_MS };
}

/**
 * kured's lock on its DaemonSet: one Reboot signal per lock holder. A lock whose TTL has run out
 * still reaches the state plane with its expiry; the consumer judges it on its own clock.
 */
export function kuredNormalizer(annotation: string): (o: Obj) => NodeSignalState | undefined {
  return (o) => {
    const name = requireName("DaemonSet", o);
    const raw = meta(o).annotations?.[annotation];
    if (typeof raw !== "string" || raw === "") return undefined;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch (err) {
      throw new MalformedObjectError("DaemonSet", name, `annotation ${annotation} is not JSON (${(err as Error).message})`);
    }
    const multi = value !== null && typeof value === "object" && !Array.isArray(value) && ("locks" in value || "maxOwners" in value);
    const locks = multi
      ? (() => {
          const list = (value as Obj).locks ?? [];
          if (!Array.isArray(list)) throw new MalformedObjectError("DaemonSet", name, `annotation ${annotation}: locks is not a list`);
          return list.map((l, i) => kuredLock(l, `locks[${i}]`, name));
        })()
      : [kuredLock(value, "lock", name)];
    if (locks.length === 0) return undefined;
    const src = source({ group: "apps", version: "v1", kind: "DaemonSet" }, o, name);
    const signals = locks.map((l) => {
      const expires = l.ttlMs > 0 && l.created !== undefined ? new Date(l.created.getTime() + l.ttlMs) : undefined;
      return signal(l.node, "Reboot", `kured holds the reboot lock for ${l.node} (${annotation} on DaemonSet ${src.namespace}/${name})`, l.created, expires);
    });
    return { source: src, signals };
  };
}

export function normalizeMachineSignal(o: Obj): NodeSignalState | undefined {
  const name = requireName(MACHINE.kind, o);
  const m = meta(o);
  const node = str(o.status?.nodeRef?.name);
  if (node === "") return undefined; // no node yet (provisioning) or already gone
  const deleting = time(m.deletionTimestamp);
  const marked = m.annotations?.[DELETE_MACHINE_ANNOTATION] !== undefined;
  if (deleting === undefined && !marked) return undefined;
  const ns = str(m.namespace);
  const description = deleting ? `Machine ${ns}/${name} is being deleted` : `Machine ${ns}/${name} is marked for deletion (${DELETE_MACHINE_ANNOTATION})`;
  return { source: source(MACHINE, o, name), signals: [signal(node, "Deprovision", description, deleting)] };
}

/** The MCO's daemon applying a config to the node (from the watcher's own NodeState). */
export function machineConfigSignal(n: NodeState): NodeSignalState | undefined {
  const mco = n.mco;
  if (mco === undefined || mco.state !== MCD_WORKING || !mco.desiredConfigPresent || mco.desiredConfig === mco.currentConfig) return undefined;
  return {
    source: { group: "", version: "v1", kind: "Node", namespace: "", name: n.name, uid: n.uid },
    signals: [signal(n.name, "Update", `machine-config-daemon is applying ${mco.desiredConfig} to ${n.name} (current ${mco.currentConfig || "none"})`)],
  };
}
