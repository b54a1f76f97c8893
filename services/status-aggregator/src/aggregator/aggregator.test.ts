import type { StateChange } from "@lockstep/bus";
import { NodeState, PoolState, stateKey, type StateKindName } from "@lockstep/contracts";
import { silentLogger } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { Aggregator } from "./aggregator.js";
import type { StatusSnapshot } from "./snapshot.js";

let revision = 0;
function put(kind: StateKindName, name: string, value: unknown): StateChange {
  return { key: stateKey(kind, name), parsed: { kind, name }, op: "put", value, revision: ++revision } as StateChange;
}

const pool = PoolState.fromPartial({ name: "worker", nodeSelector: { matchLabels: { "node-role.kubernetes.io/worker": "" } }, nodeSelectorPresent: true, targetConfig: "rendered-worker-b" });
const node = (name: string, state: "Done" | "Working", heartbeat = 0) =>
  NodeState.fromPartial({
    name,
    labels: { "node-role.kubernetes.io/worker": "", heartbeat: String(heartbeat) },
    mco: { currentConfig: "rendered-worker-a", desiredConfig: state === "Done" ? "rendered-worker-a" : "rendered-worker-b", desiredConfigPresent: true, state },
  });

/** Synced on a pool of two nodes; debounce never fires by itself (flush() stands in for it). */
function synced(): Aggregator {
  const agg = new Aggregator({ logger: silentLogger(), debounceMs: 1_000_000 });
  for (const c of [put("pool", "worker", pool), put("node", "n1", node("n1", "Done")), put("node", "n2", node("n2", "Done"))]) agg.apply(c);
  agg.markSynced();
  return agg;
}

describe("Aggregator snapshots", () => {
  it("has none before the initial sync, then one per flush that changed a row; reads never recompute", () => {
    const agg = new Aggregator({ logger: silentLogger(), debounceMs: 1_000_000 });
    expect(agg.current()).toBeUndefined();
    agg.stop();

    const a = synced();
    const first = a.current()!;
    const firstRow = first.row("n1");
    const firstFields = first.fieldChunks.flat();
    expect(first.names).toEqual(["n1", "n2"]);
    const seen: StatusSnapshot[] = [];
    a.subscribe((s) => seen.push(s));

    a.apply(put("node", "n1", node("n1", "Working")));
    // Pending, not flushed: every reader still gets the same snapshot.
    expect(a.current()).toBe(first);
    expect(seen).toEqual([]);

    a.flush();
    const second = a.current()!;
    expect(second).not.toBe(first);
    expect(seen).toEqual([second]);
    expect(second.changed).toEqual(["n1"]);
    expect(second.row("n1")).not.toBe(first.row("n1"));
    expect(second.row("n1")!.record).not.toEqual(first.row("n1")!.record);
    expect(second.fieldChunks.flat()[1]).toEqual(firstFields[1]); // n2 unchanged
    expect(first.row("n1")).toBe(firstRow); // the older snapshot is untouched
    a.stop();
  });

  it("makes no snapshot when a change re-evaluates to the same row (sameRecord)", () => {
    const a = synced();
    const before = a.current();
    a.apply(put("node", "n2", node("n2", "Done", 1))); // a label nobody reads
    a.flush();
    expect(a.current()).toBe(before);
    a.stop();
  });

  it("makes a snapshot for time alone on tick(), sharing every row", () => {
    const a = synced();
    const before = a.current()!;
    a.tick();
    const after = a.current()!;
    expect(after).not.toBe(before);
    expect(after).toMatchObject({ cause: "tick", changed: [], removed: [] });
    expect(after.rows).toBe(before.rows);
    expect(after.fields).toBe(before.fields);
    a.stop();
  });

  it.each(["tick", "refresh"] as const)("reports a change still waiting for its flush as a change when %s() comes first", (verb) => {
    // The evaluation behind a tick or refresh flushes the view: a change taken in there unreported
    // never reached a watcher (seen as probes lost in the system bench, about one in thirty).
    const a = synced();
    const messages: string[][] = [];
    a.watch(true, (m) => messages.push(m.changedNodes.map((n) => n.name)));
    const seen: StatusSnapshot[] = [];
    a.subscribe((s) => seen.push(s));
    a.apply(put("node", "n1", node("n1", "Working")));
    a[verb]();
    expect(seen.map((s) => s.changed)).toContainEqual(["n1"]);
    expect(a.current()!.row("n1")!.record).toEqual(seen.find((s) => s.changed.includes("n1"))!.row("n1")!.record);
    expect(messages.flat()).toContain("n1");
    a.stop();
  });

  it("never answers fresh from a view that turned stale before the periodic check noticed", () => {
    const a = synced();
    let fresh = true;
    a.attachFreshness(() => ({ fresh, ageSeconds: fresh ? 1 : 20, maxAgeSeconds: 15, heard: true }));
    a.refresh();
    expect(a.current()!.freshness).toMatchObject({ stale: false });
    fresh = false; // freshnessChanged() not called yet
    expect(a.current()!.freshness).toMatchObject({ stale: true, ageSeconds: 20 });
    expect(a.current()).toBe(a.current()); // and no new snapshot while nothing changes
    a.stop();
  });

  it("makes a snapshot at once when the view turns stale, sharing everything else", () => {
    const a = synced();
    let fresh = true;
    a.attachFreshness(() => ({ fresh, ageSeconds: fresh ? 1 : 20, maxAgeSeconds: 15, heard: true }));
    a.refresh();
    const before = a.current()!;
    expect(before.freshness).toMatchObject({ stale: false });
    const seen: StatusSnapshot[] = [];
    a.subscribe((s) => seen.push(s));
    fresh = false;
    a.freshnessChanged();
    expect(seen).toHaveLength(1);
    expect(seen[0]).toBe(a.current());
    expect(seen[0]).toMatchObject({ cause: "freshness", freshness: { stale: true, ageSeconds: 20 } });
    expect(seen[0]!.fields).toBe(before.fields);
    a.stop();
  });
});
