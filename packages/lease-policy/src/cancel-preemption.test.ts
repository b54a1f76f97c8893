import { OperationType, PreemptionKind } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { decideCancelPreemption } from "./cancel-preemption.js";
import { decide } from "./decide.js";
import { node, pool, Replica, request, testPolicy, type World } from "./fixtures.js";
import { ANN_FORCED_BY, ANN_PREEMPTED_BY, ANN_PREEMPTION_WITHDRAWN_BY } from "./lease-record.js";
import { MemoryLeaseStore } from "./memory-store.js";
import { decideRenew } from "./release.js";

const NS = "lockstep-leases";
const policy = testPolicy({ namespace: NS });
const T0 = Date.parse("2026-11-27T10:00:00Z");
const MAINTENANCE = OperationType.OPERATION_TYPE_MAINTENANCE;

function preempted() {
  const w: World = { nodes: [node("w1")], pools: [pool("worker", "1")], budgets: [] };
  const store = new MemoryLeaseStore();
  const r = new Replica(policy);
  expect(r.acquire(request("w1", "mcd/w1"), w, store, T0).decision.kind).toBe("grant");
  const forced = r.acquire(request("w1", "admin", MAINTENANCE, { force: true, reason: "bad DIMM" }), w, store, T0 + 1000).decision;
  expect(forced.kind === "deny" && forced.code).toBe("PreemptionPending");
  return { w, store, r, state: () => r.state(w, store) };
}

describe("decideCancelPreemption", () => {
  it("takes the mark off in one write, records the withdrawal, and lets the holder renew again (the withdrawal kept across it)", () => {
    const { store, state } = preempted();
    const d = decideCancelPreemption({ node: "w1", holder: "admin" }, state(), new Date(T0 + 2000), policy);
    expect(d.kind === "cancel" && d.cancelled).toBe(true);
    expect(d.writes).toHaveLength(1);
    const ann = d.writes[0]!.body.metadata.annotations;
    expect(ann[ANN_PREEMPTED_BY]).toBeUndefined();
    expect(ann[ANN_FORCED_BY]).toBeUndefined();
    expect(ann[ANN_PREEMPTION_WITHDRAWN_BY]).toBe("admin (Maintenance)");
    expect(d.events).toEqual([expect.objectContaining({ type: "lease.preemption-withdrawn", node: "w1", message: "admin (Maintenance) withdrew its preemption of mcd/w1 on w1" })]);
    expect(d.current?.preemption).toMatchObject({ kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin", operation: MAINTENANCE, reason: "bad DIMM" });
    expect(store.apply(d.writes[0]!).ok).toBe(true);

    const renew = decideRenew({ node: "w1", holder: "mcd/w1" }, state(), new Date(T0 + 3000), policy);
    expect(renew.kind).toBe("grant");
    if (renew.kind !== "grant") return;
    expect(renew.lease.preemptionWithdrawn).toMatchObject({ kind: PreemptionKind.PREEMPTION_KIND_WITHDRAWN, holder: "admin", operation: MAINTENANCE });
    expect(renew.writes.at(-1)!.body.metadata.annotations[ANN_PREEMPTION_WITHDRAWN_BY]).toBe("admin (Maintenance)");
  });

  it("only the preemptor withdraws; nothing pending is not an error and writes nothing", () => {
    const { state } = preempted();
    const other = decideCancelPreemption({ node: "w1", holder: "someone" }, state(), new Date(T0 + 2000), policy);
    expect(other).toMatchObject({ kind: "deny", code: "NotPreemptor", reason: "w1 is preempted by admin (Maintenance), not by someone" });
    const none = decideCancelPreemption({ node: "w2", holder: "admin" }, state(), new Date(T0 + 2000), policy);
    expect(none).toMatchObject({ kind: "cancel", cancelled: false, writes: [] });
  });

  it("a released node reserved for the preemptor is free for anyone once the preemption is withdrawn", () => {
    const { w, store, r, state } = preempted();
    expect(r.release("mcd/w1", "w1", w, store, T0 + 2000)).toBe(true);
    const reserved = decide(request("w1", "kured", OperationType.OPERATION_TYPE_REBOOT), state(), new Date(T0 + 2500), policy);
    expect(reserved.kind === "deny" && reserved.code).toBe("PreemptionPending");
    const d = decideCancelPreemption({ node: "w1", holder: "admin" }, state(), new Date(T0 + 3000), policy);
    expect(d.kind === "cancel" && d.events[0]?.message).toBe("admin (Maintenance) withdrew its preemption of the released lease on w1");
    expect(store.apply(d.writes[0]!).ok).toBe(true);
    expect(decide(request("w1", "kured", OperationType.OPERATION_TYPE_REBOOT), state(), new Date(T0 + 3500), policy).kind).toBe("grant");
  });
});
