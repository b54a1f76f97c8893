import type { LeaseNode } from "./lease-node.js";

/** Unavailable without any lease: NotReady, being deleted, or cordoned. Such nodes consume budget. */
export function isDisruptedWithoutLease(node: LeaseNode): boolean {
  const ready = node.conditions?.find((c) => c.type === "Ready");
  return (ready !== undefined && ready.status !== "True") || node.deletionTime !== undefined || node.unschedulable;
}
