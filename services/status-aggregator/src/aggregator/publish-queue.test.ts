import { describe, expect, it } from "vitest";
import { PublishQueue } from "./publish-queue.js";

/** A send function whose publishes stay in flight until the test settles them. */
function controlledSend() {
  const calls: Array<{ item: number; resolve: () => void; reject: (e: Error) => void }> = [];
  const send = (item: number) => new Promise<void>((resolve, reject) => calls.push({ item, resolve, reject }));
  return { calls, send };
}

const tick = () => new Promise((r) => setImmediate(r));

describe("PublishQueue", () => {
  it("keeps at most maxInFlight publishes in flight and sends the rest in order as acks arrive", async () => {
    const { calls, send } = controlledSend();
    const settled: number[] = [];
    const q = new PublishQueue<number>({ send, maxInFlight: 3, onSettled: (item, ok) => ok && settled.push(item) });
    for (let i = 0; i < 10; i++) q.push(i);
    expect(calls.map((c) => c.item)).toEqual([0, 1, 2]);
    expect(q.inFlight).toBe(3);
    expect(q.queued).toBe(7);

    calls[1]!.resolve();
    await tick();
    expect(calls.map((c) => c.item)).toEqual([0, 1, 2, 3]);
    for (let k = 0; k < 20 && q.pending > 0; k++) {
      for (const c of calls) c.resolve();
      await tick();
    }
    await q.idle();
    expect(calls.map((c) => c.item)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(settled.sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(q.pending).toBe(0);
  });

  it("push returns before the publish is acknowledged", () => {
    const { calls, send } = controlledSend();
    const q = new PublishQueue<number>({ send, maxInFlight: 1 });
    q.push(1);
    q.push(2);
    expect(calls).toHaveLength(1);
    expect(q.pending).toBe(2);
  });

  it("retries a failed publish until it is acknowledged", async () => {
    let attempts = 0;
    const retries: number[] = [];
    const results: Array<[number, boolean, number | undefined]> = [];
    const q = new PublishQueue<number>({
      send: async () => {
        if (++attempts < 3) throw new Error("no responders");
      },
      backoffMs: 0,
      onRetry: (_item, _err, attempt) => retries.push(attempt),
      onSettled: (item, ok, _err, n) => results.push([item, ok, n]),
    });
    q.push(7);
    await q.idle();
    expect(retries).toEqual([1, 2]);
    expect(results).toEqual([[7, true, 3]]);
  });

  it("gives an item up after maxAttempts and reports the last error", async () => {
    const errors: unknown[] = [];
    const q = new PublishQueue<string>({
      send: async (item) => {
        if (item === "bad") throw new Error("stream unavailable");
      },
      maxAttempts: 2,
      backoffMs: 0,
      onSettled: (item, ok, err) => !ok && errors.push([item, (err as Error).message]),
    });
    q.push("bad");
    q.push("good");
    await q.idle();
    expect(errors).toEqual([["bad", "stream unavailable"]]);
  });

  it("treats a send that throws synchronously like a rejected publish", async () => {
    let n = 0;
    const q = new PublishQueue<number>({
      send: (() => {
        if (n++ === 0) throw new Error("sync");
        return Promise.resolve();
      }) as (i: number) => Promise<void>,
      backoffMs: 0,
    });
    q.push(1);
    await q.idle();
    expect(n).toBe(2);
  });

  it("stop drops what is queued and waiting for a retry", async () => {
    const { calls, send } = controlledSend();
    const q = new PublishQueue<number>({ send, maxInFlight: 1 });
    q.push(1);
    q.push(2);
    q.stop();
    q.push(3);
    calls[0]!.resolve();
    await q.idle();
    expect(calls.map((c) => c.item)).toEqual([1]);
  });
});
