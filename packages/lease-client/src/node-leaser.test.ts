// CoordinatorNodeLeaser against a real gRPC LeaseService (test-harness.ts): one renewing hold per
// node and kind, over one shared client.
import * as grpc from "@grpc/grpc-js";
import { OperationType, renewRefusalMetadata } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterEach, describe, expect, it } from "vitest";
import { CoordinatorNodeLeaser, type CoordinatorLeaserOptions } from "./node-leaser.js";
import { lease, startFakeCoordinator, status, type FakeCoordinator } from "./test-harness.js";

const servers: FakeCoordinator[] = [];
const leasers: CoordinatorNodeLeaser[] = [];

async function setUp(script: Parameters<typeof startFakeCoordinator>[0] = {}, more: Partial<CoordinatorLeaserOptions> = {}) {
  const s = await startFakeCoordinator(script);
  servers.push(s);
  const leaser = new CoordinatorNodeLeaser({ address: s.address, holder: "sim", durationSeconds: 4, timings: { retryPeriodSeconds: 0.1, renewDeadlineSeconds: 2, maxConsecutiveLosses: 2 }, watchPreemption: false, ...more });
  leasers.push(leaser);
  return { s, leaser };
}

afterEach(async () => {
  await Promise.all(leasers.splice(0).map((l) => l.close()));
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe("CoordinatorNodeLeaser", () => {
  it("acquires as <holder>/<kind> with the kind's operation, once per node and kind while held", async () => {
    const { s, leaser } = await setUp();
    expect(await leaser.acquire("w1", "Update")).toBe(true);
    expect(await leaser.acquire("w1", "Update")).toBe(true);
    expect(await leaser.acquire("w1", "Remediation")).toBe(true);
    expect(await leaser.acquire("w2", "Maintenance")).toBe(true);
    expect(s.acquires.map((a) => [a.node, a.holder, a.operation, a.reason])).toEqual([
      ["w1", "sim/update", OperationType.OPERATION_TYPE_UPDATE, "Update by sim"],
      ["w1", "sim/remediation", OperationType.OPERATION_TYPE_FENCE, "Remediation by sim"],
      ["w2", "sim/maintenance", OperationType.OPERATION_TYPE_MAINTENANCE, "Maintenance by sim"],
    ]);
    expect(leaser.signalFor("w1", "Update")?.aborted).toBe(false);
    expect(leaser.signalFor("w3", "Update")).toBeUndefined();
  });

  it("a denial is false; any other failure is thrown", async () => {
    const { leaser } = await setUp({ acquire: (r) => (r.node === "bad" ? status(grpc.status.INVALID_ARGUMENT, "no such node") : { granted: false, warnings: [], deniedReason: "held", retryAfterSeconds: 5, deniedCode: "Held" }) });
    expect(await leaser.acquire("w1", "Update")).toBe(false);
    await expect(leaser.acquire("bad", "Update")).rejects.toMatchObject({ code: grpc.status.INVALID_ARGUMENT });
  });

  it("release lets the node go; the next acquire asks the coordinator again", async () => {
    const { s, leaser } = await setUp();
    await leaser.acquire("w1", "Update");
    await leaser.release("w1", "Update");
    await leaser.release("w1", "Update"); // nothing held: nothing sent
    expect(s.releases).toEqual([{ node: "w1", holder: "sim/update" }]);
    expect(leaser.signalFor("w1", "Update")).toBeUndefined();
    await leaser.acquire("w1", "Update");
    expect(s.acquires).toHaveLength(2);
  });

  it("a lost hold tells onLost and is forgotten", async () => {
    const lost: string[] = [];
    const { s, leaser } = await setUp({ renew: () => status(grpc.status.FAILED_PRECONDITION, "AlreadyHeld: w1 is held by other", renewRefusalMetadata({ code: "AlreadyHeld", message: "held" })) }, { onLost: (node, kind, why) => void lost.push(`${node}/${kind}: ${why}`) });
    await leaser.acquire("w1", "Update");
    const signal = leaser.signalFor("w1", "Update")!;
    await waitFor(() => lost.length === 1, { what: "onLost" });
    expect(lost[0]).toBe("w1/Update: lease on w1 lost: AlreadyHeld: w1 is held by other");
    expect(signal.aborted).toBe(true);
    expect(leaser.signalFor("w1", "Update")).toBeUndefined();
    await leaser.acquire("w1", "Update");
    expect(s.acquires).toHaveLength(2);
  });

  it("a preemption goes to onPreempted and the preemption handler (not onLost); the node is released once both settle", async () => {
    const told: string[] = [];
    let done!: () => void;
    const { s, leaser } = await setUp(
      { renew: (r) => ({ lease: lease(r.node, r.holder, { preemptedBy: "admin (Maintenance)" }) }) },
      { onLost: () => void told.push("lost"), onPreempted: (node, kind, by) => void told.push(`option ${node}/${kind} by ${by}`) },
    );
    leaser.setPreemptionHandler((node, kind, by) => (told.push(`handler ${node}/${kind} by ${by}`), new Promise<void>((r) => (done = r))));
    await leaser.acquire("w1", "Update");
    await waitFor(() => told.length === 2, { what: "both told" });
    expect(told.sort()).toEqual(["handler w1/Update by admin (Maintenance)", "option w1/Update by admin (Maintenance)"]);
    expect(s.releases).toEqual([]);
    done();
    await waitFor(() => s.releases.length === 1, { what: "the release" });
    expect(told).toHaveLength(2);
  });

  it("watches every hold on one stream: a preemption seen there reaches only the preempted hold", async () => {
    const told: string[] = [];
    const { s, leaser } = await setUp({}, { watchPreemption: true, durationSeconds: 20, timings: { retryPeriodSeconds: 5, renewDeadlineSeconds: 10, maxConsecutiveLosses: 2 }, onPreempted: (node, kind, by) => void told.push(`${node}/${kind} by ${by}`) });
    await leaser.acquire("w1", "Update");
    await leaser.acquire("w2", "Update");
    await waitFor(() => s.watches.length === 1, { what: "the stream" });
    expect(s.watches[0]!.request.node).toBe("");
    s.push(lease("w2", "sim/update", { preemptedBy: "admin (Maintenance)" }));
    await waitFor(() => s.releases.length === 1, { what: "the release of w2" });
    expect(told).toEqual(["w2/Update by admin (Maintenance)"]);
    expect(s.releases[0]!.node).toBe("w2");
    expect(leaser.signalFor("w1", "Update")?.aborted).toBe(false);
    expect(s.watches).toHaveLength(1);
    expect(s.renews).toEqual([]);
  });

  it("close releases every hold", async () => {
    const { s, leaser } = await setUp();
    await leaser.acquire("w1", "Update");
    await leaser.acquire("w2", "Maintenance");
    await leaser.close();
    expect(s.releases.map((r) => r.holder).sort()).toEqual(["sim/maintenance", "sim/update"]);
  });

  it("close releases a preempted hold still at its safe point, before closing the connection", async () => {
    const { s, leaser } = await setUp({ renew: (r) => ({ lease: lease(r.node, r.holder, { preemptedBy: "admin (Maintenance)" }) }) });
    let told = false;
    leaser.setPreemptionHandler(() => ((told = true), new Promise<void>(() => undefined))); // never reaches its safe point
    await leaser.acquire("w1", "Update");
    await waitFor(() => told, { what: "the preemption" });
    await leaser.close();
    expect(s.releases).toEqual([{ node: "w1", holder: "sim/update" }]);
  });

  it("close releases the grant of an acquire still in flight", async () => {
    let grant!: () => void;
    const { s, leaser } = await setUp({
      acquire: (r) => new Promise((res) => (grant = () => res({ granted: true, lease: lease(r.node, r.holder), warnings: [], deniedReason: "", retryAfterSeconds: 0, deniedCode: "" }))),
    });
    const acquired = leaser.acquire("w1", "Update");
    await waitFor(() => s.acquires.length === 1, { what: "the acquire in flight" });
    const closed = leaser.close();
    grant();
    expect(await acquired).toBe(false);
    await closed;
    expect(s.releases).toEqual([{ node: "w1", holder: "sim/update" }]);
  });
});

describe("CoordinatorNodeLeaser, asked twice at once", () => {
  it("takes one hold, which the release then ends: no second handle renewing on unseen", async () => {
    const { s, leaser } = await setUp();
    expect(await Promise.all([leaser.acquire("w1", "Update"), leaser.acquire("w1", "Update")])).toEqual([true, true]);
    expect(s.acquires).toHaveLength(1);
    await leaser.release("w1", "Update");
    const renewed = s.renews.length;
    // Several retry periods: nothing renews a released node.
    await new Promise((r) => setTimeout(r, 400));
    expect(s.renews.length).toBe(renewed);
  });
});

describe("CoordinatorNodeLeaser, released while the acquire is in flight", () => {
  it("the release wins: the late grant is released at once and never renewed", async () => {
    let grant!: () => void;
    const { s, leaser } = await setUp({
      acquire: (r) => new Promise((res) => (grant = () => res({ granted: true, lease: lease(r.node, r.holder), warnings: [], deniedReason: "", retryAfterSeconds: 0, deniedCode: "" }))),
    });
    const acquired = leaser.acquire("w1", "Update");
    await waitFor(() => s.acquires.length === 1, { what: "the acquire in flight" });
    const released = leaser.release("w1", "Update");
    grant();
    expect(await acquired).toBe(false);
    await released;
    expect(s.releases).toEqual([{ node: "w1", holder: "sim/update" }]);
    expect(leaser.signalFor("w1", "Update")).toBeUndefined();
    // Several retry periods: nothing renews the released node.
    await new Promise((r) => setTimeout(r, 400));
    expect(s.renews).toEqual([]);
  });

  it("an acquire asked after that release waits for it, then takes a hold of its own", async () => {
    let grant!: () => void;
    const { s, leaser } = await setUp({
      acquire: (r, n) => {
        const res = { granted: true, lease: lease(r.node, r.holder), warnings: [], deniedReason: "", retryAfterSeconds: 0, deniedCode: "" };
        return n === 1 ? new Promise((done) => (grant = () => done(res))) : res;
      },
    });
    const first = leaser.acquire("w1", "Update");
    await waitFor(() => s.acquires.length === 1, { what: "the acquire in flight" });
    const released = leaser.release("w1", "Update");
    const second = leaser.acquire("w1", "Update");
    grant();
    expect(await first).toBe(false);
    expect(await second).toBe(true);
    await released;
    expect(s.acquires).toHaveLength(2);
    expect(s.releases).toHaveLength(1);
    expect(leaser.signalFor("w1", "Update")?.aborted).toBe(false);
  });
});
