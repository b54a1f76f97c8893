// One fair line across coordinator replicas, over real parts (kube-sim over HTTP, one nats-server,
// two coordinators each behind its own gRPC server): a waiter is served before a later waiter
// whichever replica each of them called, and keeps its place when its replica goes away and it
// reconnects to another.
import { closeBus, connectBus, ensureLeaseQueueBucket } from "@lockstep/bus";
import { leaseQueueKey, LeaseWaiter } from "@lockstep/contracts";
import { acquireLease, type LeaseHandle } from "@lockstep/lease-client";
import { waitFor } from "@lockstep/testing";
import { afterEach, describe, expect, it } from "vitest";
import { acquire, call, holdersInApi, startWorld, type World } from "../test-harness.js";

let world: World | undefined;

afterEach(async () => {
  await world?.stop();
  world = undefined;
});

/** A call's outcome once it settles, and the order calls settled in. */
function track<T>(name: string, p: Promise<T>, order: string[]): { settled: () => boolean; result: Promise<T> } {
  let done = false;
  const result = p.finally(() => {
    done = true;
    order.push(name);
  });
  return { settled: () => done, result };
}

/** Which replica serves the waiter's entry in the shared queue (read from the bucket itself). */
async function servedBy(w: World, holder: string, node: string): Promise<string> {
  const nc = await connectBus({ servers: w.nats.url });
  try {
    const e = await (await ensureLeaseQueueBucket(nc)).get(leaseQueueKey(node, holder));
    return e?.operation === "PUT" ? LeaseWaiter.decode(e.value).replica : "";
  } finally {
    await closeBus(nc);
  }
}

const inLine = (w: World, replica: number, holders: string[]) => () => {
  const q = w.replicas[replica]!.coordinator.queue.map((x) => x.holder);
  return holders.every((h) => q.includes(h)) && q.join(",") === holders.join(",");
};

describe("one wait queue across replicas", () => {
  it("W1 waits on replica B, then W2 on replica A: on release W1 is granted first, W2 after W1 releases", async () => {
    const w = (world = await startWorld({ nodes: ["n1"], replicas: 2 }));
    const [a, b] = w.replicas as [World["replicas"][0], World["replicas"][0]];
    expect((await acquire(a.client, { node: "n1", holder: "holder" })).granted).toBe(true);
    const order: string[] = [];
    const w1 = track("w1", acquire(b.client, { node: "n1", holder: "w1", waitSeconds: 30 }), order);
    await waitFor(inLine(w, 0, ["w1"]), { what: "w1 in line on replica A" });
    const w2 = track("w2", acquire(a.client, { node: "n1", holder: "w2", waitSeconds: 30 }), order);
    await waitFor(inLine(w, 1, ["w1", "w2"]), { what: "w1 then w2 in line on replica B" });
    expect(inLine(w, 0, ["w1", "w2"])()).toBe(true);

    // Released through A, whose own waiter hears of it first.
    expect((await call<object, { released: boolean }>(a.client, "release", { node: "n1", holder: "holder" })).released).toBe(true);
    const first = await w1.result;
    expect(first.granted).toBe(true);
    expect((await holdersInApi(w)).get("n1")).toBe("w1");
    expect(w2.settled()).toBe(false);
    expect((await call<object, { released: boolean }>(b.client, "release", { node: "n1", holder: "w1" })).released).toBe(true);
    const second = await w2.result;
    expect(second.granted).toBe(true);
    expect(order).toEqual(["w1", "w2"]);
    expect((await holdersInApi(w)).get("n1")).toBe("w2");
    // Answered waiters leave the line on both replicas.
    await waitFor(() => w.replicas.every((r) => r.coordinator.queue.length === 0), { what: "line empty" });
  });

  it("W1 waits on replica B; B dies; W1's lease-client reconnects to A and is still granted before W2, who queued on A after W1", async () => {
    const w = (world = await startWorld({ nodes: ["n2"], replicas: 2 }));
    const [a, b] = w.replicas as [World["replicas"][0], World["replicas"][0]];
    expect((await acquire(a.client, { node: "n2", holder: "holder" })).granted).toBe(true);
    const order: string[] = [];
    // One target naming both replicas, B first (a Service in front of them): pick_first uses B
    // while it is up and A once it is gone.
    const w1 = track(
      "w1",
      acquireLease({ address: `ipv4:${b.address},${a.address}`, node: "n2", operation: "Update", holder: "w1", reason: "w1 works on n2", durationSeconds: 60, waitSeconds: 30 }),
      order,
    );
    await waitFor(inLine(w, 0, ["w1"]), { what: "w1 (on B) in line on replica A" });
    expect(await servedBy(w, "w1", "n2")).toBe("replica-1");
    const w2 = track("w2", acquire(a.client, { node: "n2", holder: "w2", waitSeconds: 30 }), order);
    await waitFor(inLine(w, 0, ["w1", "w2"]), { what: "w1 then w2 in line on replica A" });

    // B dies: its NATS connection closes, then its gRPC connections drop (nothing of B deletes
    // w1's entry, and nobody refreshes it until W1's client has asked A).
    await b.crash();
    // W1's client retried on A, which took its entry over, keeping its place.
    await waitFor(async () => (await servedBy(w, "w1", "n2")) === "replica-0", {
      what: "w1's entry served by A",
      explain: () => `queue on A: ${a.coordinator.queue.map((x) => x.holder).join(",")}; w1 settled: ${w1.settled()}`,
    });
    expect(inLine(w, 0, ["w1", "w2"])()).toBe(true);
    expect(w1.settled()).toBe(false);
    // Long past the alive bound of a dead replica's entry (3 x 2 s): w1 still counts, A refreshes it.
    await new Promise((r) => setTimeout(r, 7_000));
    expect(a.coordinator.queue.map((x) => x.holder)).toEqual(["w1", "w2"]);

    expect((await call<object, { released: boolean }>(a.client, "release", { node: "n2", holder: "holder" })).released).toBe(true);
    const handle: LeaseHandle = await w1.result;
    expect(handle.lease.holder).toBe("w1");
    expect((await holdersInApi(w)).get("n2")).toBe("w1");
    expect(w2.settled()).toBe(false);
    await handle.release();
    expect((await w2.result).granted).toBe(true);
    expect(order).toEqual(["w1", "w2"]);
  }, 60_000);
});
