// acquireLease against a real gRPC LeaseService (test-harness.ts) scripted per test: what a caller
// relies on — grant, denial, waiting, renewal, release, loss, preemption — seen through the wire.
import * as grpc from "@grpc/grpc-js";
import { OperationType, PreemptionKind, renewRefusalMetadata, type AcquireResponse } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterEach, describe, expect, it } from "vitest";
import { acquireLease, LeaseDeniedError, LeasePreemptedError, type AcquireLeaseOptions, type LeaseHandle, type PreemptionInfo } from "./client.js";
import { lease, startFakeCoordinator, status, type FakeCoordinator } from "./test-harness.js";

const servers: FakeCoordinator[] = [];
const handles: LeaseHandle[] = [];

async function serve(...args: Parameters<typeof startFakeCoordinator>): Promise<FakeCoordinator> {
  const s = await startFakeCoordinator(...args);
  servers.push(s);
  return s;
}

async function acquire(s: FakeCoordinator, more: Partial<AcquireLeaseOptions> = {}): Promise<LeaseHandle> {
  const h = await acquireLease({
    address: s.address,
    node: "w1",
    operation: "Update",
    holder: "mcd/w1",
    reason: "rendered-worker-3",
    durationSeconds: 4,
    timings: { retryPeriodSeconds: 0.1, renewDeadlineSeconds: 2, maxConsecutiveLosses: 2 },
    watchPreemption: false,
    ...more,
  });
  handles.push(h);
  return h;
}

const denied = (more: Partial<AcquireResponse> = {}): AcquireResponse => ({ granted: false, warnings: [], deniedReason: "w1 is held by admin-alice (Maintenance)", retryAfterSeconds: 30, deniedCode: "Held", ...more });
const forced = { kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin-alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "bad DIMM" };

