// The 25 numbered acceptance scenarios of node-leases.md §6, at the level of the pure core
// (state in, decision out), with the in-memory CAS store standing in for the API server.
import { OperationType } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { decide } from "./decide.js";
import { evaluateBudget } from "./budgets.js";
import { budget, node, pool, Replica, request, testPolicy, type World } from "./fixtures.js";
// The holder-side rules live in the lease client, which follows them; the scenarios check them here.
import { afterRenew, validateHolderTimings, type HolderTimings } from "@lockstep/lease-client";
import { ANN_FORCED_BY, ANN_PREEMPT, ANN_PREEMPTED_AT, ANN_PREEMPTED_BY, encodeLease, formatMicroTime, leaseStateFromObject } from "./lease-record.js";
import { MemoryLeaseStore } from "./memory-store.js";
import { preflightUpgrade } from "./preflight.js";
import { decideRelease, decideRenew } from "./release.js";

const T0 = Date.parse("2026-11-21T10:00:00Z");
const S = 1000;
const { UPDATE, REBOOT, FENCE, MAINTENANCE, DEPROVISION } = {
  UPDATE: OperationType.OPERATION_TYPE_UPDATE,
  REBOOT: OperationType.OPERATION_TYPE_REBOOT,
  FENCE: OperationType.OPERATION_TYPE_FENCE,
  MAINTENANCE: OperationType.OPERATION_TYPE_MAINTENANCE,
  DEPROVISION: OperationType.OPERATION_TYPE_DEPROVISION,
};
const NS = "lockstep-leases";

function world(extra: Partial<World> = {}): World {
  return {
    nodes: ["w1", "w2", "w3", "w4"].map((n) => node(n)),
    pools: [pool("worker", "1"), pool("master", "1")],
    budgets: [],
    ...extra,
  };
}

/** A lease written by someone else, as raw JSON (times as MicroTime strings). */
function rawLease(namespace: string, name: string, spec: Record<string, unknown>, annotations: Record<string, string> = {}) {
  return { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name, namespace, annotations }, spec };
}

function held(store: MemoryLeaseStore, name: string): string | undefined {
  return store.get(NS, name)?.spec.holderIdentity;
}

