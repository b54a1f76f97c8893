// The liveness check's own logic, on a stand-in for kv.watch's iterator (the real one, on a real
// three-server cluster, is in cluster.test.ts "finds each dead watch and resumes it").
import { describe, expect, it } from "vitest";
import { endWatchWhenConsumerGone } from "./watch-liveness.js";

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

describe("endWatchWhenConsumerGone", () => {
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
