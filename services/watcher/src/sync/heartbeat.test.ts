import { decode, Heartbeat, HEARTBEAT_KEY } from "@lockstep/contracts";
import { silentLogger } from "@lockstep/runtime";
import { getEventListeners } from "node:events";
import { describe, expect, it, vi } from "vitest";
import { HeartbeatWriter, mayVouch, nextBeatIn, viewCurrentAsOf } from "./heartbeat.js";

describe("viewCurrentAsOf", () => {
  it.each([
    { case: "the oldest informer decides", times: [5_000, 3_000, 9_000], want: 3_000 },
    { case: "an informer never current: nothing to vouch for", times: [5_000, undefined], want: undefined },
    { case: "no informers", times: [], want: undefined },
  ])("$case", ({ times, want }) => {
    expect(viewCurrentAsOf(times)).toBe(want);
  });
});

describe("mayVouch", () => {
  it.each([
    { case: "watching now", asOf: 10_000, now: 10_000, ok: true },
    { case: "a watch re-opening within the interval", asOf: 6_000, now: 10_000, ok: true },
    { case: "a watch down longer than the interval", asOf: 4_999, now: 10_000, ok: false },
    { case: "never current", asOf: undefined, now: 10_000, ok: false },
  ])("$case: $ok", ({ asOf, now, ok }) => {
    expect(mayVouch(asOf, now, 5_000)).toBe(ok);
  });
});

describe("nextBeatIn", () => {
  it.each([
    { case: "written: one interval", result: "written", everWritten: true, recovering: false, want: 3_000 },
    { case: "failed: again soon", result: "failed", everWritten: true, recovering: false, want: 500 },
    { case: "withheld before the first write: look again soon", result: "withheld", everWritten: false, recovering: false, want: 100 },
    { case: "withheld later (an outage): one interval", result: "withheld", everWritten: true, recovering: false, want: 3_000 },
    { case: "written while recovering from an outage: every second", result: "written", everWritten: true, recovering: true, want: 1_000 },
  ] as const)("$case", ({ result, everWritten, recovering, want }) => {
    expect(nextBeatIn(result, { intervalMs: 3_000, everWritten, recovering })).toBe(want);
  });

  it("never waits longer than the interval", () => {
    expect(nextBeatIn("written", { intervalMs: 200, everWritten: true, recovering: true })).toBe(200);
    expect(nextBeatIn("failed", { intervalMs: 200, everWritten: true, recovering: false })).toBe(200);
  });
});

describe("HeartbeatWriter", () => {
  function setup(o: { asOf: () => number | undefined; flushed?: () => Promise<void>; intervalMs?: number }) {
    const puts: Array<{ key: string; value: Heartbeat }> = [];
    let now = 100_000;
    const w = new HeartbeatWriter({
      kv: { put: async (key: string, bytes: Uint8Array) => (puts.push({ key, value: decode(Heartbeat, "lockstep.state.v1.Heartbeat", bytes as Uint8Array) }), puts.length) } as never,
      identity: "w1",
      intervalMs: o.intervalMs ?? 5_000,
      currentAsOf: () => o.asOf(),
      flushed: o.flushed ?? (async () => {}),
      logger: silentLogger(),
      clock: () => now,
    });
    return { w, puts, advance: (ms: number) => (now += ms) };
  }

  it("writes generation, time, writer and current-as-of while the watches are current", async () => {
    const { w, puts, advance } = setup({ asOf: () => 99_000 });
    expect(await w.beat()).toBe("written");
    advance(5_000);
    expect(await w.beat()).toBe("withheld"); // 99 s is now 6 s behind
    expect(puts).toHaveLength(1);
    expect(puts[0]!.key).toBe(HEARTBEAT_KEY);
    expect(puts[0]!.value).toMatchObject({ generation: "1", writer: "w1", time: new Date(100_000), currentAsOf: new Date(99_000), startedAt: new Date(100_000) });
  });

  it("withholds while an informer was never current, and while earlier writes do not land", async () => {
    expect(await setup({ asOf: () => undefined }).w.beat()).toBe("withheld");
    // The drain wait is one interval (20 ms here).
    const stuck = setup({ asOf: () => 100_000, flushed: () => new Promise(() => {}), intervalMs: 20 });
    expect(await stuck.w.beat()).toBe("withheld");
    expect(stuck.puts).toHaveLength(0);
  });

  it("after writes failed, beats every second for two intervals, then every interval again", async () => {
    vi.useFakeTimers();
    try {
      const tries: Array<{ at: number; ok: boolean }> = [];
      const start = Date.now();
      const failing = new Set([2, 3, 4]); // the 2nd to 4th writes: a stream leader's election
      const w = new HeartbeatWriter({
        kv: { put: async () => {
          const ok = !failing.has(tries.length + 1);
          tries.push({ at: Date.now() - start, ok });
          if (!ok) throw new Error("no stream leader");
          return tries.length;
        } } as never,
        identity: "w1",
        intervalMs: 5_000,
        currentAsOf: () => Date.now(),
        flushed: async () => {},
        logger: silentLogger(),
      });
      const stop = new AbortController();
      const running = w.start(stop.signal);
      await vi.advanceTimersByTimeAsync(22_000);
      stop.abort();
      await vi.advanceTimersByTimeAsync(0);
      await running;
      const recovery = [6_500, 7_500, 8_500, 9_500, 10_500, 11_500, 12_500, 13_500, 14_500, 15_500, 16_500];
      expect(tries).toEqual([
        { at: 0, ok: true },
        { at: 5_000, ok: false },
        { at: 5_500, ok: false },
        { at: 6_000, ok: false },
        ...recovery.map((at) => ({ at, ok: true })),
        { at: 21_500, ok: true },
      ]);
    } finally {
      vi.useRealTimers();
    }
  });

  it("leaves no listener on the signal per beat (a long-running watcher beats every few seconds for months)", async () => {
    const { w, puts } = setup({ asOf: () => 100_000, intervalMs: 2 });
    const stop = new AbortController();
    const running = w.start(stop.signal);
    while (puts.length < 40) await new Promise((r) => setTimeout(r, 5));
    expect(getEventListeners(stop.signal, "abort").length).toBeLessThanOrEqual(1);
    stop.abort();
    await running;
  });
});
