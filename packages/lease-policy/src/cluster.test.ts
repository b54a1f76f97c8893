import { OperationType } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { requiredScopes } from "./capacity.js";
import { indexCluster } from "./cluster.js";
import { decide } from "./decide.js";
import { budget, node, pool, Replica, request, testPolicy, type World } from "./fixtures.js";
import { decodeLease, type LeaseRecord } from "./lease-record.js";
import { MemoryLeaseStore } from "./memory-store.js";
import { observe } from "./observations.js";
import { poolMembers, primaryPool } from "./pools.js";
import type { ObservedState } from "./types.js";

const policy = testPolicy({ namespace: "lockstep-leases" });
const T0 = Date.parse("2026-11-21T10:00:00Z");

function world(): World {
  return {
    nodes: [
      node("m1", { pool: "master", labels: { "node-role.kubernetes.io/worker": "" } }),
      node("i1", { labels: { "node-role.kubernetes.io/infra": "", rack: "r1" } }),
      node("w1", { labels: { rack: "r1" } }),
      node("w2", { labels: { rack: "r2" }, ready: false }),
      node("w3", { labels: { rack: "r1" }, unschedulable: true }),
      node("w4", { labels: { rack: "r2" } }),
      node("w5", { labels: { rack: "r1" } }),
    ],
    pools: [pool("worker", "3"), pool("infra"), pool("master")],
    budgets: [
      budget("rack-r1", { nodeSelector: { matchLabels: { rack: "r1" }, matchExpressions: [] }, maxDisrupted: "3" }),
      budget("workers", { pool: "worker", maxDisrupted: "50%" }),
      budget("both", { pool: "worker", nodeSelector: { matchLabels: { rack: "r1" }, matchExpressions: [] } }),
    ],
  };
}

describe("cluster index", () => {
  it("answers as the linear scans do: pools, pool and budget members, nodes disrupted without a lease", () => {
    const w = world();
    const c = indexCluster(w.nodes, w.pools, w.budgets);
    for (const n of w.nodes) expect(c.poolOf(n.name)?.name).toBe(primaryPool(n, w.pools)?.name);
    for (const p of w.pools) expect([...c.poolMembers(p.name)].sort()).toEqual(poolMembers(p, w.nodes, w.pools).map((n) => n.name).sort());
    expect([...c.poolMembers("worker")].sort()).toEqual(["w1", "w2", "w3", "w4", "w5"]);
    expect(c.budgetMembers(w.budgets[0]!).members).toEqual(["i1", "w1", "w3", "w5"]);
    expect(c.budgetMembers(w.budgets[1]!).members).toEqual(["w1", "w2", "w3", "w4", "w5"]);
    expect(c.budgetMembers(w.budgets[2]!)).toMatchObject({ error: "set either pool or nodeSelector, not both", members: [] });
    expect([...c.disruptedWithoutLease].sort()).toEqual(["w2", "w3"]);
    expect(c.node("w4")?.uid).toBe("uid-w4");
    expect(c.node("nope")).toBeUndefined();
  });

  it("scopes from the index share its member sets and match the unindexed ones", () => {
    const w = world();
    const cluster = indexCluster(w.nodes, w.pools, w.budgets);
    const plain = requiredScopes("w1", "Update", { ...w, leases: [] }, new Date(T0), policy);
    const indexed = requiredScopes("w1", "Update", { ...w, leases: [], cluster }, new Date(T0), policy);
    expect(indexed.map((s) => [s.key, s.limit, [...s.members].sort()])).toEqual(plain.map((s) => [s.key, s.limit, [...s.members].sort()]));
    // "both" is invalid for naming pool and selector: it covers no node (as before indexing).
    expect(indexed.map((s) => s.key)).toEqual(["budget.rack-r1", "budget.workers", "pool.worker"]);
    expect(indexed.find((s) => s.key === "pool.worker")!.members).toBe(cluster.poolMembers("worker"));
  });

  it("decides the same with an index, pre-decoded records and a kept observation log as from raw lists", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const alice = new Replica(policy);
    // w4 is held for maintenance (no pool slot); w2 NotReady and w3 cordoned count as disrupted too.
    expect(alice.acquire(request("w4", "admin-ops", OperationType.OPERATION_TYPE_MAINTENANCE), w, store, T0).decision.kind).toBe("grant");
    const cluster = indexCluster(w.nodes, w.pools, w.budgets);
    for (const [target, holder] of [["w1", "bob"], ["w5", "carol"], ["i1", "dave"]] as const) {
      const leases = store.list();
      const records = leases.map((l) => decodeLease(l, policy)).filter((r): r is LeaseRecord => r !== undefined);
      const log = observe(new Map(), records, T0);
      const plain: ObservedState = { ...w, leases, observations: log };
      const indexed: ObservedState = { ...w, leases: [], records, cluster, observations: log, observationsCurrent: true };
      const now = new Date(T0 + 1_000);
      const a = decide(request(target, holder), plain, now, policy);
      const b = decide(request(target, holder), indexed, now, policy);
      expect({ ...b, observations: undefined }).toEqual({ ...a, observations: undefined });
      expect(b.observations).toBe(log);
      for (const wr of a.writes) expect(store.apply(wr).ok).toBe(true);
    }
    // The pool allows 3: w2, w3 and w4 are disrupted without slots, so w1 was refused.
    const last = decide(request("w1", "bob"), { ...w, leases: store.list() }, new Date(T0 + 2_000), policy);
    expect(last).toMatchObject({ kind: "deny", code: "BudgetExhausted" });
    expect(last.kind === "deny" && last.reason).toContain("3 disrupted (w2, w3, w4)");
  });
});
