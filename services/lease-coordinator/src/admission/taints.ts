// Which NoExecute taint a Node write adds or changes. Pure. A NoExecute taint makes the taint
// manager evict every pod that does not tolerate it, past PodDisruptionBudgets: a drain by another
// name. Kubernetes' own taints (the node lifecycle controller's, the cloud provider's) are exempt:
// they say what happened to the node, and refusing them would only hide it.
import type { OperationName } from "@lockstep/lease-policy";

/** An admin's fencing step (non-graceful node shutdown): judged as a Fence, never exempt. */
export const OUT_OF_SERVICE = "node.kubernetes.io/out-of-service";

/** Taint keys Kubernetes itself sets; an entry ending in "/" exempts every key with that prefix. */
export const DEFAULT_TAINT_EXEMPT_KEYS: readonly string[] = [
  "node.kubernetes.io/not-ready",
  "node.kubernetes.io/unreachable",
  "node.kubernetes.io/unschedulable",
  "node.kubernetes.io/memory-pressure",
  "node.kubernetes.io/disk-pressure",
  "node.kubernetes.io/pid-pressure",
  "node.kubernetes.io/network-unavailable",
  "node.cloudprovider.kubernetes.io/uninitialized",
  "node.cloudprovider.kubernetes.io/shutdown",
];

interface Taint {
  key: string;
  value: string;
  effect: string;
}

function taintsOf(node: any): Taint[] {
  const list = node?.spec?.taints;
  if (!Array.isArray(list)) return [];
  return list
    .filter((t: any) => t !== null && typeof t === "object" && typeof t.key === "string")
    .map((t: any) => ({ key: t.key, value: typeof t.value === "string" ? t.value : "", effect: typeof t.effect === "string" ? t.effect : "" }));
}

export function taintExempt(key: string, exempt: readonly string[]): boolean {
  return exempt.some((e) => (e.endsWith("/") ? key.startsWith(e) : key === e));
}

/** The first taint the write adds or changes that disrupts the node's pods, and as which operation. */
export function disruptiveTaint(oldNode: any, newNode: any, exempt: readonly string[]): { key: string; effect: string; operation: OperationName } | undefined {
  const before = taintsOf(oldNode);
  for (const t of taintsOf(newNode)) {
    if (before.some((b) => b.key === t.key && b.value === t.value && b.effect === t.effect)) continue;
    if (t.key === OUT_OF_SERVICE) return { key: t.key, effect: t.effect, operation: "Fence" };
    if (t.effect === "NoExecute" && !taintExempt(t.key, exempt)) return { key: t.key, effect: t.effect, operation: "Drain" };
  }
  return undefined;
}
