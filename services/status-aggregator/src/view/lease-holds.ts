// Which nodes are held by a maintenance or fencing lease, read from LeaseState snapshots with the
// conventions of specs/node-leases.md: Lockstep's own node Leases (named after the node, or slot
// leases carrying lockstep.io/node), the 2019 KEP namespace (Lease named after the node) and
// medik8s (`node-<name>`). The lease-coordinator's codec is private to that service, so this reads
// only the few fields an insight needs. Pure.
import type { LeaseState } from "@lockstep/contracts";

export const ANN_OPERATION = "lockstep.io/operation";
export const ANN_NODE = "lockstep.io/node";
export const LABEL_OPERATION = "lockstep.io/operation";
const LABEL_KIND = "lockstep.io/lease-kind";

export type HoldOperation = "Maintenance" | "Fence";

export interface LeaseSources {
  /** Namespace of Lockstep's own node Leases. */
  lockstepNamespace: string;
  /** KEP-style namespaces: Lease named exactly after the node. */
  nodeNamedNamespaces: string[];
  /** medik8s-style namespaces: Lease named `node-<name>`. */
  medik8sNamespaces: string[];
  /** Holder prefix reserved for admins: such a hold never expires (KEP). */
  adminHolderPrefix: string;
  /** Drift allowance added to expiry (KEP: 3 s). */
  skewAllowanceSeconds: number;
}

export const DEFAULT_LEASE_SOURCES: LeaseSources = {
  lockstepNamespace: "lockstep-leases",
  nodeNamedNamespaces: ["kube-node-maintenance"],
  medik8sNamespaces: ["medik8s-leases"],
  adminHolderPrefix: "kubeadm",
  skewAllowanceSeconds: 3,
};

export interface NodeHold {
  node: string;
  operation: HoldOperation;
  holder: string;
  namespace: string;
  lease: string;
  /** acquireTime (ms since epoch), or undefined when not recorded. */
  acquiredAtMs: number | undefined;
  reason: string;
}

function operationOf(lease: LeaseState, sources: LeaseSources): HoldOperation | undefined {
  const op = lease.annotations[ANN_OPERATION] ?? lease.labels[LABEL_OPERATION];
  if (op === "Maintenance" || op === "Fence") return op;
  if (op !== undefined && op !== "") return undefined;
  const holder = lease.holderIdentity;
  if (holder.startsWith(sources.adminHolderPrefix) || holder === "node-maintenance") return "Maintenance";
  if (holder.startsWith("NodeHealthCheck-") || holder.startsWith("MachineHealthCheck-")) return "Fence";
  return undefined;
}

function nodeOf(lease: LeaseState, sources: LeaseSources): string {
  if (lease.namespace === sources.lockstepNamespace) {
    return lease.labels[LABEL_KIND] === "slot" ? (lease.annotations[ANN_NODE] ?? "") : lease.name;
  }
  if (sources.nodeNamedNamespaces.includes(lease.namespace)) return lease.name;
  if (sources.medik8sNamespaces.includes(lease.namespace)) return lease.name.startsWith("node-") ? lease.name.slice(5) : "";
  return "";
}

/** Held now: a holder, and either an admin hold or renewTime + duration (+ allowance) still ahead. */
export function isHeld(lease: LeaseState, nowMs: number, sources: LeaseSources): boolean {
  const holder = lease.holderIdentity;
  if (holder === "") return false;
  if (holder.startsWith(sources.adminHolderPrefix)) return true;
  const renew = lease.renewTime?.getTime() ?? lease.acquireTime?.getTime();
  if (renew === undefined || !(lease.leaseDurationSeconds > 0)) return false;
  return nowMs <= renew + (lease.leaseDurationSeconds + sources.skewAllowanceSeconds) * 1000;
}

/** Active maintenance and fencing holds by node name (one per node: the earliest acquired wins). */
export function nodeHolds(leases: Iterable<LeaseState>, nowMs: number, sources: LeaseSources = DEFAULT_LEASE_SOURCES): Map<string, NodeHold> {
  const out = new Map<string, NodeHold>();
  for (const lease of leases) {
    const node = nodeOf(lease, sources);
    if (node === "" || !isHeld(lease, nowMs, sources)) continue;
    const operation = operationOf(lease, sources);
    if (!operation) continue;
    const hold: NodeHold = {
      node,
      operation,
      holder: lease.holderIdentity,
      namespace: lease.namespace,
      lease: lease.name,
      acquiredAtMs: lease.acquireTime?.getTime(),
      reason: lease.annotations["lockstep.io/reason"] ?? "",
    };
    const existing = out.get(node);
    if (!existing || (hold.acquiredAtMs ?? Infinity) < (existing.acquiredAtMs ?? Infinity)) out.set(node, hold);
  }
  return out;
}
