// LeaseService end to end: kube-sim + nats-server + watcher + coordinator, through a real gRPC client.
// Scenario numbers refer to node-leases.md §6 (the pure core covers all 25 in src/policy).
import * as grpc from "@grpc/grpc-js";
import { OperationType, type AcquireResponse, type GetResponse, type ListResponse, type PreflightUpgradeResponse, type ReleaseResponse, type WatchResponse } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, call, eventsOf, grpcError, holdersInApi, nodeUid, NS, startWorld, type World } from "./test-harness.js";

const { UPDATE, FENCE, MAINTENANCE, DEPROVISION, REBOOT } = {
  UPDATE: OperationType.OPERATION_TYPE_UPDATE,
  FENCE: OperationType.OPERATION_TYPE_FENCE,
  MAINTENANCE: OperationType.OPERATION_TYPE_MAINTENANCE,
  DEPROVISION: OperationType.OPERATION_TYPE_DEPROVISION,
  REBOOT: OperationType.OPERATION_TYPE_REBOOT,
};

let world: World;
const nodes = ["n1", "n2", "n3", "n4", "n5", "n6", "n7", "n8", "n9", "n10"];

beforeAll(async () => {
  world = await startWorld({
    nodes: [...nodes.map((name) => ({ name, pool: "infra" })), { name: "w1", pool: "worker" }, { name: "w2", pool: "worker" }, { name: "w3", pool: "worker" }],
    pools: { worker: "1" },
  });
});

afterAll(async () => {
  await world?.stop();
});

const client = () => world.replicas[0]!.client;

