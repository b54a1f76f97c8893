import type { NodeCondition, NodeState } from "@lockstep/contracts";

/**
 * What the lease-coordinator reads of a node: identity (name, uid for the Lease owner), labels for
 * pool and budget membership, and what makes it unavailable without a lease (isDisruptedWithoutLease).
 * A NodeState is one; the StateCache keeps only this (leaseNodeOf), a fraction of the whole.
 */
export interface LeaseNode {
  readonly name: string;
  readonly uid: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly unschedulable: boolean;
  readonly deletionTime?: Date | undefined;
  /** Only `Ready` is read. */
  readonly conditions: readonly Pick<NodeCondition, "type" | "status">[];
}

// Nearly every node is Ready=True: its projection shares one frozen list instead of owning one.
const READY_TRUE: LeaseNode["conditions"] = Object.freeze([Object.freeze({ type: "Ready", status: "True" })]);
const NO_CONDITIONS: LeaseNode["conditions"] = Object.freeze([]);

/** The lease-coordinator's StateCache projection of a node. */
export function leaseNodeOf(n: NodeState): LeaseNode {
  const ready = n.conditions.find((c) => c.type === "Ready");
  const conditions = ready === undefined ? NO_CONDITIONS : ready.status === "True" ? READY_TRUE : [{ type: "Ready", status: ready.status }];
  return { name: n.name, uid: n.uid, labels: n.labels, unschedulable: n.unschedulable, deletionTime: n.deletionTime, conditions };
}
