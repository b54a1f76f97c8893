import { NodeInsight, StateFreshness, UpdateStatus, type WatchUpdateStatusResponse } from "@lockstep/contracts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { WatchFanOut } from "./watch-fan-out.js";

const row = (name: string) => ({ record: { name } });

describe("WatchFanOut", () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  it("sends the full status first, then merges changes within the interval into one message", () => {
    let statuses = 0;
    const fan = new WatchFanOut(
      {
        nodeInsight: (n) => NodeInsight.fromPartial({ name: n }),
        status: (omitNodes) => (statuses++, UpdateStatus.fromPartial({ nodes: omitNodes ? [] : [NodeInsight.fromPartial({ name: "a" })] })),
        freshness: () => undefined,
      },
      100,
    );
    const got: WatchUpdateStatusResponse[] = [];
    const stop = fan.watch(false, (m) => got.push(m));
    expect(got[0]?.status?.nodes.map((n) => n.name)).toEqual(["a"]);
    fan.changed([row("a")], []); // first change: sent at once
    fan.changed([row("b")], []);
    fan.changed([], ["b"]); // b removed after it changed: only the removal goes out
    fan.changed([row("c")], []);
    expect(got).toHaveLength(2);
    vi.advanceTimersByTime(100);
    expect(got).toHaveLength(3);
    expect(got[2]).toMatchObject({ changedNodes: [{ name: "c" }], removedNodes: ["b"] });
    expect(got[2]?.status?.nodes).toEqual([]);
    expect(statuses).toBe(3);
    stop();
    expect(fan.count).toBe(0);
  });

  it("sends the node changes without a status while the status cannot be evaluated", () => {
    const fan = new WatchFanOut(
      {
        nodeInsight: (n) => NodeInsight.fromPartial({ name: n }),
        status: () => {
          throw new Error("no ClusterVersion");
        },
        freshness: () => undefined,
      },
      0,
    );
    const got: WatchUpdateStatusResponse[] = [];
    fan.watch(true, (m) => got.push(m));
    fan.changed([row("a")], []);
    expect(got).toEqual([
      { status: undefined, changedNodes: [], removedNodes: [] },
      { status: undefined, changedNodes: [NodeInsight.fromPartial({ name: "a" })], removedNodes: [] },
    ]);
  });

  it("carries the view's freshness in every message, and sends a flip between fresh and stale at once, alone", () => {
    let stale = false;
    const freshness = () => StateFreshness.fromPartial({ ageSeconds: stale ? 20 : 1, stale, maxAgeSeconds: 15, heard: true });
    const fan = new WatchFanOut({ nodeInsight: (n) => NodeInsight.fromPartial({ name: n }), status: () => UpdateStatus.fromPartial({}), freshness }, 100);
    const got: WatchUpdateStatusResponse[] = [];
    fan.watch(true, (m) => got.push(m));
    expect(got[0]?.freshness).toMatchObject({ stale: false, ageSeconds: 1 });
    fan.changed([row("a")], []);
    expect(got[1]).toMatchObject({ changedNodes: [{ name: "a" }], freshness: { stale: false } });
    stale = true;
    fan.freshnessChanged(); // not held back by the interval: nothing else may come for a long time
    expect(got).toHaveLength(3);
    expect(got[2]).toEqual({ status: undefined, changedNodes: [], removedNodes: [], freshness: freshness() });
    vi.advanceTimersByTime(100);
    fan.changed([], []);
    expect(got[3]).toMatchObject({ status: {}, freshness: { stale: true, ageSeconds: 20 } });
  });
});
