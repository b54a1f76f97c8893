// The shared wait queue against a real nats-server: replicas on their own connections see one line
// in one order (the bucket's), a dead replica's waiters stop counting after the alive bound, the
// caller itself keeps its place and another replica takes its entry over, and a delete is a CAS; a
// stopped replica leaves no watch consumer on the server.
import { closeBus, connectBus, ensureLeaseQueueBucket } from "@lockstep/bus";
import { LEASE_QUEUE_BUCKET, leaseQueueKey, LeaseWaiter } from "@lockstep/contracts";
import { silentLogger } from "@lockstep/runtime";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SharedQueue } from "./shared-queue.js";

const REFRESH_MS = 200;
let nats: NatsServer;
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  nats = await startNatsServer();
});

afterAll(async () => {
  for (const close of closers.reverse()) await close();
  await nats?.stop();
});

async function replica(name: string, onChange?: () => void): Promise<{ queue: SharedQueue; kv: Awaited<ReturnType<typeof ensureLeaseQueueBucket>>; close(): Promise<void> }> {
  const nc = await connectBus({ servers: nats.url, name });
  const kv = await ensureLeaseQueueBucket(nc);
  const queue = new SharedQueue({ kv, replica: name, logger: silentLogger(), refreshMs: REFRESH_MS, onChange });
  await queue.start();
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    queue.stop();
    await closeBus(nc);
  };
  closers.push(close);
  return { queue, kv, close };
}

const waiter = (holder: string, node: string, waitMs = 60_000) => ({ holder, node, operation: "Update" as const, scopes: ["pool.worker"], expiresMs: Date.now() + waitMs });
const line = (q: SharedQueue, candidate?: { holder: string; node: string }) =>
  q.queueFor(candidate ? { ...candidate, expiresMs: Date.now() + 60_000 } : undefined, Date.now()).map((w) => `${w.holder}@${w.node}`);

