// The preemption protocol over gRPC: kube-sim + nats-server + watcher + coordinator. A forced
// Acquire marks the holder's Lease preempted (visible in Watch, Get and List), the holder's renew is
// refused as Preempted, and the preemptor is granted after the holder's release or the expiry.
import * as grpc from "@grpc/grpc-js";
import { OperationType, PreemptionKind, renewRefusalOf, type CancelPreemptionResponse, type GetResponse, type ListResponse, type RenewResponse, type WatchResponse } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, call, eventsOf, grpcError, holdersInApi, NS, startWorld, type World } from "../test-harness.js";

const { UPDATE, MAINTENANCE } = { UPDATE: OperationType.OPERATION_TYPE_UPDATE, MAINTENANCE: OperationType.OPERATION_TYPE_MAINTENANCE };

let world: World;

beforeAll(async () => {
  world = await startWorld({ nodes: ["p1", "p2", "p3", "p4"].map((name) => ({ name, pool: "infra" })) });
});

afterAll(async () => {
  await world?.stop();
});

const client = () => world.replicas[0]!.client;

describe("preemption", () => {
  it("force → PreemptionPending and a mark the holder sees on Watch, Get and List; lease.preempted once; renew refused as Preempted; release hands over", async () => {
    expect((await acquire(client(), { node: "p1", holder: "mcd/p1", operation: UPDATE, durationSeconds: 60 })).granted).toBe(true);
    const stream = client().watch({ node: "p1" });
    const seen: WatchResponse[] = [];
    stream.on("data", (m: WatchResponse) => seen.push(m));
    stream.on("error", () => undefined);
    await waitFor(() => seen.find((m) => m.lease?.holder === "mcd/p1"), { what: "watch saw the holder" });

    const forced = await acquire(client(), { node: "p1", holder: "admin-alice", operation: MAINTENANCE, reason: "bad DIMM", force: true });
    expect(forced.granted).toBe(false);
    expect(forced.deniedCode).toBe("PreemptionPending");
    expect(forced.deniedReason).toMatch(/^mcd\/p1 preempted by admin-alice \(Maintenance\): granted once it releases or its lease expires/);
    expect(forced.retryAfterSeconds).toBeGreaterThan(0);
    expect(forced.retryAfterSeconds).toBeLessThanOrEqual(63);
    expect((await holdersInApi(world)).get("p1")).toBe("mcd/p1");

    const mark = await waitFor(() => seen.find((m) => m.type === "MODIFIED" && m.lease?.preemptedBy === "admin-alice (Maintenance)"), { what: "watch saw the mark" });
    expect(mark.lease).toMatchObject({ holder: "mcd/p1" });
    expect(mark.lease!.preemptTime).toBeInstanceOf(Date);
    // The same preemption as fields: nobody parses preemptedBy.
    expect(mark.lease!.preemption).toEqual({ kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin-alice", operation: MAINTENANCE, time: mark.lease!.preemptTime, reason: "bad DIMM" });
    const get = await call<unknown, GetResponse>(client(), "get", { node: "p1" });
    expect(get.lease).toMatchObject({ holder: "mcd/p1", preemptedBy: "admin-alice (Maintenance)" });
    const list = await call<unknown, ListResponse>(client(), "list", { operation: 0, pool: "" });
    expect(list.leases.find((l) => l.node === "p1")).toMatchObject({ holder: "mcd/p1", preemptedBy: "admin-alice (Maintenance)" });

    // Asking again writes no second mark and no second event.
    expect((await acquire(client(), { node: "p1", holder: "admin-alice", operation: MAINTENANCE, reason: "bad DIMM", force: true })).deniedCode).toBe("PreemptionPending");
    await waitFor(() => eventsOf(world, "lease.preempted").find((e) => e.lease?.node === "p1"), { what: "lease.preempted" });
    await new Promise((r) => setTimeout(r, 300));
    const events = eventsOf(world, "lease.preempted").filter((e) => e.lease?.node === "p1");
    expect(events).toHaveLength(1);
    expect(events[0].previous.holder).toBe("mcd/p1");
    expect(events[0].lease.preemptedBy).toBe("admin-alice (Maintenance)");

    const renew = await grpcError(call(client(), "renew", { node: "p1", holder: "mcd/p1" }));
    expect(renew.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(renew.details).toMatch(/^Preempted: preempted by admin-alice \(Maintenance\) at .*: renew refused; stop and release p1$/);
    expect(renewRefusalOf(renew)).toMatchObject({ code: "Preempted", current: { holder: "mcd/p1", preemption: { kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin-alice", operation: MAINTENANCE, reason: "bad DIMM" } } });

    // Someone else cannot slip in between the release and the preemptor.
    await call(client(), "release", { node: "p1", holder: "mcd/p1" });
    const other = await acquire(client(), { node: "p1", holder: "mcd/p1-again", operation: UPDATE });
    expect(other.granted).toBe(false);
    expect(other.deniedCode).toBe("PreemptionPending");
    const granted = await acquire(client(), { node: "p1", holder: "admin-alice", operation: MAINTENANCE, reason: "bad DIMM" });
    expect(granted.granted).toBe(true);
    expect(granted.lease).toMatchObject({ holder: "admin-alice", transitions: 1, preemptedBy: "" });
    await waitFor(() => seen.find((m) => m.lease?.holder === "admin-alice"), { what: "watch saw the preemptor" });
    stream.cancel();
  });

  it("a forcer waiting with wait_seconds is granted as soon as the holder releases", async () => {
    expect((await acquire(client(), { node: "p2", holder: "mcd/p2", operation: UPDATE, durationSeconds: 60 })).granted).toBe(true);
    const waiting = acquire(client(), { node: "p2", holder: "admin-bob", operation: MAINTENANCE, reason: "firmware", force: true, waitSeconds: 30 });
    let settled = false;
    void waiting.then(() => (settled = true));
    await waitFor(async () => (await world.coord.readNamespacedLease({ name: "p2", namespace: NS })).metadata?.annotations?.["lockstep.io/preempted-by"], { what: "the mark" });
    await new Promise((r) => setTimeout(r, 200));
    expect(settled).toBe(false);
    const started = Date.now();
    await call(client(), "release", { node: "p2", holder: "mcd/p2" });
    const res = await waiting;
    expect(res.granted).toBe(true);
    expect(res.lease?.holder).toBe("admin-bob");
    expect(Date.now() - started).toBeLessThan(2_000);
    await waitFor(() => eventsOf(world, "lease.preempted").find((e) => e.lease?.node === "p2"), { what: "lease.preempted for p2" });
  });

  it("a holder that neither renews nor releases: the preemptor is granted once the lease expires", async () => {
    expect((await acquire(client(), { node: "p3", holder: "mcd/p3", operation: UPDATE, durationSeconds: 1 })).granted).toBe(true);
    const forced = await acquire(client(), { node: "p3", holder: "admin-carol", operation: MAINTENANCE, reason: "swap", force: true });
    expect(forced.deniedCode).toBe("PreemptionPending");
    expect(forced.retryAfterSeconds).toBeLessThanOrEqual(4); // at most the remaining lease (1 s + 3 s allowance)
    const granted = await waitFor(
      async () => {
        const r = await acquire(client(), { node: "p3", holder: "admin-carol", operation: MAINTENANCE, reason: "swap" });
        return r.granted ? r : undefined;
      },
      { timeoutMs: 15_000, intervalMs: 250, what: "the preemptor granted after expiry" },
    );
    expect(granted.lease?.holder).toBe("admin-carol");
    expect((await holdersInApi(world)).get("p3")).toBe("admin-carol");
  });

  it("the forcer cancels its pending preemption: the mark comes off, a waiting forced call ends, the holder renews again and hears of it, lease.preemption-withdrawn", async () => {
    expect((await acquire(client(), { node: "p4", holder: "mcd/p4", operation: UPDATE, durationSeconds: 60 })).granted).toBe(true);
    const waiting = acquire(client(), { node: "p4", holder: "admin-dave", operation: MAINTENANCE, reason: "cable swap", force: true, waitSeconds: 30 });
    await waitFor(async () => (await world.coord.readNamespacedLease({ name: "p4", namespace: NS })).metadata?.annotations?.["lockstep.io/preempted-by"], { what: "the mark" });
    expect((await grpcError(call(client(), "renew", { node: "p4", holder: "mcd/p4" }))).code).toBe(grpc.status.FAILED_PRECONDITION);

    // Only the preemptor withdraws it.
    const notMine = await grpcError(call(client(), "cancelPreemption", { node: "p4", holder: "admin-eve" }));
    expect(notMine.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(notMine.details).toBe("NotPreemptor: p4 is preempted by admin-dave (Maintenance), not by admin-eve");

    const res = await call<unknown, CancelPreemptionResponse>(client(), "cancelPreemption", { node: "p4", holder: "admin-dave" });
    expect(res.cancelled).toBe(true);
    expect(res.lease).toMatchObject({ holder: "mcd/p4", preemptedBy: "", preemption: undefined, preemptionWithdrawn: { kind: PreemptionKind.PREEMPTION_KIND_WITHDRAWN, holder: "admin-dave", operation: MAINTENANCE } });
    // The waiting forced call ends instead of marking the holder again.
    const ended = await waiting;
    expect(ended.granted).toBe(false);
    expect(ended.deniedCode).toBe("PreemptionCancelled");
    const annotations = (await world.coord.readNamespacedLease({ name: "p4", namespace: NS })).metadata?.annotations ?? {};
    expect(annotations["lockstep.io/preempted-by"]).toBeUndefined();
    expect(annotations["lockstep.io/preemption-withdrawn-by"]).toBe("admin-dave (Maintenance)");

    // The holder may renew again, and the withdrawal stays on its lease across renewals.
    const renewed = await call<unknown, RenewResponse>(client(), "renew", { node: "p4", holder: "mcd/p4" });
    expect(renewed.lease).toMatchObject({ holder: "mcd/p4", preemptedBy: "", preemptionWithdrawn: { holder: "admin-dave" } });
    const event = await waitFor(() => eventsOf(world, "lease.preemption-withdrawn").find((e) => e.lease?.node === "p4"), { what: "lease.preemption-withdrawn for p4" });
    expect(event.withdrawn).toMatchObject({ kind: PreemptionKind.PREEMPTION_KIND_WITHDRAWN, holder: "admin-dave", operation: MAINTENANCE });
    expect(event.lease.holder).toBe("mcd/p4");
    expect(event.reason).toBe("admin-dave (Maintenance) withdrew its preemption of mcd/p4 on p4");

    // Nothing pending any more: not an error, nothing written.
    const again = await call<unknown, CancelPreemptionResponse>(client(), "cancelPreemption", { node: "p4", holder: "admin-dave" });
    expect(again.cancelled).toBe(false);
    expect((await holdersInApi(world)).get("p4")).toBe("mcd/p4");
  });
});
