import { evaluateBudget } from "./budgets.js";
import { clusterOf, type ClusterIndex } from "./cluster.js";
import type { PolicyConfig } from "./config.js";
import { scopeOccupancy, slotCounts, budgetScopeKey, type SlotView } from "./occupancy.js";
import type { OperationName } from "./operations.js";
import { poolMaxUnavailable } from "./pools.js";
import type { ObservedState } from "./types.js";

/** One concurrency bound a grant must fit in: a pool's maxUnavailable or a DisruptionBudget. */
export interface Scope {
  key: string;
  kind: "pool" | "budget";
  name: string;
  limit: number;
  members: ReadonlySet<string>;
  message: string;
}

/** The scopes that bound `operation` on `node` now. Several apply at once: all must have room. */
export function requiredScopes(node: string, operation: OperationName, observed: ObservedState, now: Date, policy: PolicyConfig): Scope[] {
  const scopes: Scope[] = [];
  const cluster = clusterOf(observed);
  if (cluster.node(node) === undefined) return scopes;
  const pool = cluster.poolOf(node);
  if (pool !== undefined && policy.poolBoundedOperations.includes(operation)) {
    const members = cluster.poolMembers(pool.name);
    const { limit, message } = poolMaxUnavailable(pool, members.size);
    scopes.push({ key: `pool.${pool.name}`, kind: "pool", name: pool.name, limit, members, message });
  }
  for (const budget of observed.budgets) {
    const members = cluster.budgetMembers(budget).set;
    if (!members.has(node)) continue;
    const ev = evaluateBudget(budget, observed.nodes, observed.pools, now, policy, cluster);
    if (!ev.active || !ev.operations.includes(operation)) continue;
    scopes.push({ key: budgetScopeKey(budget.name), kind: "budget", name: budget.name, limit: ev.limit, members, message: `budget ${budget.name}: ${ev.message}` });
  }
  return scopes.sort((a, b) => a.key.localeCompare(b.key));
}

export type SlotPlan =
  | { kind: "reuse"; slot: SlotView }
  | { kind: "take"; index: number; slot: SlotView | undefined }
  | { kind: "blocked"; code: "BudgetExhausted" | "Spacing"; reason: string; retryAfterSeconds: number };

/**
 * Where a grant's reservation goes in one scope. Slots are Leases of their own, so two replicas can
 * only ever hand out one slot once (CAS); the usable slot indices shrink by every member disrupted
 * without a slot (NotReady, cordoned, or held by a lease that took none), so those count too.
 * A holder that already has a slot here for this node keeps it: in-flight grants continue even
 * when a window closes or the budget shrinks.
 */
export function planSlot(
  scope: Scope,
  node: string,
  holder: string,
  slots: readonly SlotView[],
  cluster: Pick<ClusterIndex, "disruptedWithoutLease">,
  heldNodes: ReadonlySet<string>,
  nowMs: number,
  policy: PolicyConfig,
): SlotPlan {
  const mine = slots.find((s) => s.validity.status === "held" && s.rec.holder === holder && s.rec.node === node);
  if (mine) return { kind: "reuse", slot: mine };
  // The slot rule shared with the DisruptionBudget status counter (occupancy.ts).
  const { slotted: held, withoutSlot: disruptedNoSlot } = scopeOccupancy(scope.members, slots, cluster, heldNodes, node);
  const slotted = new Set(held.map((s) => s.rec.node));
  const occupied = (s: SlotView) => slotCounts(s, cluster, node);
  const usable = scope.limit - disruptedNoSlot.length;
  if (held.length + disruptedNoSlot.length + 1 > scope.limit) {
    const soonest = Math.min(...held.map((s) => (s.validity.status === "held" ? s.validity.expiresInSeconds : policy.defaultRetryAfterSeconds)));
    const names = [...slotted, ...disruptedNoSlot].sort();
    return {
      kind: "blocked",
      code: "BudgetExhausted",
      reason: `${scope.message}; ${names.length} disrupted (${names.join(", ") || "none"})`,
      retryAfterSeconds: Number.isFinite(soonest) ? Math.max(1, Math.ceil(soonest)) : policy.defaultRetryAfterSeconds,
    };
  }
  if (scope.kind === "pool" && policy.postReleaseDelaySeconds > 0) {
    const lastRelease = Math.max(0, ...slots.map((s) => s.rec.releasedAt?.getTime() ?? 0));
    const readyAt = lastRelease + (policy.postReleaseDelaySeconds + policy.skewAllowanceSeconds) * 1000;
    if (nowMs < readyAt) {
      return {
        kind: "blocked",
        code: "Spacing",
        reason: `pool ${scope.name}: waiting ${policy.postReleaseDelaySeconds}s after the last disruption ended`,
        retryAfterSeconds: Math.max(1, Math.ceil((readyAt - nowMs) / 1000)),
      };
    }
  }
  // Concurrent requests for different nodes start looking at different slots (by a hash of the
  // node name), so they rarely race for the same one; any free slot is as good as another.
  const byIndex = new Map(slots.map((s) => [s.rec.slotIndex, s]));
  const start = usable > 0 ? hashOf(node) % usable : 0;
  for (let i = 0; i < usable; i++) {
    const index = (start + i) % usable;
    const slot = byIndex.get(index);
    if (slot === undefined || !occupied(slot)) return { kind: "take", index, slot };
  }
  return {
    kind: "blocked",
    code: "BudgetExhausted",
    reason: `${scope.message}; every usable slot is reserved`,
    retryAfterSeconds: policy.defaultRetryAfterSeconds,
  };
}

/** FNV-1a, enough to spread node names over slot indexes. */
function hashOf(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  return h;
}
