// The liveness check's own logic, on a stand-in for kv.watch's iterator (the real one, on a real
// three-server cluster, is in cluster.test.ts "finds each dead watch and resumes it").
import { describe, expect, it } from "vitest";
import { endWatchWhenConsumerGone, mayHaveLostConsumers, type ConnectionStatus, type StatusSource } from "./watch-liveness.js";

function watchWith(info: () => Promise<unknown>) {
  const w = { stopped: false, asked: 0, _data: { info: () => (w.asked++, info()) }, stop: () => void (w.stopped = true) };
  return w;
}
const until = async (cond: () => boolean) => {
  const end = Date.now() + 5_000;
  while (!cond()) {
    if (Date.now() > end) throw new Error("condition not met within 5 s");
    await new Promise((r) => setTimeout(r, 5));
  }
};

/** A connection's status events, told by the test; `stopped` once the checker lets go of them. */
function statusEvents() {
  const waiting: Array<(r: IteratorResult<ConnectionStatus>) => void> = [];
  const queued: ConnectionStatus[] = [];
  const src = {
    stopped: false,
    tell(s: ConnectionStatus) {
      const w = waiting.shift();
      if (w) w({ value: s, done: false });
      else queued.push(s);
    },
    status() {
      return {
        [Symbol.asyncIterator]: () => ({
          next: () => (src.stopped ? Promise.resolve({ value: undefined, done: true as const }) : queued.length > 0 ? Promise.resolve({ value: queued.shift()!, done: false }) : new Promise<IteratorResult<ConnectionStatus>>((r) => waiting.push(r))),
        }),
        stop() {
          src.stopped = true;
          for (const w of waiting.splice(0)) w({ value: undefined, done: true });
        },
      };
    },
  };
  return src satisfies StatusSource;
}

describe("mayHaveLostConsumers", () => {
  it("is true for a reconnect and any cluster update (a connection given every URL hears of a death as one deleting nothing), false otherwise", () => {
    expect(mayHaveLostConsumers({ type: "reconnect" })).toBe(true);
    expect(mayHaveLostConsumers({ type: "update", deleted: ["127.0.0.1:4223"] } as ConnectionStatus)).toBe(true);
    expect(mayHaveLostConsumers({ type: "update", added: [], deleted: [] } as ConnectionStatus)).toBe(true);
    expect(mayHaveLostConsumers({ type: "disconnect" })).toBe(false);
    expect(mayHaveLostConsumers({ type: "pingTimer" })).toBe(false);
  });
});

describe("endWatchWhenConsumerGone", () => {
  it("asks at once when a server leaves the cluster, long before the interval, and ends a watch whose consumer went with it", async () => {
    let alive = true;
    const w = watchWith(() => (alive ? Promise.resolve({}) : Promise.reject(new Error("consumer not found"))));
    const events = statusEvents();
    const gone: string[] = [];
    endWatchWhenConsumerGone(w as never, { intervalMs: 3_600_000, connection: events, onGone: (r) => gone.push(r) });
    events.tell({ type: "disconnect" });
    events.tell({ type: "update", added: [], deleted: [] } as ConnectionStatus);
    await until(() => w.asked === 1);
    expect(w.stopped).toBe(false); // its consumer was elsewhere
    alive = false;
    events.tell({ type: "reconnect" });
    await until(() => w.stopped);
    expect(gone).toEqual(["consumer not found"]);
    expect(w.asked).toBe(2);
    expect(events.stopped).toBe(true); // no longer listening
  });

  it("stops listening to the connection when told to stop checking", async () => {
    const w = watchWith(() => Promise.resolve({}));
    const events = statusEvents();
    const stop = endWatchWhenConsumerGone(w as never, { intervalMs: 3_600_000, connection: events });
    stop();
    expect(events.stopped).toBe(true);
    events.tell({ type: "reconnect" });
    await new Promise((r) => setTimeout(r, 20));
    expect(w.asked).toBe(0);
  });

  it("ends the watch when its consumer is not found", async () => {
    const w = watchWith(() => Promise.reject(new Error("consumer not found")));
    const gone: string[] = [];
    endWatchWhenConsumerGone(w as never, { intervalMs: 10, onGone: (r) => gone.push(r) });
    await until(() => w.stopped);
    expect(gone).toEqual(["consumer not found"]);
  });

  it("ends the watch when nobody answers within answerWithinMs (a dead server's consumer), not after the request timeout", async () => {
    const w = watchWith(() => new Promise(() => {}));
    const gone: string[] = [];
    endWatchWhenConsumerGone(w as never, { intervalMs: 10, answerWithinMs: 50, onGone: (r) => gone.push(r) });
    await until(() => w.stopped);
    expect(gone).toEqual(["no answer about the watch's consumer within 50 ms"]);
    expect(w.asked).toBe(1); // one question at a time
  });

  it("keeps a watch whose consumer answers, until told to stop checking", async () => {
    const w = watchWith(() => Promise.resolve({}));
    const stop = endWatchWhenConsumerGone(w as never, { intervalMs: 10, answerWithinMs: 50 });
    await until(() => w.asked >= 3);
    stop();
    const asked = w.asked;
    await new Promise((r) => setTimeout(r, 60));
    expect(w.stopped).toBe(false);
    expect(w.asked).toBeLessThanOrEqual(asked + 1);
  });
});