describe("LeaseService", () => {
  it("grants a free node and records operation, reason and owner on the Lease", async () => {
    const res = await acquire(client(), { node: "n1", holder: "mcd/update/n1", operation: UPDATE, reason: "rendered-worker-2" });
    expect(res.granted).toBe(true);
    expect(res.lease).toMatchObject({ node: "n1", holder: "mcd/update/n1", operation: UPDATE, reason: "rendered-worker-2", namespace: NS });
    const lease = await world.coord.readNamespacedLease({ name: "n1", namespace: NS });
    expect(lease.spec?.holderIdentity).toBe("mcd/update/n1");
    expect(lease.metadata?.annotations?.["lockstep.io/operation"]).toBe("Update");
    expect(lease.metadata?.annotations?.["lockstep.io/reason"]).toBe("rendered-worker-2");
    expect(lease.metadata?.ownerReferences?.[0]).toMatchObject({ kind: "Node", name: "n1", uid: await nodeUid(world, "n1") });
    expect(String(lease.spec?.renewTime)).toMatch(/\.\d{6}Z$/);
    expect(res.lease!.resourceVersion).toBe(lease.metadata?.resourceVersion);
    await waitFor(() => eventsOf(world, "lease.granted").find((e) => e.lease?.node === "n1"), { what: "lease.granted for n1" });
  });

  it("scenario 15: maintenance first — others are denied with 'maintenance flagged: <who>, <reason>' and a warning event", async () => {
    const m = await acquire(client(), { node: "n2", holder: "alice", operation: MAINTENANCE, reason: "disk replacement", durationSeconds: 3600 });
    expect(m.granted).toBe(true);
    for (const operation of [UPDATE, FENCE, DEPROVISION]) {
      const res = await acquire(client(), { node: "n2", holder: `ctl-${operation}`, operation });
      expect(res.granted).toBe(false);
      expect(res.deniedReason).toBe("maintenance flagged: alice, disk replacement");
      expect(res.current).toMatchObject({ holder: "alice", operation: MAINTENANCE });
      expect(res.retryAfterSeconds).toBeGreaterThan(0);
    }
    await waitFor(() => eventsOf(world, "lease.denied").filter((e) => e.node === "n2").length >= 3, { what: "three denials" });
    const warning = await waitFor(() => eventsOf(world, "warning.raised").find((e) => e.warning?.code === "MaintenanceFlagged" && e.warning.node === "n2"));
    expect(warning.warning.message).toContain("alice");
  });

  it("scenario 16: maintenance over an update is refused with 'update in progress'; force preempts with an audit event", async () => {
    expect((await acquire(client(), { node: "n3", holder: "mcd/update/n3", operation: UPDATE })).granted).toBe(true);
    const refused = await acquire(client(), { node: "n3", holder: "bob", operation: MAINTENANCE, reason: "investigate" });
    expect(refused.granted).toBe(false);
    expect(refused.deniedReason).toMatch(/^update in progress: mcd\/update\/n3/);
    expect(refused.warnings.map((w) => w.code)).toContain("UpdateInProgress");
    // Force never grants at once: the updater is marked preempted and bob goes first once it is gone.
    const forced = await acquire(client(), { node: "n3", holder: "bob", operation: MAINTENANCE, reason: "investigate", force: true });
    expect(forced.granted).toBe(false);
    expect(forced.deniedCode).toBe("PreemptionPending");
    expect(forced.current).toMatchObject({ holder: "mcd/update/n3", preemptedBy: "bob (Maintenance)" });
    expect(forced.warnings.map((w) => w.code)).toContain("UpdateInProgress");
    const marked = await world.coord.readNamespacedLease({ name: "n3", namespace: NS });
    expect(marked.spec?.holderIdentity).toBe("mcd/update/n3");
    expect(marked.metadata?.annotations?.["lockstep.io/forced-takeover-from"]).toContain("mcd/update/n3");
    const preempted = await waitFor(() => eventsOf(world, "lease.preempted").find((e) => e.lease?.node === "n3"), { what: "lease.preempted" });
    expect(preempted.previous.holder).toBe("mcd/update/n3");
    expect(preempted.lease).toMatchObject({ holder: "mcd/update/n3", preemptedBy: "bob (Maintenance)" });
    await call(client(), "release", { node: "n3", holder: "mcd/update/n3" });
    const granted = await acquire(client(), { node: "n3", holder: "bob", operation: MAINTENANCE, reason: "investigate" });
    expect(granted.granted).toBe(true);
    const lease = await world.coord.readNamespacedLease({ name: "n3", namespace: NS });
    expect(lease.spec?.holderIdentity).toBe("bob");
    expect(lease.metadata?.annotations?.["lockstep.io/forced-takeover-from"]).toContain("mcd/update/n3");
    expect(lease.spec?.leaseTransitions).toBe(1);
    // Fencing never takes a node from a valid holder, even with force.
    const fence = await acquire(client(), { node: "n1", holder: "nhc", operation: FENCE, force: true });
    expect(fence.granted).toBe(false);
  });

  it("scenario 24: bad input is INVALID_ARGUMENT with a clear message", async () => {
    const cases: Array<[Parameters<typeof acquire>[1], RegExp]> = [
      [{ node: "n4", holder: "" }, /holder identity is empty/],
      [{ node: "n4", holder: "kubeadm-bob" }, /reserved/],
      [{ node: "n4", holder: "x", operation: 99 as OperationType }, /unknown operation type/],
      [{ node: "ghost", holder: "x" }, /node ghost does not exist/],
      [{ node: "n4", holder: "x", durationSeconds: 0 }, /must be a positive whole number/],
      [{ node: "n4", holder: "x", durationSeconds: 7200 }, /exceeds the maximum 3600s/],
      [{ node: "n4", holder: "x", waitSeconds: -1 }, /wait_seconds/],
    ];
    for (const [req, message] of cases) {
      const err = await grpcError(acquire(client(), req));
      expect(err.code).toBe(grpc.status.INVALID_ARGUMENT);
      expect(err.details).toMatch(message);
    }
    expect((await grpcError(call(client(), "get", { node: "" }))).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect((await grpcError(call(client(), "release", { node: "n4", holder: "" }))).code).toBe(grpc.status.INVALID_ARGUMENT);
    // Nothing was written for any of them.
    expect((await holdersInApi(world)).has("n4")).toBe(false);
  });

  it("scenario 03: a non-holder's renew or release is refused and the Lease is unchanged", async () => {
    const rvBefore = (await world.coord.readNamespacedLease({ name: "n1", namespace: NS })).metadata?.resourceVersion;
    const renew = await grpcError(call(client(), "renew", { node: "n1", holder: "intruder" }));
    expect(renew.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect(renew.details).toContain("held by mcd/update/n1");
    const release = await grpcError(call(client(), "release", { node: "n1", holder: "intruder" }));
    expect(release.code).toBe(grpc.status.FAILED_PRECONDITION);
    expect((await world.coord.readNamespacedLease({ name: "n1", namespace: NS })).metadata?.resourceVersion).toBe(rvBefore);
  });

  it("scenario 09: own renew keeps acquireTime and transitions", async () => {
    const before = await world.coord.readNamespacedLease({ name: "n1", namespace: NS });
    await new Promise((r) => setTimeout(r, 20));
    const res = await call<unknown, { lease: { holder: string } }>(client(), "renew", { node: "n1", holder: "mcd/update/n1" });
    expect(res.lease.holder).toBe("mcd/update/n1");
    const after = await world.coord.readNamespacedLease({ name: "n1", namespace: NS });
    expect(String(after.spec?.acquireTime)).toBe(String(before.spec?.acquireTime));
    expect(after.spec?.leaseTransitions).toBe(before.spec?.leaseTransitions);
    expect(String(after.spec?.renewTime)).not.toBe(String(before.spec?.renewTime));
  });

  it("scenario 13: release hands off to a requester waiting in the queue", async () => {
    expect((await acquire(client(), { node: "n5", holder: "a", operation: REBOOT })).granted).toBe(true);
    const waiting = acquire(client(), { node: "n5", holder: "b", operation: REBOOT, waitSeconds: 30 });
    let settled = false;
    void waiting.then(() => (settled = true));
    await waitFor(() => world.replicas[0]!.coordinator.queue.some((w) => w.holder === "b"), { what: "b queued" });
    expect(settled).toBe(false);
    const released = await call<unknown, ReleaseResponse>(client(), "release", { node: "n5", holder: "a" });
    expect(released.released).toBe(true);
    const res = await waiting;
    expect(res.granted).toBe(true);
    expect(res.lease?.holder).toBe("b");
    const lease = await world.coord.readNamespacedLease({ name: "n5", namespace: NS });
    expect(lease.spec?.holderIdentity).toBe("b");
    await waitFor(() => eventsOf(world, "lease.released").find((e) => e.lease?.node === "n5"), { what: "lease.released" });
  });

  it("a waiting acquire gives up at wait_seconds with the holder's details", async () => {
    expect((await acquire(client(), { node: "n6", holder: "a" })).granted).toBe(true);
    const res = await acquire(client(), { node: "n6", holder: "c", waitSeconds: 1 });
    expect(res.granted).toBe(false);
    expect(res.current?.holder).toBe("a");
    expect(res.deniedReason).toMatch(/held by a/);
    expect(world.replicas[0]!.coordinator.queue.some((w) => w.holder === "c")).toBe(false);
  });

  it("scenario 05: pool maxUnavailable 1 — a second update in the pool is denied while the first holds its slot", async () => {
    expect((await acquire(client(), { node: "w1", holder: "mcd/w1" })).granted).toBe(true);
    const second = await acquire(client(), { node: "w2", holder: "mcd/w2" });
    expect(second.granted).toBe(false);
    expect(second.deniedReason).toMatch(/pool worker/);
    const slots = (await world.coord.listNamespacedLease({ namespace: NS })).items.filter((l) => l.metadata?.name?.startsWith("lockstep-slot.pool.worker."));
    expect(slots.filter((s) => s.spec?.holderIdentity).map((s) => s.spec?.holderIdentity)).toEqual(["mcd/w1"]);
    await call(client(), "release", { node: "w1", holder: "mcd/w1" });
    expect((await acquire(client(), { node: "w2", holder: "mcd/w2" })).granted).toBe(true);
  });

  it("Get and List show holds, ours and a medik8s one, filtered by operation and pool", async () => {
    const get = await call<unknown, GetResponse>(client(), "get", { node: "n2" });
    expect(get.lease).toMatchObject({ holder: "alice", operation: MAINTENANCE });
    const all = await call<unknown, ListResponse>(client(), "list", { operation: 0, pool: "" });
    expect(all.leases.map((l) => l.node)).toEqual(expect.arrayContaining(["n1", "n2", "n3", "w2"]));
    const maint = await call<unknown, ListResponse>(client(), "list", { operation: MAINTENANCE, pool: "" });
    expect(maint.leases.map((l) => l.node).sort()).toEqual(["n2", "n3"]);
    const worker = await call<unknown, ListResponse>(client(), "list", { operation: 0, pool: "worker" });
    expect(worker.leases.map((l) => l.node)).toEqual(["w2"]);
  });

  it("scenario 23 / medik8s interop: a foreign lease (future renewTime) is held and respected; never written", async () => {
    await world.core.createNamespace({ body: { metadata: { name: "medik8s-leases" } } });
    const future = new Date(Date.now() + 5 * 60_000).toISOString().replace("Z", "000Z");
    await world.coord.createNamespacedLease({
      namespace: "medik8s-leases",
      body: { metadata: { name: "node-n7" }, spec: { holderIdentity: "NodeHealthCheck-workers", leaseDurationSeconds: 600, renewTime: future as never, acquireTime: future as never } },
    });
    await waitFor(() => world.replicas[0]!.index.leasesOfNode("n7").length > 0, { what: "foreign lease in the state plane" });
    const res = await acquire(client(), { node: "n7", holder: "mcd/n7" });
    expect(res.granted).toBe(false);
    expect(res.current).toMatchObject({ holder: "NodeHealthCheck-workers", foreign: true, operation: FENCE });
    const foreign = await world.coord.readNamespacedLease({ name: "node-n7", namespace: "medik8s-leases" });
    expect(foreign.spec?.holderIdentity).toBe("NodeHealthCheck-workers");
  });

  it("scenario 25: a corrupt Lease is taken over with transitions + 1 and a warning event", async () => {
    const uid = await nodeUid(world, "n8");
    // Negative values cannot pass validation, so the corrupt Lease is seeded into the store directly.
    world.sim.store.seed({
      apiVersion: "coordination.k8s.io/v1",
      kind: "Lease",
      metadata: { name: "n8", namespace: NS, labels: { "app.kubernetes.io/managed-by": "lockstep", "lockstep.io/lease-kind": "node" }, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: "n8", uid }] },
      spec: { holderIdentity: "crashed-ctl", leaseDurationSeconds: -5, leaseTransitions: 2 },
    });
    await waitFor(() => world.replicas[0]!.index.get(NS, "n8")?.rec.holder === "crashed-ctl", { what: "corrupt lease indexed" });
    const res = await acquire(client(), { node: "n8", holder: "mcd/n8" });
    expect(res.granted).toBe(true);
    expect(res.warnings.map((w) => w.code)).toContain("CorruptLease");
    const lease = await world.coord.readNamespacedLease({ name: "n8", namespace: NS });
    expect(lease.spec).toMatchObject({ holderIdentity: "mcd/n8", leaseDurationSeconds: 60, leaseTransitions: 3 });
    await waitFor(() => eventsOf(world, "warning.raised").find((e) => e.warning?.code === "CorruptLease" && e.warning.node === "n8"), { what: "CorruptLease event" });
  });

  it("scenario 07: an expired lease is noticed by the sweeper (lease.expired) and taken over with transitions + 1", async () => {
    expect((await acquire(client(), { node: "n9", holder: "short", durationSeconds: 1 })).granted).toBe(true);
    // duration 1 s + 3 s skew allowance, on this replica's observed clock.
    const expired = await waitFor(() => eventsOf(world, "lease.expired").find((e) => e.lease?.node === "n9"), { timeoutMs: 15_000, what: "lease.expired for n9" });
    expect(expired.lease.holder).toBe("short");
    const res = await acquire(client(), { node: "n9", holder: "next" });
    expect(res.granted).toBe(true);
    expect(res.lease?.transitions).toBe(1);
    // The takeover reports the same expiry; the event id is keyed by the expired record, so it is stored once.
    await new Promise((r) => setTimeout(r, 300));
    expect(eventsOf(world, "lease.expired").filter((e) => e.lease?.node === "n9")).toHaveLength(1);
  });

  it("Watch streams the current leases, then changes", async () => {
    const call = client().watch({ node: "n10" });
    const seen: WatchResponse[] = [];
    call.on("data", (m: WatchResponse) => seen.push(m));
    call.on("error", () => undefined);
    await acquire(client(), { node: "n10", holder: "w-a" });
    await waitFor(() => seen.find((m) => m.lease?.holder === "w-a"), { what: "watch saw the grant" });
    await new Promise((r) => setTimeout(r, 50));
    await call_release("n10", "w-a");
    await waitFor(() => seen.find((m) => m.type === "MODIFIED" && m.lease?.holder === ""), { what: "watch saw the release" });
    expect(seen.every((m) => m.lease?.node === "n10")).toBe(true);
    call.cancel();
  });

  it("PreflightUpgrade warns about maintenance, other holds, foreign holds and orphans", async () => {
    const res = await call<unknown, PreflightUpgradeResponse>(client(), "preflightUpgrade", { targetVersion: "4.19.3" });
    const byNode = (code: string) => res.warnings.filter((w) => w.code === code).map((w) => w.node).sort();
    expect(byNode("MaintenanceFlagged")).toEqual(["n2", "n3"]);
    expect(res.warnings.find((w) => w.node === "n2")?.message).toContain("maintenance flagged: alice, disk replacement");
    expect(byNode("NodeHeld")).toEqual(expect.arrayContaining(["n1", "n7", "w2"]));
    expect(res.held.map((l) => l.node)).toEqual(expect.arrayContaining(["n1", "n2", "n3", "n7"]));
  });
});

function call_release(node: string, holder: string): Promise<ReleaseResponse> {
  return call(client(), "release", { node, holder });
}

export type { AcquireResponse };
