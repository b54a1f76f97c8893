import { NodeInsight, StateFreshness, UpdateStatus, type WatchUpdateStatusResponse } from "@lockstep/contracts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { SnapshotCause } from "./snapshot.js";
import { WatchFanOut, type WatchSnapshot } from "./watch-fan-out.js";

/** A snapshot stand-in: node insights carry the snapshot's tag, so a test sees which one a message came from. */
function snap(o: { changed?: string[]; removed?: string[]; cause?: SnapshotCause; tag?: string; evaluable?: boolean; freshness?: StateFreshness }): WatchSnapshot {
  const evaluable = o.evaluable ?? true;
  return {
    cause: o.cause ?? "flush",
    changed: o.changed ?? [],
    removed: o.removed ?? [],
    status: evaluable ? UpdateStatus.fromPartial({ revision: o.tag ?? "" }) : undefined,
    freshness: o.freshness,
    nodeInsight: (n) => NodeInsight.fromPartial({ name: n, message: o.tag ?? "" }),
    statusWithNodes: () => {
      if (!evaluable) throw new Error("no ClusterVersion");
      return UpdateStatus.fromPartial({ revision: o.tag ?? "", nodes: [NodeInsight.fromPartial({ name: "a" })] });
    },
  };
}

describe("WatchFanOut", () => {
  beforeEach(() => void vi.useFakeTimers({ now: 1_000_000 }));
  afterEach(() => void vi.useRealTimers());

  it("sends the full status first, then merges the snapshots within the interval into one message from the latest", () => {
    const fan = new WatchFanOut(100);
    fan.publish(snap({ tag: "0" }));
    const got: WatchUpdateStatusResponse[] = [];
    const stop = fan.watch(false, (m) => got.push(m));
    expect(got[0]?.status?.nodes.map((n) => n.name)).toEqual(["a"]);
    fan.publish(snap({ changed: ["a"], tag: "1" })); // first change: sent at once
    fan.publish(snap({ changed: ["b"], tag: "2" }));
    fan.publish(snap({ removed: ["b"], tag: "3" })); // b removed after it changed: only the removal goes out
    fan.publish(snap({ changed: ["c"], tag: "4" }));
    expect(got).toHaveLength(2);
    expect(got[1]).toMatchObject({ changedNodes: [{ name: "a", message: "1" }], status: { revision: "1" } });
    vi.advanceTimersByTime(100);
    expect(got).toHaveLength(3);
    expect(got[2]).toMatchObject({ changedNodes: [{ name: "c", message: "4" }], removedNodes: ["b"], status: { revision: "4" } });
    expect(got[2]?.status?.nodes).toEqual([]);
    stop();
    expect(fan.count).toBe(0);
  });

  it("sends the node changes without a status while the status cannot be evaluated", () => {
    const fan = new WatchFanOut(0);
    fan.publish(snap({ evaluable: false }));
    const got: WatchUpdateStatusResponse[] = [];
    fan.watch(false, (m) => got.push(m));
    fan.publish(snap({ changed: ["a"], evaluable: false }));
    expect(got).toEqual([
      { status: undefined, changedNodes: [], removedNodes: [], freshness: undefined },
      { status: undefined, changedNodes: [NodeInsight.fromPartial({ name: "a" })], removedNodes: [], freshness: undefined },
    ]);
  });

  it("carries the snapshot's freshness in every message, and sends a flip between fresh and stale at once, alone", () => {
    const freshness = (stale: boolean) => StateFreshness.fromPartial({ ageSeconds: stale ? 20 : 1, stale, maxAgeSeconds: 15, heard: true });
    const fan = new WatchFanOut(100);
    fan.publish(snap({ freshness: freshness(false) }));
    const got: WatchUpdateStatusResponse[] = [];
    fan.watch(true, (m) => got.push(m));
    expect(got[0]?.freshness).toMatchObject({ stale: false, ageSeconds: 1 });
    fan.publish(snap({ changed: ["a"], freshness: freshness(false) }));
    expect(got[1]).toMatchObject({ changedNodes: [{ name: "a" }], freshness: { stale: false } });
    fan.publish(snap({ cause: "freshness", freshness: freshness(true) })); // not held back by the interval
    expect(got).toHaveLength(3);
    expect(got[2]).toEqual({ status: undefined, changedNodes: [], removedNodes: [], freshness: freshness(true) });
    vi.advanceTimersByTime(100);
    fan.publish(snap({ cause: "tick", freshness: freshness(true) })); // time alone: not sent
    expect(got).toHaveLength(3);
    fan.publish(snap({ cause: "refresh", freshness: freshness(true) }));
    expect(got[3]).toMatchObject({ status: {}, freshness: { stale: true, ageSeconds: 20 } });
  });
});
