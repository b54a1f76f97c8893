// The DisruptionBudget status and the lease decisions count a budget's disruption by one rule
// (scopeOccupancy): over randomised clusters — cordoned and NotReady members, node leases held and
// expired, budget slots held, expired, released and orphaned — a fresh request for an undisrupted
// member is granted exactly when the status says the budget has room (disrupted < allowed), and
// refused with BudgetExhausted exactly when it says it has none. Pure: no I/O.
import { OperationType, type LeaseState, type NodeState } from "@lockstep/contracts";
import {
  ANN_RELEASED_AT,
  budgetScopeKey,
  buildView,
  decide,
  decodeLease,
  encodeLease,
  formatMicroTime,
  indexCluster,
  leaseStateFromObject,
  observe,
  slotLeaseName,
  type LeaseRecord,
} from "@lockstep/lease-policy";
import { budget, node, pool, request, testPolicy } from "@lockstep/lease-policy/fixtures";
import { seededRng, type Rng } from "@lockstep/random";
import { describe, expect, it } from "vitest";
import { budgetStatus } from "./budget-status.js";

const NS = "lockstep-leases";
const NOW = Date.parse("2026-11-27T10:00:00Z");
// Only the budget bounds the request, so the comparison is about its rule alone.
const policy = testPolicy({ namespace: NS, poolBoundedOperations: [] });
const SCOPE = budgetScopeKey("b");
const SEEDS = 600;

type NodeFate = "free" | "held+slot" | "held-no-slot" | "expired+expired-slot" | "released-slot" | "slot-only" | "expired-slot-only";
const FATES: NodeFate[] = ["free", "held+slot", "held-no-slot", "expired+expired-slot", "released-slot", "slot-only", "expired-slot-only"];

function pick<T>(rng: Rng, xs: readonly T[]): T {
  return xs[Math.floor(rng() * xs.length)] as T;
}

function lease(kind: "node" | "slot", name: string, nodeName: string, holder: string, live: boolean, extra: Record<string, string> = {}): LeaseState {
  // Held: renewed now for an hour. Expired: renewed long ago for a minute (and first seen long ago).
  const renew = new Date(live ? NOW : NOW - 3_600_000);
  const body = encodeLease({
    namespace: NS, name, kind, node: nodeName, nodeUid: `uid-${nodeName}`, holder, operation: holder ? "Update" : undefined,
    reason: "test", durationSeconds: live ? 3600 : 60, acquireTime: renew, renewTime: renew, transitions: 0,
    annotations: extra, ...(kind === "slot" ? { scope: SCOPE } : {}),
  });
  return leaseStateFromObject({ ...body, metadata: { ...body.metadata, resourceVersion: `${name}-1` } });
}

function world(seed: number) {
  const rng = seededRng(seed);
  const count = 3 + Math.floor(rng() * 5);
  const nodes: NodeState[] = [];
  const leases: LeaseState[] = [];
  let slotIndex = 0;
  const fates = new Map<string, NodeFate>();
  for (let i = 0; i < count; i++) {
    const name = `n${i}`;
    const health = rng();
    nodes.push(node(name, { ready: health > 0.15, unschedulable: health > 0.15 && health < 0.3 }));
    const fate = pick(rng, FATES);
    fates.set(name, fate);
    const holder = `ctl-${name}`;
    const slot = (live: boolean, h = holder, extra: Record<string, string> = {}) => leases.push(lease("slot", slotLeaseName(SCOPE, slotIndex++), name, h, live, extra));
    if (fate === "held+slot") (leases.push(lease("node", name, name, holder, true)), slot(true));
    if (fate === "held-no-slot") leases.push(lease("node", name, name, holder, true));
    if (fate === "expired+expired-slot") (leases.push(lease("node", name, name, holder, false)), slot(false));
    if (fate === "released-slot") slot(false, "", { [ANN_RELEASED_AT]: formatMicroTime(new Date(NOW - 1000)) });
    // A slot outliving its node lease (a release that freed the node first, then stopped).
    if (fate === "slot-only") slot(true);
    if (fate === "expired-slot-only") slot(false);
  }
  const b = budget("b", { pool: "worker", maxDisrupted: String(1 + Math.floor(rng() * 4)) });
  const records = leases.map((l) => decodeLease(l, policy)).filter((r): r is LeaseRecord => r !== undefined);
  // Every lease was first seen long ago on this replica, so the expired ones are expired here.
  const observations = observe(new Map(), records, NOW - 3_600_000);
  const observed = { nodes, pools: [pool("worker", "100%")], budgets: [b], leases, observations };
  // The request: an undisrupted member with no lease of its own.
  const target = nodes.find((n) => fates.get(n.name) === "free" && !n.unschedulable && n.conditions[0]?.status === "True");
  return { observed, b, target, rng };
}

describe("budget status and decisions agree (one slot rule)", () => {
  it(`a request fits exactly when the status shows room, over ${SEEDS} random clusters`, () => {
    let granted = 0;
    let exhausted = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const { observed, b, target } = world(seed);
      if (target === undefined) continue;
      const now = new Date(NOW);
      const view = buildView(observed, NOW, policy);
      const cluster = indexCluster(observed.nodes, observed.pools, observed.budgets);
      const status = budgetStatus(b, observed.nodes, observed.pools, view.heldNodes, view.slots(SCOPE), now, policy, cluster);
      const d = decide(request(target.name, "req", OperationType.OPERATION_TYPE_UPDATE), observed, now, policy);
      const room = status.allowed !== undefined && status.disrupted < status.allowed;
      const context = `seed ${seed}: status ${JSON.stringify(status)}, decision ${d.kind} ${d.kind === "deny" ? `${d.code} ${d.reason}` : ""}`;
      expect(d.kind === "grant", context).toBe(room);
      if (!room) expect(d.kind === "deny" && d.code, context).toBe("BudgetExhausted");
      if (room) granted++;
      else exhausted++;
    }
    // Both sides of the rule were exercised, many times.
    expect(granted).toBeGreaterThan(50);
    expect(exhausted).toBeGreaterThan(50);
  });
});
