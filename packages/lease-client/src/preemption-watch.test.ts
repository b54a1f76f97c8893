// LeaseWatch against a real gRPC LeaseService (test-harness.ts): delivery per node, reopening a
// broken stream, giving up on a final refusal, and one shared stream per client.
import * as grpc from "@grpc/grpc-js";
import { LeaseServiceClient, type NodeLease } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterEach, describe, expect, it } from "vitest";
import { LeaseWatch, sharedLeaseWatch } from "./preemption-watch.js";
import { lease, startFakeCoordinator, status, type FakeCoordinator } from "./test-harness.js";

const servers: FakeCoordinator[] = [];
const clients: LeaseServiceClient[] = [];

async function setUp(script: Parameters<typeof startFakeCoordinator>[0] = {}): Promise<{ s: FakeCoordinator; client: LeaseServiceClient }> {
  const s = await startFakeCoordinator(script);
  servers.push(s);
  const client = new LeaseServiceClient(s.address, grpc.credentials.createInsecure());
  clients.push(client);
  return { s, client };
}

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await Promise.all(servers.splice(0).map((s) => s.stop()));
});

describe("LeaseWatch", () => {
  it("opens with its first listener, hands each node's leases to that node's listeners, and closes with its last", async () => {
    const { s, client } = await setUp();
    const seen: string[] = [];
    const w = new LeaseWatch(client, "", 50);
    const offA = w.add("a", (l) => void seen.push(`a:${l.holder}`));
    const offB = w.add("b", (l) => void seen.push(`b:${l.holder}`));
    await waitFor(() => s.watches.length === 1, { what: "the stream" });
    expect(s.watches[0]!.request.node).toBe("");
    s.push(lease("a", "h1"));
    s.push(lease("c", "h3"));
    s.push(lease("b", "h2"));
    await waitFor(() => seen.length === 2, { what: "two leases" });
    expect(seen).toEqual(["a:h1", "b:h2"]);
    offA();
    expect(s.watches[0]!.cancelled).toBe(false);
    offB();
    await waitFor(() => s.watches[0]!.cancelled, { what: "the stream cancelled" });
    expect(s.watches).toHaveLength(1);
  });

  it("opens a broken stream again after reopenMs, so a mark made meanwhile is still seen", async () => {
    let n = 0;
    const { s, client } = await setUp({ watch: (call) => void (++n === 1 && call.end()) });
    const seen: NodeLease[] = [];
    const off = new LeaseWatch(client, "w1", 50).add("w1", (l) => void seen.push(l));
    await waitFor(() => s.watches.length === 2 && !s.watches[1]!.cancelled, { what: "the stream reopened" });
    expect(s.watches[1]!.request.node).toBe("w1");
    s.push(lease("w1", "mcd/w1", { preemptedBy: "admin (Drain)" }));
    await waitFor(() => seen.length === 1, { what: "the mark" });
    off();
  });

  it("stops on a refusal retrying cannot fix (PERMISSION_DENIED), leaving the renew path", async () => {
    const { s, client } = await setUp({ watch: (call) => call.emit("error", status(grpc.status.PERMISSION_DENIED, "no watch right")) });
    let ended = false;
    new LeaseWatch(client, "w1", 20, () => (ended = true)).add("w1", () => undefined);
    await waitFor(() => ended, { what: "the watch given up" });
    // Several reopen periods later, still one attempt.
    await new Promise((r) => setTimeout(r, 200));
    expect(s.watches).toHaveLength(1);
  });

  it("ends, rather than throwing from a timer, when its stream breaks after the client was closed", async () => {
    // CoordinatorNodeLeaser.close() closes the client while a preempted hold waits for its owner's safe point.
    const { s, client } = await setUp();
    let ended = false;
    new LeaseWatch(client, "", 20, () => (ended = true)).add("a", () => undefined);
    await waitFor(() => s.watches.length === 1, { what: "the stream" });
    client.close();
    await s.stop();
    await waitFor(() => ended, { what: "the watch ended" });
  });
});

describe("sharedLeaseWatch", () => {
  it("is one stream per client for every listener, and a new one once the last has gone", async () => {
    const { s, client } = await setUp();
    const w = sharedLeaseWatch(client, 50);
    expect(sharedLeaseWatch(client, 50) === w).toBe(true);
    const off1 = w.add("a", () => undefined);
    const off2 = sharedLeaseWatch(client, 50).add("b", () => undefined);
    await waitFor(() => s.watches.length === 1, { what: "the stream" });
    off1();
    off2();
    await waitFor(() => s.watches[0]!.cancelled, { what: "the stream cancelled" });
    expect(sharedLeaseWatch(client, 50) === w).toBe(false);
  });

  it("a watch that gave up, when its listeners leave later, does not unshare the watch that replaced it", async () => {
    let n = 0;
    const { s, client } = await setUp({ watch: (call) => void (++n === 1 && call.emit("error", status(grpc.status.PERMISSION_DENIED, "not yet"))) });
    const first = sharedLeaseWatch(client, 20);
    const offOld = first.add("a", () => undefined);
    await waitFor(() => sharedLeaseWatch(client, 20) !== first, { what: "the first watch given up" });
    const second = sharedLeaseWatch(client, 20);
    const offNew = second.add("b", () => undefined);
    await waitFor(() => s.watches.length === 2, { what: "the second stream" });
    offOld(); // the holder of the first watch releases
    expect(sharedLeaseWatch(client, 20) === second).toBe(true);
    const offThird = sharedLeaseWatch(client, 20).add("c", () => undefined);
    expect(s.watches).toHaveLength(2);
    offNew();
    offThird();
  });
});
