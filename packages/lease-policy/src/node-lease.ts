import { OperationType, PreemptionKind, type NodeLease, type Preemption } from "@lockstep/contracts";
import { parsePreemptor, type LeaseRecord } from "./lease-record.js";
import { parseOperation } from "./operations.js";

function operationType(name: string | undefined): OperationType {
  return name ? (parseOperation(name) ?? OperationType.OPERATION_TYPE_UNSPECIFIED) : OperationType.OPERATION_TYPE_UNSPECIFIED;
}

/** A "<holder> (<operation>)" annotation as the structured NodeLease.preemption (parsed here, once, from our own Lease). */
function preemption(kind: PreemptionKind, label: string, time: Date | undefined, reason: string): Preemption | undefined {
  if (label === "") return undefined;
  const who = parsePreemptor(label);
  return { kind, holder: who.holder, operation: operationType(who.operation), time, reason };
}

/** The API view of a lease record (lockstep.lease.v1.NodeLease). */
export function toNodeLease(rec: LeaseRecord): NodeLease {
  return {
    node: rec.node,
    namespace: rec.namespace,
    leaseName: rec.name,
    holder: rec.holder,
    operation: operationType(rec.operation),
    reason: rec.reason,
    acquireTime: rec.acquireTime,
    renewTime: rec.renewTime,
    durationSeconds: rec.durationSeconds,
    transitions: rec.transitions,
    foreign: !rec.owned || rec.kind === "foreign",
    resourceVersion: rec.resourceVersion,
    preemptedBy: rec.preemptedBy,
    preemptTime: rec.preemptedBy !== "" ? rec.preemptedAt : undefined,
    preemptionRequestedBy: rec.preemptionRequestedBy,
    preemption: preemption(PreemptionKind.PREEMPTION_KIND_FORCED, rec.preemptedBy, rec.preemptedAt, rec.preemptedReason),
    preemptionWithdrawn: preemption(PreemptionKind.PREEMPTION_KIND_WITHDRAWN, rec.preemptionWithdrawnBy, rec.preemptionWithdrawnAt, ""),
  };
}