describe("node-leases scenarios", () => {
  const policy = testPolicy();

  it("scenario 01: create race — exactly one create wins, the loser re-reads and is denied with the winner", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const a = new Replica(policy);
    const b = new Replica(policy);
    const da = a.decide(request("w1", "ctl-a"), w, store, T0);
    const db = b.decide(request("w1", "ctl-b"), w, store, T0);
    expect(da.kind).toBe("grant");
    expect(db.kind).toBe("grant");
    expect(da.writes.every((x) => store.apply(x).ok)).toBe(true);
    const first = store.apply(db.writes[0]!);
    expect(first).toEqual({ ok: false, status: 409, reason: "AlreadyExists" });
    const retry = b.decide(request("w1", "ctl-b"), w, store, T0);
    expect(retry.kind).toBe("deny");
    if (retry.kind !== "deny") return;
    expect(retry.current?.holder).toBe("ctl-a");
    expect(retry.reason).toContain("ctl-a");
    expect(held(store, "w1")).toBe("ctl-a");
  });

  it("scenario 02: takeover race — two takeovers from one resourceVersion, one wins, never two holders", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    store.seed(rawLease(NS, "w1", { holderIdentity: "old", leaseDurationSeconds: 30, renewTime: formatMicroTime(new Date(T0)), acquireTime: formatMicroTime(new Date(T0)), leaseTransitions: 2 }), NS, "w1");
    const a = new Replica(policy);
    const b = new Replica(policy);
    a.decide(request("w1", "ctl-a"), w, store, T0); // first sightings
    b.decide(request("w1", "ctl-b"), w, store, T0);
    const da = a.decide(request("w1", "ctl-a", FENCE), w, store, T0 + 40 * S);
    const db = b.decide(request("w1", "ctl-b", FENCE), w, store, T0 + 40 * S);
    expect(da.kind).toBe("grant");
    expect(db.kind).toBe("grant");
    expect(da.writes.map((x) => x.expectedResourceVersion)).toEqual(db.writes.map((x) => x.expectedResourceVersion));
    expect(da.writes.every((x) => store.apply(x).ok)).toBe(true);
    expect(store.apply(db.writes.at(-1)!)).toEqual({ ok: false, status: 409, reason: "Conflict" });
    const retry = b.decide(request("w1", "ctl-b", FENCE), w, store, T0 + 40 * S);
    expect(retry.kind).toBe("deny");
    expect(held(store, "w1")).toBe("ctl-a");
    expect(store.get(NS, "w1")?.spec.leaseTransitions).toBe(3);
  });

  it("scenario 03: foreign mutation — a non-holder's renew or release gets AlreadyHeld and changes nothing", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const a = new Replica(policy);
    expect(a.acquire(request("w1", "ctl-a"), w, store, T0).decision.kind).toBe("grant");
    const rv = store.get(NS, "w1")?.metadata.resourceVersion;
    const state = a.state(w, store);
    const renew = decideRenew({ node: "w1", holder: "intruder" }, state, new Date(T0 + S), policy);
    expect(renew.kind).toBe("deny");
    if (renew.kind === "deny") expect(renew.code).toBe("AlreadyHeld");
    expect(renew.writes).toEqual([]);
    const release = decideRelease({ node: "w1", holder: "intruder" }, state, new Date(T0 + S), policy);
    expect(release.kind).toBe("deny");
    if (release.kind === "deny") expect(release.current.holder).toBe("ctl-a");
    expect(release.writes).toEqual([]);
    expect(store.get(NS, "w1")?.metadata.resourceVersion).toBe(rv);
  });

  it("scenario 04: no write when held — a denied request makes exactly one read and zero writes", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const a = new Replica(policy);
    a.acquire(request("w1", "ctl-a"), w, store, T0);
    const reads = store.reads;
    const writes = store.writes;
    const b = new Replica(policy);
    const { decision } = b.acquire(request("w1", "ctl-b", REBOOT), w, store, T0 + S);
    expect(decision.kind).toBe("deny");
    expect(store.reads - reads).toBe(1);
    expect(store.writes - writes).toBe(0);
  });

  // Scenario 05 (pool budget race over 1,000 interleavings) lives in model.test.ts.

  it("scenario 06: reserve before act — writes are slot then lease; a crash mid-way never yields an unrecorded action", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const a = new Replica(policy);
    const d = a.decide(request("w1", "ctl-a"), w, store, T0);
    expect(d.kind).toBe("grant");
    expect(d.writes.map((x) => x.body.metadata.labels["lockstep.io/lease-kind"])).toEqual(["slot", "node"]);
    // Crash after the slot write, before the node lease and before any reply: the requester got no OK.
    expect(store.apply(d.writes[0]!).ok).toBe(true);
    a.crash();
    expect(store.get(NS, "w1")).toBeUndefined();
    // Nobody else can use the reserved slot meanwhile.
    const other = new Replica(policy).acquire(request("w2", "ctl-b"), w, store, T0 + S).decision;
    expect(other.kind).toBe("deny");
    if (other.kind === "deny") expect(other.code).toBe("BudgetExhausted");
    // The requester retries through another replica: it reuses its slot and records the lease.
    const retry = new Replica(policy).acquire(request("w1", "ctl-a"), w, store, T0 + 2 * S).decision;
    expect(retry.kind).toBe("grant");
    expect(held(store, "w1")).toBe("ctl-a");
    expect(store.list().filter((l) => l.labels["lockstep.io/lease-kind"] === "slot" && l.holderIdentity === "ctl-a")).toHaveLength(1);
  });

  it("scenario 07: expiry takeover — past duration + skew allowance, acquireTime = now and transitions + 1", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    store.seed(rawLease(NS, "w1", { holderIdentity: "NodeHealthCheck-nhc", leaseDurationSeconds: 60, renewTime: formatMicroTime(new Date(T0)), acquireTime: formatMicroTime(new Date(T0 - 600 * S)), leaseTransitions: 3 }), NS, "w1");
    const r = new Replica(policy);
    expect(r.decide(request("w1", "ctl-a", DEPROVISION), w, store, T0).kind).toBe("deny");
    expect(r.decide(request("w1", "ctl-a", DEPROVISION), w, store, T0 + 63 * S).kind).toBe("deny");
    const now = T0 + 64 * S;
    const d = r.decide(request("w1", "ctl-a", DEPROVISION), w, store, now);
    expect(d.kind).toBe("grant");
    if (d.kind !== "grant") return;
    expect(d.leaseBody.spec.acquireTime).toBe(formatMicroTime(new Date(now)));
    expect(d.leaseBody.spec.leaseTransitions).toBe(4);
    expect(d.events.map((e) => e.type)).toContain("lease.expired");
  });

  it("scenario 08: observed-time expiry — takeable only after leaseDuration on our clock since first seen", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    // renewTime years ago: a replica trusting it would take over at once.
    store.seed(rawLease("medik8s-leases", "node-w1", { holderIdentity: "some-operator", leaseDurationSeconds: 60, renewTime: "2001-01-01T00:00:00.000000Z", leaseTransitions: 0 }), "medik8s-leases", "node-w1");
    const r = new Replica(policy);
    expect(r.decide(request("w1", "ctl-a"), w, store, T0).kind).toBe("deny");
    expect(r.decide(request("w1", "ctl-a"), w, store, T0 + 60 * S).kind).toBe("deny");
    // A restarted replica starts observing afresh, so it waits a full duration again.
    const fresh = new Replica(policy);
    expect(fresh.decide(request("w1", "ctl-a"), w, store, T0 + 64 * S).kind).toBe("deny");
    expect(r.decide(request("w1", "ctl-a"), w, store, T0 + 64 * S).kind).toBe("grant");
  });

  it("scenario 09: own renew — only renewTime and duration change, also after an unclaimed lapse", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "ctl-a"), w, store, T0);
    const before = store.get(NS, "w1")!;
    const renewed = r.acquire(request("w1", "ctl-a", UPDATE, { durationSeconds: 90 }), w, store, T0 + 30 * S).decision;
    expect(renewed.kind).toBe("grant");
    if (renewed.kind === "grant") expect(renewed.renewal).toBe(true);
    const mid = store.get(NS, "w1")!;
    expect(mid.spec.acquireTime).toBe(before.spec.acquireTime);
    expect(mid.spec.leaseTransitions).toBe(before.spec.leaseTransitions);
    expect(mid.spec.leaseDurationSeconds).toBe(90);
    expect(mid.spec.renewTime).toBe(formatMicroTime(new Date(T0 + 30 * S)));
    const late = r.acquire(request("w1", "ctl-a"), w, store, T0 + 500 * S).decision;
    expect(late.kind).toBe("grant");
    const after = store.get(NS, "w1")!;
    expect(after.spec.acquireTime).toBe(before.spec.acquireTime);
    expect(after.spec.leaseTransitions).toBe(before.spec.leaseTransitions);
  });

  it("scenario 10: crash of holder — another acquires after expiry; the restarted holder's renew is refused", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "ctl-a", FENCE), w, store, T0);
    expect(r.acquire(request("w1", "ctl-b", FENCE), w, store, T0 + 10 * S).decision.kind).toBe("deny");
    expect(r.acquire(request("w1", "ctl-b", FENCE), w, store, T0 + 74 * S).decision.kind).toBe("grant");
    const renew = decideRenew({ node: "w1", holder: "ctl-a" }, r.state(w, store), new Date(T0 + 80 * S), policy);
    expect(renew.kind).toBe("deny");
    if (renew.kind === "deny") expect(renew.code).toBe("AlreadyHeld");
    const t: HolderTimings = { leaseDurationSeconds: 60, renewDeadlineSeconds: 40, retryPeriodSeconds: 10, maxConsecutiveLosses: 3 };
    // Its last successful renew was 80 s ago: the refusal is a loss, so it aborts and restores the node.
    expect(afterRenew({ lastRenewedMs: T0, consecutiveLosses: 0 }, "refused", T0 + 80 * S, t).verdict).toBe("lost");
  });

  it("scenario 11: transient loss — pause on fewer than K refusals, resume on success, fail after K", () => {
    const t: HolderTimings = { leaseDurationSeconds: 60, renewDeadlineSeconds: 40, retryPeriodSeconds: 5, maxConsecutiveLosses: 3 };
    let s = { lastRenewedMs: T0, consecutiveLosses: 0 };
    let v = afterRenew(s, "refused", T0 + 5 * S, t);
    expect(v.verdict).toBe("paused");
    v = afterRenew(v.state, "refused", T0 + 10 * S, t);
    expect(v.verdict).toBe("paused");
    v = afterRenew(v.state, "renewed", T0 + 15 * S, t);
    expect(v).toEqual({ verdict: "holding", state: { lastRenewedMs: T0 + 15 * S, consecutiveLosses: 0 } });
    s = v.state;
    for (const [i, expected] of (["paused", "paused", "lost"] as const).entries()) {
      v = afterRenew(s, "refused", T0 + (20 + i) * S, t);
      s = v.state;
      expect(v.verdict).toBe(expected);
    }
  });

  it("scenario 12: ghost holder — TTL 0 is free, a lease for a deleted node is reported, holds are capped", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    store.seed(rawLease(NS, "w1", { holderIdentity: "w9", leaseDurationSeconds: 0, renewTime: formatMicroTime(new Date(T0)) }), NS, "w1");
    store.seed(rawLease(NS, "gone", { holderIdentity: "ctl-x", leaseDurationSeconds: 60, renewTime: formatMicroTime(new Date(T0)) }), NS, "gone");
    const r = new Replica(policy);
    const d = r.decide(request("w1", "ctl-a", REBOOT), w, store, T0);
    expect(d.kind).toBe("grant");
    expect(d.warnings.map((x) => x.code)).toContain("CorruptLease");
    const pre = preflightUpgrade(r.state(w, store), new Date(T0), policy);
    expect(pre.warnings.find((x) => x.code === "OrphanLease")?.node).toBe("gone");
    // Bounded hold: renewals past maxHoldSeconds are refused with a warning.
    const capped = testPolicy({ maxHoldSeconds: { Reboot: 120 } });
    const rc = new Replica(capped);
    const s2 = new MemoryLeaseStore();
    rc.acquire(request("w2", "ctl-a", REBOOT), w, s2, T0);
    expect(rc.acquire(request("w2", "ctl-a", REBOOT), w, s2, T0 + 60 * S).decision.kind).toBe("grant");
    const over = rc.acquire(request("w2", "ctl-a", REBOOT), w, s2, T0 + 121 * S).decision;
    expect(over.kind).toBe("deny");
    if (over.kind === "deny") expect(over.code).toBe("MaxHoldExceeded");
    expect(over.warnings.map((x) => x.code)).toEqual(["MaxHoldExceeded"]);
  });

  it("scenario 13: release hand-off — holder cleared with a positive duration, retried on 409, waiter acquires at once", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "ctl-a"), w, store, T0);
    const waiting = r.decide(request("w1", "ctl-b", UPDATE, { waitSeconds: 300 }), w, store, T0 + S);
    expect(waiting.kind).toBe("wait");
    const release = decideRelease({ node: "w1", holder: "ctl-a" }, r.state(w, store), new Date(T0 + 2 * S), policy);
    expect(release.kind).toBe("release");
    const nodeWrite = release.writes.find((x) => x.name === "w1")!;
    expect(nodeWrite.body.spec.holderIdentity).toBeUndefined();
    expect(nodeWrite.body.spec.leaseDurationSeconds).toBe(1);
    // Someone touches the lease between read and write: the release is retried and succeeds.
    const renew = r.decide(request("w1", "ctl-a"), w, store, T0 + 2 * S);
    renew.writes.forEach((x) => store.apply(x));
    expect(store.apply(nodeWrite).ok).toBe(false);
    expect(r.release("ctl-a", "w1", w, store, T0 + 3 * S)).toBe(true);
    expect(held(store, "w1")).toBeUndefined();
    const next = r.acquire(request("w1", "ctl-b", UPDATE, { waitSeconds: 300 }), w, store, T0 + 3 * S).decision;
    expect(next.kind).toBe("grant");
  });

  it("scenario 14: release after cancellation — a renew still in flight cannot undo the release", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "ctl-a"), w, store, T0);
    const inflight = r.decide(request("w1", "ctl-a"), w, store, T0 + 10 * S); // decided, not yet written
    expect(r.release("ctl-a", "w1", w, store, T0 + 11 * S)).toBe(true);
    expect(inflight.writes.map((x) => store.apply(x).ok)).toContain(false);
    expect(held(store, "w1")).toBeUndefined();
  });

  it("scenario 15: maintenance first — update, remediation and deletion are denied with 'maintenance flagged'", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "admin-alice", MAINTENANCE, { reason: "disk replacement", durationSeconds: 86400 }), w, store, T0);
    for (const op of [UPDATE, FENCE, DEPROVISION]) {
      const d = r.acquire(request("w1", "ctl-b", op, { force: true }), w, store, T0 + S).decision;
      expect(d.kind).toBe("deny");
      if (d.kind !== "deny") continue;
      expect(d.code).toBe("MaintenanceFlagged");
      expect(d.reason).toBe("maintenance flagged: admin-alice, disk replacement");
      expect(d.events.find((e) => e.type === "warning.raised")?.warning?.code).toBe("MaintenanceFlagged");
    }
    // The same holds for foreign maintenance: medik8s' NMO and a kubectl admin hold (kubeadm*).
    store.seed(rawLease("medik8s-leases", "node-w2", { holderIdentity: "node-maintenance", leaseDurationSeconds: 3600, renewTime: formatMicroTime(new Date(T0)) }), "medik8s-leases", "node-w2");
    store.seed(rawLease("kube-node-maintenance", "w3", { holderIdentity: "kubeadm-bob", leaseDurationSeconds: 1, renewTime: "2020-01-01T00:00:00.000000Z" }), "kube-node-maintenance", "w3");
    const nmo = r.decide(request("w2", "ctl-b", FENCE), w, store, T0 + 2 * S);
    expect(nmo.kind === "deny" && nmo.reason.startsWith("maintenance flagged: node-maintenance")).toBe(true);
    const admin = r.decide(request("w3", "ctl-b", UPDATE), w, store, T0 + 9999 * S);
    expect(admin.kind === "deny" && admin.code).toBe("MaintenanceFlagged");
  });

  it("scenario 16: upgrade in progress — maintenance is refused or queued with a warning; force is audited", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "mco-updater", UPDATE, { reason: "rendered-worker-2" }), w, store, T0);
    const rv = store.get(NS, "w1")!.metadata.resourceVersion;
    const denied = r.acquire(request("w1", "admin-alice", MAINTENANCE), w, store, T0 + S).decision;
    expect(denied.kind).toBe("deny");
    if (denied.kind === "deny") expect(denied.reason).toContain("update in progress: mco-updater (Update): rendered-worker-2");
    expect(denied.warnings.map((x) => x.code)).toEqual(["UpdateInProgress"]);
    expect(store.get(NS, "w1")!.metadata.resourceVersion).toBe(rv);
    const queued = r.decide(request("w1", "admin-alice", MAINTENANCE, { waitSeconds: 600 }), w, store, T0 + S);
    expect(queued.kind).toBe("wait");
    expect(queued.warnings.map((x) => x.code)).toEqual(["UpdateInProgress"]);
    // Force is audited and binding, but never grants at once: the updater is marked preempted.
    const forced = r.acquire(request("w1", "admin-alice", MAINTENANCE, { force: true, reason: "urgent" }), w, store, T0 + 2 * S).decision;
    expect(forced.kind === "deny" && forced.code).toBe("PreemptionPending");
    expect(forced.events.find((e) => e.type === "lease.preempted")?.previous?.holder).toBe("mco-updater");
    expect(store.get(NS, "w1")!.metadata.annotations[ANN_FORCED_BY]).toContain("mco-updater");
    expect(held(store, "w1")).toBe("mco-updater");
    expect(r.release("mco-updater", "w1", w, store, T0 + 3 * S)).toBe(true);
    const granted = r.acquire(request("w1", "admin-alice", MAINTENANCE, { reason: "urgent" }), w, store, T0 + 4 * S).decision;
    expect(granted.kind).toBe("grant");
    expect(held(store, "w1")).toBe("admin-alice");
    expect(store.get(NS, "w1")!.metadata.annotations[ANN_FORCED_BY]).toContain("mco-updater");
  });

  it("scenario 17: cooperative preemption — the holder is asked, releases at a safe point; ignoring keeps it to expiry", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "mco-updater"), w, store, T0);
    const ask = r.acquire(request("w1", "admin-alice", MAINTENANCE, { waitSeconds: 600 }), w, store, T0 + S).decision;
    expect(ask.kind).toBe("wait");
    expect(store.get(NS, "w1")!.metadata.annotations[ANN_PREEMPT]).toBe("admin-alice (Maintenance)");
    expect(held(store, "w1")).toBe("mco-updater");
    const renew = r.acquire(request("w1", "mco-updater"), w, store, T0 + 10 * S).decision;
    expect(renew.kind === "grant" && renew.preemptionRequestedBy).toBe("admin-alice (Maintenance)");
    // Ignoring the request: the requester keeps waiting while the lease is valid...
    expect(r.acquire(request("w1", "admin-alice", MAINTENANCE, { waitSeconds: 600 }), w, store, T0 + 60 * S).decision.kind).toBe("wait");
    // ...and gets it once the ignored lease expires: this replica first saw the renewed record at
    // +60 s, so it expires after duration 60 s + allowance 3 s of observation.
    expect(r.acquire(request("w1", "admin-alice", MAINTENANCE, { waitSeconds: 600 }), w, store, T0 + 123 * S).decision.kind).toBe("wait");
    expect(r.acquire(request("w1", "admin-alice", MAINTENANCE, { waitSeconds: 600 }), w, store, T0 + 124 * S).decision.kind).toBe("grant");
    // A cooperative holder releases at its safe point and the requester acquires at once.
    const s2 = new MemoryLeaseStore();
    r.acquire(request("w2", "mco-updater"), w, s2, T0);
    r.acquire(request("w2", "admin-alice", MAINTENANCE, { waitSeconds: 600 }), w, s2, T0 + S);
    expect(r.release("mco-updater", "w2", w, s2, T0 + 2 * S)).toBe(true);
    expect(r.acquire(request("w2", "admin-alice", MAINTENANCE, { waitSeconds: 600 }), w, s2, T0 + 2 * S).decision.kind).toBe("grant");
  });

  it("scenario 18: fairness — budget 1, grants follow request order while new requests keep arriving", () => {
    const names = ["w1", "w2", "w3", "w4", "w5", "w6", "w7"];
    const w = world({ nodes: names.map((n) => node(n)) });
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    let t = T0;
    const order: string[] = [];
    const arrivals: string[] = [];
    const pending: string[] = [];
    const ask = (n: string) => r.acquire(request(n, `ctl-${n}`, UPDATE, { waitSeconds: 3600 }), w, store, t).decision;
    expect(ask("w1").kind).toBe("grant");
    order.push("w1");
    for (const n of ["w2", "w3", "w4"]) {
      t += S;
      expect(ask(n).kind).toBe("wait");
      arrivals.push(n);
      pending.push(n);
    }
    let holder = "w1";
    let late = ["w5", "w6", "w7"];
    while (pending.length > 0) {
      t += S;
      expect(r.release(`ctl-${holder}`, holder, w, store, t)).toBe(true);
      // Everyone polls, latest first (adversarial), and a newcomer arrives meanwhile.
      const newcomer = late.shift();
      if (newcomer) {
        expect(ask(newcomer).kind).toBe("wait");
        arrivals.push(newcomer);
        pending.push(newcomer);
      }
      const granted = [...pending].reverse().filter((n) => ask(n).kind === "grant");
      expect(granted).toHaveLength(1);
      holder = granted[0]!;
      order.push(holder);
      pending.splice(pending.indexOf(holder), 1);
    }
    expect(order).toEqual(["w1", ...arrivals]);
  });

  it("scenario 19: spacing persists — the post-release delay survives a coordinator restart", () => {
    const spaced = testPolicy({ postReleaseDelaySeconds: 120 });
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(spaced);
    r.acquire(request("w1", "ctl-a"), w, store, T0);
    expect(r.release("ctl-a", "w1", w, store, T0 + 10 * S)).toBe(true);
    const restarted = new Replica(spaced);
    const early = restarted.acquire(request("w2", "ctl-b"), w, store, T0 + 70 * S).decision;
    expect(early.kind).toBe("deny");
    if (early.kind === "deny") {
      expect(early.code).toBe("Spacing");
      expect(early.retryAfterSeconds).toBe(63);
    }
    expect(restarted.acquire(request("w2", "ctl-b"), w, store, T0 + 134 * S).decision.kind).toBe("grant");
  });

  it("scenario 20: windows and budgets — allow window across midnight, DST, minimum of budgets, round up, NotReady counts", () => {
    const at = (iso: string) => Date.parse(iso);
    const night = budget("night", { pool: "worker", maxDisrupted: "0", operations: ["Deprovision"], schedules: [{ cron: "0 22 * * *", duration: "8h", timeZone: "Europe/Berlin", maxDisrupted: "1" }] });
    const w = world({ budgets: [night] });
    const store = new MemoryLeaseStore();
    const r = new Replica(testPolicy({ maxHoldSeconds: {} }));
    // 21:30 in Berlin (UTC+1 in November): window closed, nothing new.
    const closed = r.acquire(request("w1", "ctl-a", DEPROVISION), w, store, at("2026-11-21T20:30:00Z")).decision;
    expect(closed.kind === "deny" && closed.code).toBe("BudgetExhausted");
    // 23:00: open, one at a time.
    expect(r.acquire(request("w1", "ctl-a", DEPROVISION), w, store, at("2026-11-21T22:00:00Z")).decision.kind).toBe("grant");
    expect(r.acquire(request("w2", "ctl-b", DEPROVISION), w, store, at("2026-11-21T22:00:10Z")).decision.kind).toBe("deny");
    expect(r.release("ctl-a", "w1", w, store, at("2026-11-21T23:20:00Z"))).toBe(true);
    // 03:30 the next day, past midnight: still inside the window.
    expect(r.acquire(request("w2", "ctl-b", DEPROVISION), w, store, at("2026-11-22T02:30:00Z")).decision.kind).toBe("grant");
    // 06:30, window closed: the in-flight grant keeps renewing, a new one is refused.
    expect(r.acquire(request("w2", "ctl-b", DEPROVISION), w, store, at("2026-11-22T02:30:40Z")).decision.kind).toBe("grant");
    expect(r.acquire(request("w2", "ctl-b", DEPROVISION), w, store, at("2026-11-22T05:30:00Z")).decision.kind).toBe("grant");
    const after = r.acquire(request("w3", "ctl-c", DEPROVISION), w, store, at("2026-11-22T05:30:10Z")).decision;
    expect(after.kind === "deny" && after.reason).toContain("outside its windows: allows 0");
    // DST: 09:00 New York is 14:00Z in winter and 13:00Z in summer.
    const ny = { cron: "0 9 * * *", duration: "1h", timeZone: "America/New_York", maxDisrupted: "" };
    expect(evaluateBudget(budget("ny", { pool: "worker", schedules: [ny] }), w.nodes, w.pools, new Date(at("2026-07-15T13:30:00Z")), policy).active).toBe(true);
    expect(evaluateBudget(budget("ny", { pool: "worker", schedules: [ny] }), w.nodes, w.pools, new Date(at("2026-01-15T13:30:00Z")), policy).active).toBe(false);
    expect(evaluateBudget(budget("ny", { pool: "worker", schedules: [ny] }), w.nodes, w.pools, new Date(at("2026-01-15T14:30:00Z")), policy).active).toBe(true);
    // Several budgets: the most restrictive applies.
    const two = world({ budgets: [budget("loose", { pool: "worker", maxDisrupted: "3" }), budget("tight", { pool: "worker", maxDisrupted: "1" })] });
    const s2 = new MemoryLeaseStore();
    expect(r.acquire(request("w1", "ctl-a", DEPROVISION), two, s2, T0).decision.kind).toBe("grant");
    const second = r.acquire(request("w2", "ctl-b", DEPROVISION), two, s2, T0).decision;
    expect(second.kind === "deny" && second.reason).toContain("budget tight");
    // Percentages round up: 10% of 4 nodes allows 1, not 0.
    const pct = world({ budgets: [budget("pct", { pool: "worker", maxDisrupted: "10%" })] });
    const s3 = new MemoryLeaseStore();
    expect(r.acquire(request("w1", "ctl-a", DEPROVISION), pct, s3, T0).decision.kind).toBe("grant");
    expect(r.acquire(request("w2", "ctl-b", DEPROVISION), pct, s3, T0).decision.kind).toBe("deny");
    // A NotReady node consumes the budget.
    const sick = world({ nodes: [node("w1"), node("w2"), node("w3", { ready: false })], budgets: [budget("one", { pool: "worker", maxDisrupted: "1" })] });
    const notReady = r.acquire(request("w1", "ctl-a", DEPROVISION), sick, new MemoryLeaseStore(), T0).decision;
    expect(notReady.kind === "deny" && notReady.reason).toContain("w3");
  });

  it("scenario 21: API conflict on renew — re-read; still holder retries, holder changed declares loss", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "ctl-a"), w, store, T0);
    const stale = r.decide(request("w1", "ctl-a"), w, store, T0 + 10 * S);
    // An admin edits the Lease (labels only): the renew's CAS fails, the re-read shows we still hold it.
    const edited = store.get(NS, "w1")!;
    edited.metadata.labels["team"] = "infra";
    store.apply({ namespace: NS, name: "w1", expectedResourceVersion: edited.metadata.resourceVersion!, body: edited });
    expect(stale.writes.map((x) => store.apply(x).ok)).toContain(false);
    const again = r.acquire(request("w1", "ctl-a"), w, store, T0 + 10 * S).decision;
    expect(again.kind === "grant" && again.renewal).toBe(true);
    // Now the admin hands the node to someone else: the holder's renew is refused.
    const taken = store.get(NS, "w1")!;
    taken.spec.holderIdentity = "kubeadm-carol";
    store.apply({ namespace: NS, name: "w1", expectedResourceVersion: taken.metadata.resourceVersion!, body: taken });
    const lost = decideRenew({ node: "w1", holder: "ctl-a" }, r.state(w, store), new Date(T0 + 20 * S), policy);
    expect(lost.kind === "deny" && lost.code).toBe("AlreadyHeld");
  });

  it("scenario 22: API outage — past renewDeadline the holder halts, before the lease can expire for others", () => {
    const t: HolderTimings = { leaseDurationSeconds: 60, renewDeadlineSeconds: 40, retryPeriodSeconds: 10, maxConsecutiveLosses: 3 };
    expect(validateHolderTimings(t)).toEqual([]);
    expect(validateHolderTimings({ ...t, renewDeadlineSeconds: 60 })).toContain("lease duration must be greater than the renew deadline");
    let s = { lastRenewedMs: T0, consecutiveLosses: 0 };
    let verdict = "holding";
    let haltedAt = 0;
    for (let now = T0 + 10 * S; verdict !== "lost"; now += 10 * S) {
      const v = afterRenew(s, "error", now, t);
      s = v.state;
      verdict = v.verdict;
      haltedAt = now;
    }
    expect(haltedAt - T0).toBe(40 * S);
    expect(haltedAt).toBeLessThan(T0 + t.leaseDurationSeconds * S);
  });

  it("scenario 23: clock skew — a requester 5 min ahead does not steal; a future renewTime counts as held", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const holderReplica = new Replica(policy);
    holderReplica.acquire(request("w1", "ctl-a", FENCE), w, store, T0);
    const ahead = new Replica(policy, 5 * 60 * S);
    const d = ahead.acquire(request("w1", "ctl-b", FENCE), w, store, T0 + 10 * S).decision;
    expect(d.kind).toBe("deny");
    // A foreign holder whose clock runs 5 min ahead writes a renewTime in our future.
    store.seed(rawLease("medik8s-leases", "node-w2", { holderIdentity: "NodeHealthCheck-x", leaseDurationSeconds: 60, renewTime: formatMicroTime(new Date(T0 + 300 * S)) }), "medik8s-leases", "node-w2");
    const r = new Replica(policy);
    expect(r.decide(request("w2", "ctl-b", DEPROVISION), w, store, T0).kind).toBe("deny");
    expect(r.decide(request("w2", "ctl-b", DEPROVISION), w, store, T0 + 120 * S).kind).toBe("deny");
    // Never forever: a record frozen for duration + maxClockSkew is expired.
    expect(r.decide(request("w2", "ctl-b", DEPROVISION), w, store, T0 + 661 * S).kind).toBe("grant");
  });

  it("scenario 24: bad input — invalid requests and budgets are rejected; invalid budgets fail closed", () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    const bad = [
      request("w1", ""),
      request("w1", "kubeadm-admin"),
      request("w1", "ctl", 99 as OperationType),
      request("w1", "ctl", OperationType.OPERATION_TYPE_UNSPECIFIED),
      request("nope", "ctl"),
      request("w1", "ctl", UPDATE, { durationSeconds: 0 }),
      request("w1", "ctl", UPDATE, { durationSeconds: -5 }),
      request("w1", "ctl", UPDATE, { durationSeconds: 3601 }),
    ];
    for (const req of bad) {
      const d = r.decide(req, w, store, T0);
      expect(d.kind === "deny" && d.code).toBe("Invalid");
      expect(d.writes).toEqual([]);
    }
    const cases: Array<[string, Parameters<typeof budget>[1], string]> = [
      ["malformed count", { pool: "worker", maxDisrupted: "two" }, "neither a count nor a percentage"],
      ["over 100%", { pool: "worker", maxDisrupted: "150%" }, "over 100%"],
      ["malformed cron", { pool: "worker", schedules: [{ cron: "61 * * * *", duration: "1h", timeZone: "", maxDisrupted: "" }] }, "invalid cron"],
      ["no duration", { pool: "worker", schedules: [{ cron: "0 * * * *", duration: "", timeZone: "", maxDisrupted: "" }] }, "has no duration"],
      ["bad zone", { pool: "worker", schedules: [{ cron: "0 * * * *", duration: "1h", timeZone: "Mars/Olympus", maxDisrupted: "" }] }, "unknown time zone"],
      ["bad operation", { pool: "worker", operations: ["Nap"] }, "unknown operations Nap"],
    ];
    for (const [label, fields, message] of cases) {
      const ev = evaluateBudget(budget(label.replace(/\W/g, "-"), fields), w.nodes, w.pools, new Date(T0), policy);
      expect({ label, valid: ev.valid, limit: ev.limit, active: ev.active }).toEqual({ label, valid: false, limit: 0, active: true });
      expect(ev.message).toContain(message);
    }
    const closed = r.decide(request("w1", "ctl", DEPROVISION), world({ budgets: [budget("broken", { pool: "worker", maxDisrupted: "x" })] }), store, T0);
    expect(closed.kind === "deny" && closed.reason).toContain("invalid budget, allowing 0");
  });

  it("scenario 25: corrupt lease — missing or partial spec is free, taken over with transitions + 1 and an event", () => {
    const w = world({ nodes: ["c1", "c2", "c3", "c4", "c5", "c6"].map((n) => node(n)) });
    const corrupt: Array<[string, unknown]> = [
      ["c1", { holderIdentity: "x", leaseTransitions: 2 }],
      ["c2", { holderIdentity: "x", renewTime: formatMicroTime(new Date(T0)), leaseTransitions: 2 }],
      ["c3", { holderIdentity: "x", renewTime: formatMicroTime(new Date(T0)), leaseDurationSeconds: -30, leaseTransitions: 2 }],
      ["c4", { holderIdentity: "x", renewTime: "yesterday", leaseDurationSeconds: 30, leaseTransitions: 2 }],
      ["c5", { leaseTransitions: -4 }],
      ["c6", "not an object"],
    ];
    const store = new MemoryLeaseStore();
    for (const [name, spec] of corrupt) store.seed({ metadata: { annotations: "junk" }, spec }, NS, name);
    const r = new Replica(policy);
    for (const [name, spec] of corrupt) {
      const { decision } = r.acquire(request(name, "ctl-a", FENCE), w, store, T0);
      expect(decision.kind).toBe("grant");
      const transitions = typeof spec === "object" && spec !== null ? Math.max(0, (spec as { leaseTransitions: number }).leaseTransitions) : 0;
      expect(store.get(NS, name)?.spec.leaseTransitions).toBe(transitions + 1);
      if (typeof spec === "object" && (spec as { holderIdentity?: string }).holderIdentity) {
        expect(decision.events.find((e) => e.type === "warning.raised")?.warning?.code).toBe("CorruptLease");
      }
    }
    // Garbage of any shape decodes without throwing.
    for (const junk of [null, 42, "x", [], { metadata: null, spec: null }, { spec: { renewTime: {} } }]) {
      expect(() => decide(request("c1", "ctl-b"), { ...w, leases: [leaseStateFromObject(junk)] }, new Date(T0), policy)).not.toThrow();
    }
    expect(encodeLease).toBeTypeOf("function");
  });
});

