// The recorder's pure core: folding repeats into a series, the flush interval, the rate limits.
import { describe, expect, it } from "vitest";
import { clampNote, EventFold, eventName, MAX_NOTE_BYTES, TokenBucket, type EventNote } from "./event-fold.js";

const node = (name: string) => ({ apiVersion: "v1", kind: "Node", name });
const refused = (n = "worker-0", holder = "admin"): EventNote => ({
  regarding: node(n),
  type: "Warning",
  reason: "UpdateRefused",
  action: "Refuse",
  note: `update of node ${n} refused: held by ${holder}`,
});

describe("EventFold", () => {
  it("creates once, folds 199 repeats into one series patched at most once per flush interval", () => {
    const f = new EventFold(0, { seriesFlushMs: 10_000 });
    const first = f.observe(refused(), 0);
    expect(first).toMatchObject({ op: "create", namespace: "default", note: { reason: "UpdateRefused" } });
    for (let i = 1; i < 200; i++) expect(f.observe(refused(), i * 10)).toBeUndefined();
    expect(f.due(5_000)).toEqual([]); // not yet: the flush interval has not passed
    expect(f.due(10_000)).toEqual([{ op: "patch", key: first!.key, namespace: "default", name: first!.name, series: { count: 200, lastObservedMs: 1_990 } }]);
    expect(f.due(30_000)).toEqual([]); // nothing new, nothing written
    f.observe(refused(), 30_001);
    expect(f.due(30_002)).toMatchObject([{ op: "patch", series: { count: 201 } }]);
    expect(f.stats).toEqual({ observed: 201, creates: 1, patches: 2, dropped: 0 });
  });

  it("keeps different notes, objects and reasons apart", () => {
    const f = new EventFold(0);
    const writes = [refused("a"), refused("b"), refused("a", "fencing"), { ...refused("a"), reason: "LeaseGranted", type: "Normal" as const }].map((n) => f.observe(n, 0));
    expect(writes.map((w) => w?.op)).toEqual(["create", "create", "create", "create"]);
    expect(new Set(writes.map((w) => w!.name)).size).toBe(4);
  });

  it("puts Events about namespaced objects in their namespace", () => {
    const f = new EventFold(0);
    const w = f.observe({ ...refused(), regarding: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", name: "ms", namespace: "openshift-machine-api" } }, 0);
    expect(w?.namespace).toBe("openshift-machine-api");
  });

  it("starts a new Event after the series expired", () => {
    const f = new EventFold(0, { seriesExpiryMs: 60_000 });
    const a = f.observe(refused(), 0);
    expect(f.observe(refused(), 60_001)).toMatchObject({ op: "create" });
    expect(f.observe(refused(), 60_002)).toBeUndefined();
    expect(a?.op).toBe("create");
  });

  it("limits creates per object (client-go's spam filter) and drops what is over", () => {
    const f = new EventFold(0, { perObject: { burst: 3, perSecond: 1 / 300 }, overall: { burst: 100, perSecond: 100 } });
    const ops = Array.from({ length: 5 }, (_, i) => f.observe({ ...refused(), note: `n${i}` }, 0)?.op);
    expect(ops).toEqual(["create", "create", "create", undefined, undefined]);
    expect(f.observe({ ...refused("other"), note: "x" }, 0)?.op).toBe("create"); // another object has its own bucket
    expect(f.observe({ ...refused(), note: "later" }, 300_000)?.op).toBe("create"); // one token back after 300 s
    expect(f.stats.dropped).toBe(2);
  });

  it("limits writes in all, and a growing series waits for a token instead of being lost", () => {
    const f = new EventFold(0, { perObject: { burst: 100, perSecond: 100 }, overall: { burst: 2, perSecond: 1 }, seriesFlushMs: 0 });
    expect(f.observe(refused("a"), 0)?.op).toBe("create");
    expect(f.observe(refused("b"), 0)?.op).toBe("create");
    expect(f.observe(refused("c"), 0)).toBeUndefined();
    f.observe(refused("a"), 1);
    expect(f.due(1)).toEqual([]); // no token yet
    expect(f.due(1_000)).toMatchObject([{ op: "patch", series: { count: 2 } }]);
  });

  it("forgets the least recently seen series beyond maxTracked; a forgotten one is created anew", () => {
    const f = new EventFold(0, { maxTracked: 2, perObject: { burst: 100, perSecond: 1 } });
    f.observe(refused("a"), 0);
    f.observe(refused("b"), 0);
    f.observe(refused("c"), 0);
    expect(f.size).toBe(2);
    expect(f.observe(refused("a"), 1)?.op).toBe("create");
    expect(f.observe(refused("c"), 1)).toBeUndefined();
  });

  it("after forget (Event gone), the next observation creates a new Event", () => {
    const f = new EventFold(0);
    const w = f.observe(refused(), 0)!;
    f.forget(w.key);
    expect(f.observe(refused(), 1)?.op).toBe("create");
  });
});

describe("helpers", () => {
  it("clampNote keeps notes within 1 KiB of UTF-8", () => {
    expect(clampNote("short")).toBe("short");
    const long = clampNote("é".repeat(2000));
    expect(Buffer.byteLength(long)).toBeLessThanOrEqual(MAX_NOTE_BYTES);
    expect(long.endsWith("...")).toBe(true);
  });

  it("eventName is client-go's <name>.<hex nanoseconds>, distinct within one millisecond", () => {
    expect(eventName("worker-0", 1_000, 0)).toBe(`worker-0.${(1_000n * 1_000_000n).toString(16)}`);
    expect(eventName("w", 5, 1)).not.toBe(eventName("w", 5, 2));
  });

  it("TokenBucket refills at its rate up to its burst", () => {
    const b = new TokenBucket({ burst: 2, perSecond: 1 }, 0);
    expect([b.take(0), b.take(0), b.take(0)]).toEqual([true, true, false]);
    expect(b.take(999)).toBe(false);
    expect(b.take(1_000)).toBe(true);
    expect(b.full(10_000)).toBe(true);
  });
});
