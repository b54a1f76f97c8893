import { describe, expect, it } from "vitest";
import { ManualClock } from "./clock.js";
import { TerminalError } from "./errors.js";
import { WorkQueue, type ReconcileResult } from "./queue.js";

/** A promise with its resolve function outside, to hold a reconcile in flight. */
function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Lets pending promise callbacks run. */
const flush = () => new Promise<void>((r) => setImmediate(r));

describe("WorkQueue", () => {
  it("never processes one key concurrently with itself, while other keys run in parallel", async () => {
    const running = new Map<string, number>();
    let maxSameKey = 0;
    const gates: Array<{ key: string; resolve: () => void }> = [];
    const calls: string[] = [];
    const q = new WorkQueue(
      async (key) => {
        calls.push(key);
        const n = (running.get(key) ?? 0) + 1;
        running.set(key, n);
        maxSameKey = Math.max(maxSameKey, n);
        const d = deferred();
        gates.push({ key, resolve: d.resolve });
        await d.promise;
        running.set(key, (running.get(key) ?? 1) - 1);
      },
      { concurrency: 4, clock: new ManualClock() },
    );
    q.start();
    q.add("a");
    q.add("b");
    q.add("a"); // a is in flight: marks it for one more run
    q.add("a");
    expect(calls).toEqual(["a", "b"]);
    expect(q.metrics.inFlight).toBe(2);

    // Finish the first "a": its second run starts, still alone.
    gates.shift()!.resolve();
    await flush();
    expect(calls).toEqual(["a", "b", "a"]);
    while (gates.length > 0) {
      gates.shift()!.resolve();
      await flush();
    }
    await q.idle();
    expect(maxSameKey).toBe(1);
    expect(calls.filter((k) => k === "a")).toHaveLength(2);
  });

  it("coalesces a key added several times while queued", async () => {
    const calls: string[] = [];
    const q = new WorkQueue((key) => void calls.push(key), { clock: new ManualClock() });
    q.add("a");
    q.add("b");
    q.add("a");
    q.add("a");
    expect(q.metrics.depth).toBe(2);
    q.start();
    await q.idle();
    expect(calls).toEqual(["a", "b"]);
    expect(q.metrics).toMatchObject({ adds: 4, coalesced: 2, processed: 2, depth: 0, inFlight: 0 });
  });

  it("processes a key re-added while in flight exactly once more", async () => {
    const gate = deferred();
    let calls = 0;
    const q = new WorkQueue(
      async () => {
        calls++;
        if (calls === 1) await gate.promise;
      },
      { clock: new ManualClock() },
    );
    q.start();
    q.add("a");
    expect(calls).toBe(1);
    q.add("a");
    q.add("a");
    q.add("a");
    expect(q.metrics.depth).toBe(0); // not queued while in flight
    gate.resolve();
    await q.idle();
    expect(calls).toBe(2);
  });

  it("retries failures with exponential backoff 5, 10, 20, ... up to the cap", async () => {
    const clock = new ManualClock();
    const delays: number[] = [];
    let calls = 0;
    const q = new WorkQueue(
      () => {
        calls++;
        throw new Error("boom");
      },
      { clock, backoff: { maxMs: 100 }, onError: (_k, _e, _n, retryIn) => delays.push(retryIn) },
    );
    q.start();
    q.add("a");
    await q.idle();
    for (let i = 0; i < 7; i++) {
      const delay = delays.at(-1)!;
      const before = calls;
      clock.advance(delay - 1);
      await q.idle();
      expect(calls).toBe(before); // not retried early
      clock.advance(1);
      await q.idle();
      expect(calls).toBe(before + 1);
    }
    expect(delays).toEqual([5, 10, 20, 40, 80, 100, 100, 100]);
    expect(q.failures("a")).toBe(8);
    expect(q.metrics.retries).toBe(8);
  });

  it("paces retries of many keys with the overall token bucket", async () => {
    const delays: Record<string, number> = {};
    const q = new WorkQueue(
      () => {
        throw new Error("boom");
      },
      {
        clock: new ManualClock(),
        concurrency: 5,
        rateLimit: { qps: 1, burst: 2 },
        onError: (key, _e, _n, retryIn) => (delays[key] = retryIn),
      },
    );
    q.start();
    for (const k of ["k1", "k2", "k3", "k4", "k5"]) q.add(k);
    await q.idle();
    // Two tokens in the bucket; then one per second, so the per-key 5 ms backoff is outweighed.
    expect(Object.values(delays)).toEqual([5, 5, 1000, 2000, 3000]);
  });

  it("requeues after the requested delay without counting a failure, and resets backoff", async () => {
    const clock = new ManualClock();
    const script: Array<() => ReconcileResult> = [
      () => {
        throw new Error("1");
      },
      () => {
        throw new Error("2");
      },
      () => ({ requeueAfter: 1000 }),
      () => {
        throw new Error("3");
      },
    ];
    const delays: number[] = [];
    let calls = 0;
    const q = new WorkQueue(() => script[calls++]!(), {
      clock,
      onError: (_k, _e, _n, retryIn) => delays.push(retryIn),
    });
    q.start();
    q.add("a");
    await q.idle();
    clock.advance(5);
    await q.idle();
    expect(q.failures("a")).toBe(2);
    clock.advance(10);
    await q.idle();
    expect(calls).toBe(3);
    expect(q.failures("a")).toBe(0);
    expect(q.metrics.delayed).toBe(1);
    clock.advance(999);
    await q.idle();
    expect(calls).toBe(3);
    clock.advance(1);
    await q.idle();
    expect(calls).toBe(4);
    expect(delays).toEqual([5, 10, 5]); // the failure after requeue-after starts from the base again
  });

  it("does not retry terminal errors, including wrapped ones", async () => {
    const clock = new ManualClock();
    const terminal: Array<[string, unknown]> = [];
    let calls = 0;
    const q = new WorkQueue(
      (key) => {
        calls++;
        if (key === "wrapped") throw new Error("outer", { cause: new TerminalError("inner") });
        throw new TerminalError("bad spec");
      },
      { clock, onTerminalError: (key, err) => terminal.push([key, err]) },
    );
    q.start();
    q.add("a");
    q.add("wrapped");
    await q.idle();
    clock.advance(24 * 3600_000);
    await q.idle();
    expect(calls).toBe(2);
    expect(terminal.map(([k]) => k)).toEqual(["a", "wrapped"]);
    expect(q.metrics).toMatchObject({ terminal: 2, retries: 0, delayed: 0 });
    // A fresh add processes it again.
    q.add("a");
    await q.idle();
    expect(calls).toBe(3);
  });

  it("parks a key after maxFailures failures in a row and tries it again later with fresh backoff", async () => {
    const clock = new ManualClock();
    const events: string[] = [];
    let calls = 0;
    const q = new WorkQueue(
      () => {
        calls++;
        throw new Error("down");
      },
      {
        clock,
        maxFailures: 3,
        parkMs: 60_000,
        onError: (_k, _e, n, retryIn) => events.push(`retry#${n}:${retryIn}`),
        onRetriesExhausted: (_k, _e, n, retryIn) => events.push(`parked#${n}:${retryIn}`),
      },
    );
    q.start();
    q.add("a");
    await q.idle();
    clock.advance(5);
    await q.idle();
    clock.advance(10);
    await q.idle();
    expect(events).toEqual(["retry#1:5", "retry#2:10", "parked#3:60000"]);
    expect(q.metrics.parked).toBe(1);
    clock.advance(59_999);
    await q.idle();
    expect(calls).toBe(3);
    clock.advance(1);
    await q.idle();
    expect(calls).toBe(4);
    expect(events.at(-1)).toBe("retry#1:5");
  });

  it("keeps the earliest of two delayed adds for one key", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const q = new WorkQueue(() => void calls++, { clock });
    q.start();
    q.addAfter("a", 500);
    q.addAfter("a", 100);
    q.addAfter("a", 900);
    expect(q.metrics.delayed).toBe(1);
    clock.advance(100);
    await q.idle();
    expect(calls).toBe(1);
    clock.advance(10_000);
    await q.idle();
    expect(calls).toBe(1);
  });

  it("stop aborts the reconcile signal, waits for in-flight work and drops the rest", async () => {
    const clock = new ManualClock();
    const gate = deferred();
    const seen: string[] = [];
    let aborted = false;
    const q = new WorkQueue(
      async (key, signal) => {
        seen.push(key);
        signal.addEventListener("abort", () => (aborted = true));
        await gate.promise;
      },
      { clock },
    );
    const ctl = new AbortController();
    const running = q.run(ctl.signal);
    q.add("a");
    q.add("b");
    q.addAfter("c", 10);
    let finished = false;
    void running.then(() => (finished = true));
    ctl.abort();
    await flush();
    expect(aborted).toBe(true);
    expect(finished).toBe(false); // "a" still in flight
    gate.resolve();
    await running;
    clock.advance(100);
    q.add("d");
    await q.idle();
    expect(seen).toEqual(["a"]);
    expect(clock.pending).toBe(0);
  });

  it("survives throwing hooks", async () => {
    const clock = new ManualClock();
    let calls = 0;
    const q = new WorkQueue(
      () => {
        calls++;
        throw new Error("x");
      },
      {
        clock,
        onError: () => {
          throw new Error("hook");
        },
      },
    );
    q.start();
    q.add("a");
    await q.idle();
    clock.advance(5);
    await q.idle();
    expect(calls).toBe(2);
  });

  it("works with the system clock", async () => {
    let calls = 0;
    const q = new WorkQueue(async () => {
      calls++;
      return calls === 1 ? { requeueAfter: 1 } : undefined;
    });
    q.start();
    q.add("a");
    await q.idle();
    await new Promise((r) => setTimeout(r, 20));
    await q.idle();
    expect(calls).toBe(2);
    await q.stop();
  });
});