afterEach(async () => {
  await Promise.allSettled(handles.splice(0).map((h) => h.release()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe("acquireLease", () => {
  it("is granted: sends the request as asked and hands back the lease and its warnings", async () => {
    const s = await serve({ acquire: (r) => ({ granted: true, lease: lease(r.node, r.holder), warnings: [{ code: "UpdateInProgress", node: "w1", message: "pool updating" }], deniedReason: "", retryAfterSeconds: 0, deniedCode: "" }) });
    const h = await acquire(s, { operation: "maintenance", force: true });
    expect(s.acquires).toEqual([{ node: "w1", operation: OperationType.OPERATION_TYPE_MAINTENANCE, holder: "mcd/w1", reason: "rendered-worker-3", durationSeconds: 4, waitSeconds: 0, force: true }]);
    expect([h.node, h.holder, h.lease.holder, h.state, h.preemptedBy, h.signal.aborted]).toEqual(["w1", "mcd/w1", "mcd/w1", "holding", "", false]);
    expect(h.warnings.map((w) => w.code)).toEqual(["UpdateInProgress"]);
  });

  it("is denied with the coordinator's reason, code, current holder and retry-after", async () => {
    const current = lease("w1", "admin-alice", { operation: OperationType.OPERATION_TYPE_MAINTENANCE });
    const s = await serve({ acquire: () => denied({ current, warnings: [{ code: "MaintenanceFlagged", node: "w1", message: "flagged" }] }) });
    const err = await acquire(s).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseDeniedError);
    const d = err as LeaseDeniedError;
    expect([d.node, d.reason, d.code, d.retryAfterSeconds, d.current?.holder, d.warnings.map((w) => w.code)]).toEqual(["w1", "w1 is held by admin-alice (Maintenance)", "Held", 30, "admin-alice", ["MaintenanceFlagged"]]);
    expect(d.message).toBe("lease on w1 denied: w1 is held by admin-alice (Maintenance)");
  });

  it("rejects bad input before calling: an unknown operation, timings client-go would refuse", async () => {
    const s = await serve();
    await expect(acquire(s, { operation: "nap" })).rejects.toThrow(/unknown operation "nap"/);
    await expect(acquire(s, { durationSeconds: 0 })).rejects.toThrow(/invalid lease timings: .*must be positive/);
    await expect(acquire(s, { timings: { retryPeriodSeconds: 3, renewDeadlineSeconds: 2 } })).rejects.toThrow(/renew deadline must be greater than 1.2 × retry period/);
    expect(s.acquires).toEqual([]);
  });

  it("passes the coordinator's INVALID_ARGUMENT on as the gRPC error, without asking again", async () => {
    const s = await serve({ acquire: () => status(grpc.status.INVALID_ARGUMENT, "node is required") });
    await expect(acquire(s, { node: "", waitSeconds: 5 })).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT, details: "node is required" });
    expect(s.acquires).toHaveLength(1);
  });

  it("waits in line: the call carries waitSeconds and is granted when the coordinator answers later", async () => {
    let grant!: () => void;
    const s = await serve({ acquire: (r) => new Promise((res) => (grant = () => res({ granted: true, lease: lease(r.node, r.holder), warnings: [], deniedReason: "", retryAfterSeconds: 0, deniedCode: "" }))) });
    const pending = acquire(s, { waitSeconds: 30 });
    await waitFor(() => s.acquires.length === 1, { what: "the waiting acquire" });
    expect(s.acquires[0]!.waitSeconds).toBe(30);
    grant();
    expect((await pending).lease.holder).toBe("mcd/w1");
  });

  it("a waiting acquire is asked again when the coordinator is UNAVAILABLE, for what is left of its wait", async () => {
    const s = await serve({ acquire: (r, n) => (n < 3 ? status(grpc.status.UNAVAILABLE, "replica stopping") : { granted: true, lease: lease(r.node, r.holder), warnings: [], deniedReason: "", retryAfterSeconds: 0, deniedCode: "" }) });
    const h = await acquire(s, { waitSeconds: 30 });
    expect(h.lease.holder).toBe("mcd/w1");
    const waits = s.acquires.map((a) => a.waitSeconds);
    expect(waits[0]).toBe(30);
    expect(waits[1]).toBeLessThan(30);
    expect(waits[2]).toBeLessThanOrEqual(waits[1]!);
  });

  it("a waiting acquire whose coordinator is stopped mid-wait reaches the one that replaces it at the address", async () => {
    const first = await serve({ acquire: () => new Promise(() => undefined) });
    const pending = acquire(first, { waitSeconds: 30 });
    await waitFor(() => first.acquires.length === 1, { what: "the waiting acquire" });
    await first.stop();
    const second = await serve({}, first.port);
    expect((await pending).lease.holder).toBe("mcd/w1");
    expect(second.acquires).toHaveLength(1);
    expect(second.acquires[0]!.waitSeconds).toBeLessThan(30);
  });

  it("a waiting acquire whose coordinator cancels it on stopping (CANCELLED) is asked again, as on UNAVAILABLE", async () => {
    const first = await serve({ acquire: () => new Promise(() => undefined) });
    const pending = acquire(first, { waitSeconds: 30 });
    await waitFor(() => first.acquires.length === 1, { what: "the waiting acquire" });
    await first.stopCancelling();
    const second = await serve({}, first.port);
    expect((await pending).lease.holder).toBe("mcd/w1");
    expect(second.acquires).toHaveLength(1);
    expect(second.acquires[0]!.waitSeconds).toBeLessThan(30);
  });

  it("takes several addresses (ipv4:a,b): one that is down is passed over, and a waiting acquire whose server dies reaches the next", async () => {
    const dead = await serve();
    const live = await serve();
    await dead.stop();
    const h = await acquire(live, { address: `ipv4:${dead.address},${live.address}` });
    expect(h.lease.holder).toBe("mcd/w1");
    expect(live.acquires).toHaveLength(1);

    const a = await serve({ acquire: () => new Promise(() => undefined) });
    const b = await serve();
    const pending = acquire(a, { node: "w2", address: `ipv4:${a.address},${b.address}`, waitSeconds: 30 });
    await waitFor(() => a.acquires.length === 1, { what: "the wait on the first server" });
    await a.stop();
    expect((await pending).lease.node).toBe("w2");
    expect(b.acquires.map((r) => r.node)).toEqual(["w2"]);
  });

  it("a coordinator that never answers fails the acquire with DEADLINE_EXCEEDED once its wait and 10 s have passed, not never", async () => {
    const s = await serve({ acquire: () => new Promise(() => undefined) });
    const started = Date.now();
    const outcome = await Promise.race([acquire(s, { waitSeconds: 1 }).catch((e: unknown) => e), new Promise((r) => setTimeout(() => r("still waiting"), 30_000))]);
    expect(outcome).toMatchObject({ code: grpc.status.DEADLINE_EXCEEDED });
    expect(Date.now() - started).toBeGreaterThanOrEqual(11_000);
  }, 60_000);

  it("an acquire that does not wait is not asked again when the coordinator is UNAVAILABLE (the caller decides)", async () => {
    const s = await serve({ acquire: () => status(grpc.status.UNAVAILABLE, "replica stopping") });
    await expect(acquire(s)).rejects.toMatchObject({ code: grpc.status.UNAVAILABLE });
    expect(s.acquires).toHaveLength(1);
  });
});

describe("a held lease", () => {
  it("is renewed every retry period, the handle showing the lease as last renewed", async () => {
    const s = await serve({ renew: (r, n) => ({ lease: lease(r.node, r.holder, { transitions: n }) }) });
    const h = await acquire(s);
    await waitFor(() => s.renews.length >= 5, { what: "five renews" });
    expect(s.renews.every((r) => r.node === "w1" && r.holder === "mcd/w1")).toBe(true);
    expect(h.lease.transitions).toBeGreaterThanOrEqual(4);
    expect(h.state).toBe("holding");
    expect(h.signal.aborted).toBe(false);
  });

  it("release stops renewing, releases once however often it is called, and aborts nothing", async () => {
    const s = await serve();
    const states: string[] = [];
    const h = await acquire(s, { onStateChange: (st) => states.push(st) });
    await waitFor(() => s.renews.length >= 2, { what: "renews" });
    await Promise.all([h.release(), h.release()]);
    await h.release();
    expect(s.releases).toEqual([{ node: "w1", holder: "mcd/w1" }]);
    expect(h.state).toBe("released");
    expect(states).toEqual(["released"]);
    expect(h.signal.aborted).toBe(false);
    const renewed = s.renews.length;
    // Three retry periods with no renew: the loop has stopped (a renew in flight was awaited by release).
    await new Promise((r) => setTimeout(r, 300));
    expect(s.renews.length).toBe(renewed);
  });

  it("release waits for a renew in flight, so no renew lands after the release", async () => {
    let answer!: () => void;
    const order: string[] = [];
    const s = await serve({
      renew: (r) => (order.push("renew asked"), new Promise((res) => (answer = () => (order.push("renew answered"), res({ lease: lease(r.node, r.holder) }))))),
      release: () => (order.push("release"), {}),
    });
    const h = await acquire(s);
    await waitFor(() => s.renews.length === 1, { what: "a renew in flight" });
    const released = h.release();
    await new Promise((r) => setTimeout(r, 100));
    expect(order).toEqual(["renew asked"]);
    answer();
    await released;
    expect(order).toEqual(["renew asked", "renew answered", "release"]);
  });

  it("release is done when the coordinator says the node is no longer ours (FAILED_PRECONDITION), and is tried twice on other errors", async () => {
    const s = await serve({ release: (_, n) => (n === 1 ? status(grpc.status.UNAVAILABLE, "blip") : status(grpc.status.FAILED_PRECONDITION, "held by someone else")) });
    const h = await acquire(s);
    await h.release();
    expect(s.releases).toHaveLength(2);
    expect(h.state).toBe("released");

    const down = await serve({ release: () => status(grpc.status.INTERNAL, "broken") });
    const h2 = await acquire(down);
    await expect(h2.release()).rejects.toMatchObject({ code: grpc.status.INTERNAL });
    expect(down.releases).toHaveLength(2);
  });

  it("a failed release says so, and a release after it tries again; attempts are spaced", async () => {
    const asked: number[] = [];
    const s = await serve({ release: (_, n) => (asked.push(Date.now()), n <= 2 ? status(grpc.status.INTERNAL, "broken") : {}) });
    const states: [string, string][] = [];
    const h = await acquire(s, { onStateChange: (st, why) => states.push([st, why]) });
    await expect(h.release()).rejects.toMatchObject({ code: grpc.status.INTERNAL });
    expect(s.releases).toHaveLength(2);
    expect(asked[1]! - asked[0]!).toBeGreaterThanOrEqual(200);
    expect(h.state).toBe("release-failed");
    expect(states).toEqual([["release-failed", "broken"]]);
    await h.release();
    expect(s.releases).toHaveLength(3);
    expect(h.state).toBe("released");
    expect(states.at(-1)).toEqual(["released", "released by the holder"]);
  });

  it("K refused renews in a row pause, then lose the hold: signal aborts, the owner is told, no release is sent", async () => {
    const s = await serve({ renew: () => status(grpc.status.FAILED_PRECONDITION, "AlreadyHeld: w1 is held by other", renewRefusalMetadata({ code: "AlreadyHeld", message: "w1 is held by other" })) });
    const states: [string, string][] = [];
    const h = await acquire(s, { onStateChange: (st, why) => states.push([st, why]) });
    await waitFor(() => h.signal.aborted, { what: "the loss" });
    expect(states).toEqual([
      ["paused", "AlreadyHeld: w1 is held by other"],
      ["lost", "AlreadyHeld: w1 is held by other"],
    ]);
    expect(h.state).toBe("lost");
    expect((h.signal.reason as Error).message).toBe("lease on w1 lost: AlreadyHeld: w1 is held by other");
    await h.release();
    expect(s.releases).toEqual([]);
    expect(h.state).toBe("released");
    expect(states.at(-1)).toEqual(["released", "lost before the release: nothing to release"]);
  });

  it("a refusal between successes only pauses: the next renew resumes the hold", async () => {
    const s = await serve({ renew: (r, n) => (n === 2 ? status(grpc.status.FAILED_PRECONDITION, "NotReady") : { lease: lease(r.node, r.holder) }) });
    const states: string[] = [];
    const h = await acquire(s, { onStateChange: (st) => states.push(st) });
    await waitFor(() => s.renews.length >= 4, { what: "renews past the refusal" });
    expect(states.slice(0, 2)).toEqual(["paused", "holding"]);
    expect(h.signal.aborted).toBe(false);
  });

  it("a coordinator that stops answering renews loses the hold at the renew deadline, before the lease could expire", async () => {
    const s = await serve({ renew: () => new Promise(() => undefined) });
    let lostAt = 0;
    const before = Date.now();
    const h = await acquire(s, { timings: { retryPeriodSeconds: 0.1, renewDeadlineSeconds: 1, maxConsecutiveLosses: 2 }, onStateChange: (st) => st === "lost" && (lostAt = Date.now()) });
    const granted = Date.now();
    await waitFor(() => h.signal.aborted, { what: "the loss", timeoutMs: 10_000 });
    expect(lostAt - before).toBeGreaterThanOrEqual(1_000);
    expect(lostAt - granted).toBeLessThan(4_000); // the lease's duration: lost before it could expire
    expect(h.state).toBe("lost");
    expect((h.signal.reason as Error).message).toMatch(/lost: /);
  });

  it("a renew refused as Preempted (the RenewRefusal trailer) preempts at once: owner told with the fields, then the release", async () => {
    const marked = lease("w1", "mcd/w1", { preemptedBy: "admin-alice (Maintenance)", preemption: forced });
    const s = await serve({ renew: () => status(grpc.status.FAILED_PRECONDITION, "Preempted: preempted by admin-alice (Maintenance) at now", renewRefusalMetadata({ code: "Preempted", message: "preempted", current: marked })) });
    let safePoint!: () => void;
    const told: PreemptionInfo[] = [];
    const h = await acquire(s, { onPreempted: (info) => (told.push(info), new Promise<void>((r) => (safePoint = r))) });
    await waitFor(() => h.signal.aborted, { what: "the preemption" });
    expect(s.renews).toHaveLength(1); // final: no K-in-a-row wait
    expect(h.state).toBe("preempted");
    expect(h.preemptedBy).toBe("admin-alice (Maintenance)");
    const reason = h.signal.reason as LeasePreemptedError;
    expect(reason).toBeInstanceOf(LeasePreemptedError);
    expect(reason.preemption).toMatchObject(forced);
    await waitFor(() => told.length === 1, { what: "onPreempted" });
    expect(told[0]).toMatchObject({ node: "w1", holder: "mcd/w1", preemptedBy: "admin-alice (Maintenance)" });
    // The release waits for the owner's safe point.
    await new Promise((r) => setTimeout(r, 200));
    expect(s.releases).toEqual([]);
    safePoint();
    await waitFor(() => s.releases.length === 1, { what: "the release after the safe point" });
    await waitFor(() => h.state === "released", { what: "released" });
    expect(s.renews).toHaveLength(1);
  });

  it("an older coordinator's text-only Preempted refusal still preempts, the preemptor read from the text", async () => {
    const s = await serve({ renew: () => status(grpc.status.FAILED_PRECONDITION, "Preempted: preempted by admin-bob (Drain) at 2026-11-21T10:00:00.000Z") });
    const h = await acquire(s);
    await waitFor(() => s.releases.length === 1, { what: "the release" });
    expect(h.preemptedBy).toBe("admin-bob (Drain)");
    expect((h.signal.reason as LeasePreemptedError).preemption).toBeUndefined();
  });

  it("a renew answered with a preempted lease preempts too", async () => {
    const s = await serve({ renew: (r) => ({ lease: lease(r.node, r.holder, { preemptedBy: "admin-alice (Maintenance)", preemption: forced }) }) });
    const h = await acquire(s);
    await waitFor(() => s.releases.length === 1, { what: "the release" });
    expect(h.preemptedBy).toBe("admin-alice (Maintenance)");
  });

  it("learns of a preemption on the Watch stream before any renew, and of its withdrawal before the release", async () => {
    const s = await serve();
    let safePoint!: () => void;
    const withdrawn: PreemptionInfo[] = [];
    const states: string[] = [];
    const h = await acquire(s, {
      watchPreemption: true,
      timings: { retryPeriodSeconds: 5, renewDeadlineSeconds: 7, maxConsecutiveLosses: 2 },
      durationSeconds: 10,
      onStateChange: (st) => states.push(st),
      onPreempted: () => new Promise<void>((r) => (safePoint = r)),
      onPreemptionWithdrawn: (info) => void withdrawn.push(info),
    });
    await waitFor(() => s.watches.length === 1, { what: "the watch" });
    expect(s.watches[0]!.request.node).toBe("w1");
    s.push(lease("w1", "someone-else", { preemptedBy: "x (Drain)" })); // not ours: ignored
    s.push(lease("w1", "mcd/w1", { preemptedBy: "admin-alice (Maintenance)", preemption: forced }));
    await waitFor(() => h.signal.aborted, { what: "the preemption" });
    expect(s.renews).toEqual([]);
    expect(h.preemptedBy).toBe("admin-alice (Maintenance)");
    s.push(lease("w1", "mcd/w1", { preemptionWithdrawn: { ...forced, kind: PreemptionKind.PREEMPTION_KIND_WITHDRAWN } }));
    await waitFor(() => withdrawn.length === 1, { what: "the withdrawal" });
    expect(withdrawn[0]!.preemptedBy).toBe("admin-alice (Maintenance)");
    safePoint();
    await waitFor(() => h.state === "released", { what: "the release" });
    expect(s.releases).toHaveLength(1);
    expect(states).toEqual(["preempted", "preempted", "released"]);
    await waitFor(() => s.watches[0]!.cancelled, { what: "the watch closed with the release" });
  });
});
