// The StateStale gate on real decisions of the ordinary policy (decide), table-style.
import { OperationType } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { node, pool, Replica, request, testPolicy, type World } from "./fixtures.js";
import { refuseWhenStale, staleReason, type StaleView } from "./freshness.js";
import { MemoryLeaseStore } from "./memory-store.js";

const policy = testPolicy();
const NOW = Date.parse("2026-11-25T12:00:00Z");
const stale: StaleView = { why: "the watcher has not been heard from for 41 s", retryAfterSeconds: 5 };

function world(): World {
  return { nodes: ["w1", "w2", "w3", "w4"].map((n) => node(n)), pools: [pool("worker", "3")], budgets: [] };
}

describe("refuseWhenStale", () => {
  it("leaves every decision alone while the view is fresh", () => {
    const r = new Replica(policy);
    const d = r.decide(request("w1", "mcc"), world(), new MemoryLeaseStore(), NOW);
    expect(refuseWhenStale(d, undefined, "w1", false)).toBe(d);
  });

  it("refuses a new grant with StateStale, a human message, no writes and a lease.denied event", () => {
    const r = new Replica(policy);
    const d = r.decide(request("w1", "mcc"), world(), new MemoryLeaseStore(), NOW);
    expect(d.kind).toBe("grant");
    const out = refuseWhenStale(d, stale, "w1", false);
    expect(out).toMatchObject({
      kind: "deny",
      code: "StateStale",
      reason: "StateStale: the watcher has not been heard from for 41 s; no disruption is granted until it is",
      retryAfterSeconds: 5,
      writes: [],
      warnings: [],
      events: [{ type: "lease.denied", node: "w1", message: staleReason(stale.why) }],
    });
  });

  it("turns a denial from the stale view (e.g. budget exhausted) into StateStale too: its reason may be stale", () => {
    const r = new Replica(policy);
    const store = new MemoryLeaseStore();
    const w = { ...world(), pools: [pool("worker", "1")] };
    r.acquire(request("w1", "a"), w, store, NOW);
    const d = r.decide(request("w2", "b"), w, store, NOW);
    expect(d).toMatchObject({ kind: "deny", code: "BudgetExhausted" });
    expect(refuseWhenStale(d, stale, "w2", false)).toMatchObject({ kind: "deny", code: "StateStale" });
  });

  it("lets a request that may wait keep waiting (decided again when fresh)", () => {
    const r = new Replica(policy);
    const d = r.decide(request("w1", "mcc", OperationType.OPERATION_TYPE_UPDATE, { waitSeconds: 30 }), world(), new MemoryLeaseStore(), NOW);
    expect(refuseWhenStale(d, stale, "w1", true)).toMatchObject({ kind: "wait", code: "StateStale", writes: [], events: [] });
  });

  it("keeps the renewal of an existing hold and an invalid request's own answer", () => {
    const r = new Replica(policy);
    const store = new MemoryLeaseStore();
    r.acquire(request("w1", "mcc"), world(), store, NOW);
    const renewal = r.decide(request("w1", "mcc"), world(), store, NOW + 1_000);
    expect(renewal).toMatchObject({ kind: "grant", renewal: true });
    expect(refuseWhenStale(renewal, stale, "w1", false)).toBe(renewal);
    const invalid = r.decide(request("", "mcc"), world(), store, NOW);
    expect(invalid).toMatchObject({ kind: "deny", code: "Invalid" });
    expect(refuseWhenStale(invalid, stale, "", false)).toBe(invalid);
  });
});