describe("shared wait queue", () => {
  it("one line in bucket order on every replica; a dead replica's waiter stops counting but keeps its place for itself, and is taken over", async () => {
    const a = await replica("a");
    const b = await replica("b");
    await b.queue.register(waiter("w1", "n1"));
    const created = await b.kv.get(leaseQueueKey("n1", "w1"));
    const firstRevision = Number(LeaseWaiter.decode(created!.value).firstRevision) || created!.revision;
    await waitFor(() => line(a.queue).length === 1, { what: "w1 seen by a" });
    await a.queue.register(waiter("w2", "n1"));
    await waitFor(() => line(b.queue).length === 2, { what: "w2 seen by b" });
    expect(line(a.queue)).toEqual(["w1@n1", "w2@n1"]);
    expect(line(b.queue)).toEqual(["w1@n1", "w2@n1"]);
    // Same place, same reported time on both replicas: the server's.
    expect(a.queue.queueFor(undefined, Date.now()).map((w) => w.enqueuedMs)).toEqual(b.queue.queueFor(undefined, Date.now()).map((w) => w.enqueuedMs));
    // Refreshed by its replica, w1 outlives several alive bounds.
    await new Promise((r) => setTimeout(r, 4 * 3 * REFRESH_MS));
    expect(line(a.queue)).toEqual(["w1@n1", "w2@n1"]);
    expect(a.queue.size()).toBe(2);

    // b dies without deleting anything: w1 stops counting for others after 3 refreshes...
    await b.close();
    await waitFor(() => line(a.queue).length === 1, { timeoutMs: 5_000, what: "w1 no longer counted" });
    expect(line(a.queue)).toEqual(["w2@n1"]);
    // ...but is still first for itself, and a's registration takes its entry over in that place.
    expect(line(a.queue, { holder: "w1", node: "n1" })).toEqual(["w1@n1", "w2@n1"]);
    await a.queue.register(waiter("w1", "n1"));
    const after = await a.kv.get(leaseQueueKey("n1", "w1"));
    const value = LeaseWaiter.decode(after!.value);
    expect(value.replica).toBe("a");
    expect(Number(value.firstRevision)).toBe(firstRevision);
    expect(line(a.queue)).toEqual(["w1@n1", "w2@n1"]);
    // A replica started now reads the same line, before it serves.
    const c = await replica("c");
    expect(line(c.queue)).toEqual(["w1@n1", "w2@n1"]);

    // Answered: entries go, on every replica.
    await a.queue.unregister("w1", "n1");
    await a.queue.unregister("w2", "n1");
    await waitFor(() => line(c.queue).length === 0, { what: "entries deleted" });
    expect(await a.kv.get(leaseQueueKey("n1", "w1"))).toMatchObject({ operation: "DEL" });
  });

  it("wakes waiting calls on a new waiter or a deleted one, not on every refresh", async () => {
    let wakes = 0;
    const a = await replica("a4");
    const b = await replica("b4", () => wakes++);
    await a.queue.register(waiter("w7", "n5"));
    await waitFor(() => line(b.queue).length === 1, { what: "w7 seen by b" });
    const afterNew = wakes;
    expect(afterNew).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 5 * REFRESH_MS)); // about five refreshes of w7 reach b
    expect(line(b.queue)).toEqual(["w7@n5"]);
    expect(wakes).toBe(afterNew);
    await a.queue.unregister("w7", "n5");
    await waitFor(() => line(b.queue).length === 0, { what: "w7 gone on b" });
    expect(wakes).toBe(afterNew + 1);
  });

  it("one caller with two calls waiting on one replica (a retry while the old call runs): the first to end leaves the entry to the other", async () => {
    const a = await replica("a5");
    const [old, retried] = [{}, {}];
    await a.queue.register(waiter("w8", "n6"), old);
    await a.queue.register(waiter("w8", "n6"), retried);
    await a.queue.unregister("w8", "n6", true, old);
    expect((await a.kv.get(leaseQueueKey("n6", "w8")))?.operation).toBe("PUT");
    await new Promise((r) => setTimeout(r, 4 * 3 * REFRESH_MS)); // still refreshed for the retried call
    expect(line(a.queue)).toEqual(["w8@n6"]);
    await a.queue.unregister("w8", "n6", false, retried);
    expect((await a.kv.get(leaseQueueKey("n6", "w8")))?.operation).toBe("DEL");
  });

  it("a replica's late delete does not remove an entry another replica took over", async () => {
    const a = await replica("a2");
    const b = await replica("b2");
    await a.queue.register(waiter("w3", "n2"));
    await waitFor(() => line(b.queue).length === 1, { what: "w3 seen by b" });
    // The caller reconnected to b while a's call had not ended yet; then a's call ends.
    await b.queue.register(waiter("w3", "n2"));
    await a.queue.unregister("w3", "n2");
    const entry = await b.kv.get(leaseQueueKey("n2", "w3"));
    expect(entry?.operation).toBe("PUT");
    expect(LeaseWaiter.decode(entry!.value).replica).toBe("b2");
    await b.queue.unregister("w3", "n2");
    expect((await b.kv.get(leaseQueueKey("n2", "w3")))?.operation).toBe("DEL");
  });

  it("a replica handing over (stopping) leaves the entries of cut calls for their callers, still deletes answered ones, and an answer elsewhere removes the entry left", async () => {
    const a = await replica("a3");
    await a.queue.register(waiter("w4", "n3"));
    await a.queue.register(waiter("w5", "n3"));
    a.queue.handOver();
    await a.queue.unregister("w4", "n3", true);
    await a.queue.unregister("w5", "n3", false);
    expect((await a.kv.get(leaseQueueKey("n3", "w4")))?.operation).toBe("PUT");
    expect((await a.kv.get(leaseQueueKey("n3", "w5")))?.operation).toBe("DEL");
    // No longer refreshed by a: it stops counting after the alive bound, for everyone but w4.
    await waitFor(() => line(a.queue).length === 0, { timeoutMs: 5_000, what: "w4 no longer counted" });
    expect(line(a.queue, { holder: "w4", node: "n3" })).toEqual(["w4@n3"]);
    // w4 asks another replica, which answers at once without serving it in line: its entry goes.
    const b = await replica("b3");
    expect(line(b.queue, { holder: "w4", node: "n3" })).toEqual(["w4@n3"]);
    await b.queue.unregister("w4", "n3");
    expect((await a.kv.get(leaseQueueKey("n3", "w4")))?.operation).toBe("DEL");
  });

  it("deletes its watch's consumer when stopped (nats.js would leave it on the server for 5 minutes)", async () => {
    const r = await replica("short-lived");
    // The bucket's own JetStream manager (a public member of @nats-io/kv's bucket).
    const { jsm } = r.kv as unknown as { jsm: { consumers: { list(stream: string): AsyncIterable<unknown> } } };
    const consumers = async () => {
      let n = 0;
      for await (const _ of jsm.consumers.list(`KV_${LEASE_QUEUE_BUCKET}`)) n++;
      return n;
    };
    const before = await consumers();
    expect(before).toBeGreaterThan(0);
    r.queue.stop();
    await waitFor(async () => (await consumers()) === before - 1, { what: "the stopped replica's consumer deleted" });
    await r.close();
  });
});
