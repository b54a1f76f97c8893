import { OperationType, type NodeLease } from "@lockstep/contracts";
import type { LeaseRecord } from "./lease-record.js";
import { parseOperation } from "./operations.js";

/** The API view of a lease record (lockstep.lease.v1.NodeLease). */
export function toNodeLease(rec: LeaseRecord): NodeLease {
  return {
    node: rec.node,
    namespace: rec.namespace,
    leaseName: rec.name,
    holder: rec.holder,
    operation: rec.operation ? (parseOperation(rec.operation) ?? OperationType.OPERATION_TYPE_UNSPECIFIED) : OperationType.OPERATION_TYPE_UNSPECIFIED,
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
  };
}
