// @lockstep/lease-client against the real service: the renew loop keeps the lease past its
// duration, and a forced request preempts it: the client stops renewing, tells its owner, waits for
// the owner's safe point and releases, and the preemptor is granted. The Watch stream that tells it
// at once is on by default; a withdrawn preemption reaches the owner before the release.
import { acquireLease, CoordinatorNodeLeaser, LeaseDeniedError, LeasePreemptedError, type PreemptionInfo } from "@lockstep/lease-client";
import { OperationType, PreemptionKind, type CancelPreemptionResponse } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, call, holdersInApi, NS, startWorld, type World } from "../test-harness.js";

let world: World;

beforeAll(async () => {
  world = await startWorld({ nodes: ["c1", "c2", "c3", "c4", "c5", "c6"] });
});

afterAll(async () => {
  await world?.stop();
});


describe("lease-client", () => {
  it("renews automatically; a forced request preempts it: the renew is refused as Preempted (watching opted out), the client stops, tells its owner and releases, and the admin is granted", async () => {
    const states: string[] = [];
    const told: PreemptionInfo[] = [];
    const handle = await acquireLease({
      address: world.replicas[0]!.address,
      node: "c1",
      operation: "Update",
      holder: "mcd/c1",
      reason: "rendered-worker-3",
      durationSeconds: 2,
      timings: { retryPeriodSeconds: 0.2, renewDeadlineSeconds: 1.5, maxConsecutiveLosses: 2 },
      // Opted out: only the refused renew (its RenewRefusal trailer) can tell it.
      watchPreemption: false,
      onStateChange: (s) => states.push(s),
      onPreempted: (info) => void told.push(info),
    });
    expect(handle.lease.holder).toBe("mcd/c1");
    // Renewed until the hold outlasts the 2 s duration + 3 s allowance several times over: still ours.
    const heldFor = async () => {
      const l = await world.coord.readNamespacedLease({ name: "c1", namespace: NS });
      return (Date.parse(String(l.spec?.renewTime)) - Date.parse(String(l.spec?.acquireTime))) / 1000;
    };
    await waitFor(async () => (await heldFor()) > 6, { timeoutMs: 15_000, what: "a hold longer than duration + allowance" });
    expect(world.replicas[0]!.coordinator.sweep()).toBe(0);
    expect(world.replicas[0]!.coordinator.list().find((l) => l.node === "c1")?.holder).toBe("mcd/c1");
    expect(handle.signal.aborted).toBe(false);
    expect((await holdersInApi(world)).get("c1")).toBe("mcd/c1");

    const admin = await acquire(world.replicas[0]!.client, { node: "c1", holder: "admin-alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "bad DIMM", force: true });
    expect(admin.granted).toBe(false);
    expect(admin.deniedCode).toBe("PreemptionPending");
    await waitFor(() => handle.signal.aborted, { timeoutMs: 10_000, what: "the holder's signal" });
    expect(handle.signal.reason).toBeInstanceOf(LeasePreemptedError);
    expect((handle.signal.reason as LeasePreemptedError).preemptedBy).toBe("admin-alice (Maintenance)");
    expect(handle.preemptedBy).toBe("admin-alice (Maintenance)");
    expect((handle.signal.reason as LeasePreemptedError).reason).toMatch(/^Preempted: preempted by admin-alice \(Maintenance\)/);
    const fields = { kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin-alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "bad DIMM" };
    expect((handle.signal.reason as LeasePreemptedError).preemption).toMatchObject(fields);
    expect(told).toEqual([expect.objectContaining({ node: "c1", holder: "mcd/c1", preemptedBy: "admin-alice (Maintenance)", preemption: expect.objectContaining(fields) })]);
    // One refused renew is enough (no K-in-a-row wait); then the client releases by itself.
    await waitFor(() => handle.state === "released", { timeoutMs: 5_000, what: "the client's release" });
    expect(states).toEqual(["preempted", "released"]);
    expect((await holdersInApi(world)).get("c1")).toBeUndefined();
    const granted = await acquire(world.replicas[0]!.client, { node: "c1", holder: "admin-alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "bad DIMM" });
    expect(granted.granted).toBe(true);
    await handle.release(); // already released: resolves without touching the admin's hold
    expect((await holdersInApi(world)).get("c1")).toBe("admin-alice");
  });

  it("without opting in, it learns on the Watch stream at once, stops at the owner's safe point and releases; a waiting forcer is granted then", async () => {
    let reachSafePoint!: () => void;
    const safePoint = new Promise<void>((r) => (reachSafePoint = r));
    const told: PreemptionInfo[] = [];
    const handle = await acquireLease({
      address: world.replicas[0]!.address,
      node: "c4",
      operation: "Update",
      holder: "mcd/c4",
      reason: "rendered-worker-4",
      durationSeconds: 30,
      // Renews are rare: only the Watch stream can tell it this soon. No watchPreemption: the default.
      timings: { retryPeriodSeconds: 10, renewDeadlineSeconds: 20 },
      onPreempted: (info) => {
        told.push(info);
        return safePoint;
      },
    });
    const started = Date.now();
    const forcer = acquire(world.replicas[0]!.client, { node: "c4", holder: "admin-bob", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "firmware", force: true, waitSeconds: 30 });
    await waitFor(() => handle.signal.aborted, { timeoutMs: 5_000, what: "the preemption seen on the Watch stream" });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(handle.state).toBe("preempted");
    expect(told[0]?.reason).toBe("preempted by admin-bob (Maintenance) (seen on the Watch stream)");
    expect(told[0]?.preemption).toMatchObject({ kind: PreemptionKind.PREEMPTION_KIND_FORCED, holder: "admin-bob", reason: "firmware" });
    // Until the owner's safe point, the node stays with the holder (it may not be disrupted twice).
    await new Promise((r) => setTimeout(r, 300));
    expect((await holdersInApi(world)).get("c4")).toBe("mcd/c4");
    reachSafePoint();
    const res = await forcer;
    expect(res.granted).toBe(true);
    expect(res.lease?.holder).toBe("admin-bob");
    await waitFor(() => handle.state === "released", { timeoutMs: 5_000, what: "the client's release answered" });
  });

  it("CoordinatorNodeLeaser: a preempted hold reaches the actor's safe point, is released and is not reported lost", async () => {
    const preempted: string[] = [];
    const lost: string[] = [];
    const mco = new CoordinatorNodeLeaser({
      address: world.replicas[0]!.address,
      holder: "cluster-sim-mcd",
      durationSeconds: 30,
      // Renews are rare: the leaser's one shared Watch stream (on by default) tells it.
      timings: { retryPeriodSeconds: 10, renewDeadlineSeconds: 20 },
      onPreempted: async (node, kind, by) => void preempted.push(`${kind}/${node} by ${by}`),
      onLost: (node) => void lost.push(node),
    });
    try {
      expect(await mco.acquire("c5", "Update")).toBe(true);
      const res = await acquire(world.replicas[0]!.client, { node: "c5", holder: "admin-carol", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "rack move", force: true, waitSeconds: 20 });
      expect(res.granted).toBe(true);
      expect(preempted).toEqual(["Update/c5 by admin-carol (Maintenance)"]);
      expect(lost).toEqual([]);
      expect(mco.signalFor("c5", "Update")).toBeUndefined();
      expect((await holdersInApi(world)).get("c5")).toBe("admin-carol");
    } finally {
      await mco.close();
    }
  });

  it("a preemption withdrawn before the owner's safe point is told to the owner; the node is released and nobody is granted it", async () => {
    let reachSafePoint!: () => void;
    const safePoint = new Promise<void>((r) => (reachSafePoint = r));
    const withdrawn: PreemptionInfo[] = [];
    const handle = await acquireLease({
      address: world.replicas[0]!.address,
      node: "c6",
      operation: "Update",
      holder: "mcd/c6",
      reason: "rendered-worker-6",
      durationSeconds: 30,
      timings: { retryPeriodSeconds: 10, renewDeadlineSeconds: 20 },
      onPreempted: () => safePoint,
      onPreemptionWithdrawn: (info) => void withdrawn.push(info),
    });
    const forced = await acquire(world.replicas[0]!.client, { node: "c6", holder: "admin-erin", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "wrong node", force: true });
    expect(forced.deniedCode).toBe("PreemptionPending");
    await waitFor(() => handle.signal.aborted, { timeoutMs: 5_000, what: "the preemption seen on the Watch stream" });
    const res = await call<unknown, CancelPreemptionResponse>(world.replicas[0]!.client, "cancelPreemption", { node: "c6", holder: "admin-erin" });
    expect(res.cancelled).toBe(true);
    await waitFor(() => withdrawn.length > 0, { timeoutMs: 5_000, what: "the withdrawal told to the owner" });
    expect(withdrawn).toEqual([
      expect.objectContaining({ node: "c6", holder: "mcd/c6", preemptedBy: "admin-erin (Maintenance)", preemption: expect.objectContaining({ kind: PreemptionKind.PREEMPTION_KIND_WITHDRAWN, holder: "admin-erin" }) }),
    ]);
    expect(handle.state).toBe("preempted");
    reachSafePoint();
    await waitFor(() => handle.state === "released", { timeoutMs: 5_000, what: "the client's release" });
    expect((await holdersInApi(world)).get("c6")).toBeUndefined();
    // No reservation is left for the withdrawn preemptor: anyone may take the node.
    expect((await acquire(world.replicas[0]!.client, { node: "c6", holder: "mcd/c6-next", operation: OperationType.OPERATION_TYPE_UPDATE })).granted).toBe(true);
  });

  it("throws LeaseDeniedError with the holder when the node is under maintenance", async () => {
    const err = await acquireLease({ address: world.replicas[0]!.address, node: "c1", operation: "Reboot", holder: "kured", reason: "reboot", durationSeconds: 30 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(LeaseDeniedError);
    expect((err as LeaseDeniedError).reason).toBe("maintenance flagged: admin-alice, bad DIMM");
    expect((err as LeaseDeniedError).current?.holder).toBe("admin-alice");
  });

  it("release stops the renew loop and frees the node for the next holder", async () => {
    const handle = await acquireLease({ address: world.replicas[0]!.address, node: "c2", operation: "Drain", holder: "drainer", reason: "drain", durationSeconds: 4 });
    await handle.release();
    expect(handle.state).toBe("released");
    expect(handle.signal.aborted).toBe(false);
    expect((await holdersInApi(world)).get("c2")).toBeUndefined();
    const rv = (await world.coord.readNamespacedLease({ name: "c2", namespace: NS })).metadata?.resourceVersion;
    const next = await acquireLease({ address: world.replicas[0]!.address, node: "c2", operation: "Update", holder: "mcd/c2", reason: "update", durationSeconds: 4 });
    expect(next.lease.holder).toBe("mcd/c2");
    expect(next.lease.resourceVersion).not.toBe(rv);
    await next.release();
  });

  it("CoordinatorNodeLeaser gives cluster-sim's actors one holder per node", async () => {
    const mco = new CoordinatorNodeLeaser({ address: world.replicas[0]!.address, holder: "cluster-sim-mcd", durationSeconds: 10 });
    const nhc = new CoordinatorNodeLeaser({ address: world.replicas[0]!.address, holder: "cluster-sim-nhc", durationSeconds: 10 });
    try {
      expect(await mco.acquire("c3", "Update")).toBe(true);
      expect(await mco.acquire("c3", "Update")).toBe(true); // re-acquire while holding
      expect(await nhc.acquire("c3", "Remediation")).toBe(false); // fencing never takes a held node
      expect(mco.signalFor("c3", "Update")?.aborted).toBe(false);
      await mco.release("c3", "Update");
      expect(await nhc.acquire("c3", "Remediation")).toBe(true);
      expect((await holdersInApi(world)).get("c3")).toBe("cluster-sim-nhc/remediation");
    } finally {
      await mco.close();
      await nhc.close();
    }
    expect((await holdersInApi(world)).get("c3")).toBeUndefined();
  });
});