describe("preemption protocol (forced requests)", () => {
  const policy = testPolicy();
  const forced = (holder = "admin-alice", fields: Parameters<typeof request>[3] = {}) => request("w1", holder, MAINTENANCE, { force: true, reason: "bad DIMM", ...fields });
  const setup = () => {
    const w = world();
    const store = new MemoryLeaseStore();
    const r = new Replica(policy);
    r.acquire(request("w1", "mco-updater", UPDATE, { durationSeconds: 60 }), w, store, T0);
    return { w, store, r };
  };

  it("force → PreemptionPending, the Lease marked preempted once, lease.preempted with the holder; retry-after within the remaining lease", () => {
    const { w, store, r } = setup();
    const d = r.acquire(forced(), w, store, T0 + 10 * S).decision;
    expect(d.kind).toBe("deny");
    if (d.kind !== "deny") return;
    expect(d.code).toBe("PreemptionPending");
    expect(d.reason).toMatch(/^mco-updater preempted by admin-alice \(Maintenance\): granted once it releases or its lease expires/);
    expect(d.retryAfterSeconds).toBeGreaterThan(0);
    expect(d.retryAfterSeconds).toBeLessThanOrEqual(63);
    expect(d.current?.holder).toBe("mco-updater");
    const ann = store.get(NS, "w1")!.metadata.annotations;
    expect(ann[ANN_PREEMPTED_BY]).toBe("admin-alice (Maintenance)");
    expect(ann[ANN_PREEMPTED_AT]).toBe(formatMicroTime(new Date(T0 + 10 * S)));
    expect(held(store, "w1")).toBe("mco-updater");
    expect(d.events.filter((e) => e.type === "lease.preempted").map((e) => e.previous?.holder)).toEqual(["mco-updater"]);
    // Asking again (forced or not) writes nothing and raises no second lease.preempted.
    const rv = store.get(NS, "w1")!.metadata.resourceVersion;
    for (const again of [forced(), request("w1", "admin-alice", MAINTENANCE)]) {
      const d2 = r.acquire(again, w, store, T0 + 11 * S).decision;
      expect(d2.kind === "deny" && d2.code).toBe("PreemptionPending");
      expect(d2.events.some((e) => e.type === "lease.preempted")).toBe(false);
    }
    expect(store.get(NS, "w1")!.metadata.resourceVersion).toBe(rv);
  });

  it("the preempted holder's renew is refused as Preempted, naming the preemptor; the Lease is unchanged", () => {
    const { w, store, r } = setup();
    r.acquire(forced(), w, store, T0 + 10 * S);
    const rv = store.get(NS, "w1")!.metadata.resourceVersion;
    for (const d of [decideRenew({ node: "w1", holder: "mco-updater" }, r.state(w, store), new Date(T0 + 12 * S), policy), r.acquire(request("w1", "mco-updater"), w, store, T0 + 12 * S).decision]) {
      expect(d.kind === "deny" && d.code).toBe("Preempted");
      expect(d.kind === "deny" && d.reason).toMatch(/preempted by admin-alice \(Maintenance\) at .*: renew refused; stop and release w1/);
      expect(d.writes).toEqual([]);
    }
    expect(store.get(NS, "w1")!.metadata.resourceVersion).toBe(rv);
  });

  it("holder release → the preemptor is granted (transitions + 1, audit kept, mark cleared), ahead of earlier waiters", () => {
    const { w, store, r } = setup();
    expect(r.acquire(request("w1", "ctl-early", REBOOT, { waitSeconds: 600 }), w, store, T0 + 5 * S).decision.kind).toBe("wait");
    r.acquire(forced(), w, store, T0 + 10 * S);
    // Nobody else may take the released node while it is reserved for the preemptor.
    expect(r.release("mco-updater", "w1", w, store, T0 + 12 * S)).toBe(true);
    const other = r.acquire(request("w1", "ctl-early", REBOOT, { waitSeconds: 600 }), w, store, T0 + 13 * S).decision;
    expect(other.kind === "wait" && other.code).toBe("PreemptionPending");
    const d = r.acquire(request("w1", "admin-alice", MAINTENANCE, { reason: "bad DIMM" }), w, store, T0 + 14 * S).decision;
    expect(d.kind).toBe("grant");
    if (d.kind !== "grant") return;
    expect(d.lease.transitions).toBe(1);
    const lease = store.get(NS, "w1")!;
    expect(lease.spec.holderIdentity).toBe("admin-alice");
    expect(lease.metadata.annotations[ANN_FORCED_BY]).toContain("from mco-updater (Update)");
    expect(lease.metadata.annotations[ANN_PREEMPTED_BY]).toBeUndefined();
  });

  it("expiry → the preemptor is granted; before expiry it is not, and the reservation lapses for others after a grace", () => {
    const { w, store, r } = setup();
    r.acquire(forced(), w, store, T0 + 10 * S);
    // The mark is a new record: this replica first sees it at +11 s, so it expires after 60 + 3 s more.
    expect(r.acquire(forced(), w, store, T0 + 11 * S).decision.kind).toBe("deny");
    expect(r.acquire(forced(), w, store, T0 + 74 * S).decision.kind).toBe("deny");
    const d = r.acquire(forced(), w, store, T0 + 75 * S).decision;
    expect(d.kind).toBe("grant");
    expect(d.events.map((e) => e.type)).toContain("lease.expired");
    expect(held(store, "w1")).toBe("admin-alice");
    // A preemptor that never comes back does not block the node for ever: the reservation lasts
    // the lease's duration + allowance + defaultRetryAfterSeconds from the mark's first sighting.
    const s2 = setup();
    s2.r.acquire(forced(), s2.w, s2.store, T0 + 10 * S);
    s2.r.acquire(request("w1", "ctl-b", REBOOT), s2.w, s2.store, T0 + 11 * S);
    const reserved = s2.r.acquire(request("w1", "ctl-b", REBOOT), s2.w, s2.store, T0 + 80 * S).decision;
    expect(reserved.kind === "deny" && reserved.reason).toMatch(/reserved for its preemptor admin-alice \(Maintenance\)/);
    expect(s2.r.acquire(request("w1", "ctl-b", REBOOT), s2.w, s2.store, T0 + 105 * S).decision.kind).toBe("grant");
  });

  it("a forcer waiting with wait_seconds is granted on release; a second forcer queues behind the first", () => {
    const { w, store, r } = setup();
    const wait = r.acquire(forced("admin-alice", { waitSeconds: 600 }), w, store, T0 + 10 * S).decision;
    expect(wait.kind === "wait" && wait.code).toBe("PreemptionPending");
    expect(wait.events.some((e) => e.type === "lease.preempted")).toBe(true);
    expect(store.get(NS, "w1")!.metadata.annotations[ANN_PREEMPTED_BY]).toBe("admin-alice (Maintenance)");
    const second = r.acquire(forced("admin-bob", { waitSeconds: 600 }), w, store, T0 + 11 * S).decision;
    expect(second.kind === "wait" && second.reason).toMatch(/already preempted by admin-alice/);
    expect(store.get(NS, "w1")!.metadata.annotations[ANN_PREEMPTED_BY]).toBe("admin-alice (Maintenance)");
    expect(r.acquire(forced("admin-alice", { waitSeconds: 600 }), w, store, T0 + 20 * S).decision.kind).toBe("wait");
    expect(r.release("mco-updater", "w1", w, store, T0 + 30 * S)).toBe(true);
    expect(r.acquire(forced("admin-alice", { waitSeconds: 590 }), w, store, T0 + 30 * S).decision.kind).toBe("grant");
    expect(r.acquire(forced("admin-bob", { waitSeconds: 590 }), w, store, T0 + 31 * S).decision.kind).toBe("wait");
  });

  it("only where the table allows force: fencing, foreign leases and maintenance holds are never marked", () => {
    const { w, store, r } = setup();
    const rv = store.get(NS, "w1")!.metadata.resourceVersion;
    const fence = r.acquire(request("w1", "nhc", FENCE, { force: true }), w, store, T0 + S).decision;
    expect(fence.kind === "deny" && fence.code).toBe("Held");
    expect(store.get(NS, "w1")!.metadata.resourceVersion).toBe(rv);
  });
});
