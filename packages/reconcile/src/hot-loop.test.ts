import { describe, expect, it } from "vitest";
import { HotLoopError, isTerminalError } from "./errors.js";
import { HotLoopGuard, writeFingerprint } from "./hot-loop.js";

describe("HotLoopGuard", () => {
  it("refuses the third identical write in a row and reports it", () => {
    const reported: HotLoopError[] = [];
    const g = new HotLoopGuard({ onHotLoop: (e) => reported.push(e) });
    expect(g.check("ms/a", "v1")).toBe(true);
    expect(g.check("ms/a", "v1")).toBe(true);
    expect(g.check("ms/a", "v1")).toBe(false);
    expect(g.check("ms/a", "v1")).toBe(false);
    expect(reported.map((e) => e.attempts)).toEqual([3, 4]);
    expect(reported[0]!.key).toBe("ms/a");
    expect(reported[0]!.message).toContain("ms/a");
    expect(isTerminalError(reported[0])).toBe(true);
  });

  it("resets the count on a different write, per key", () => {
    const g = new HotLoopGuard();
    g.check("a", "v1");
    g.check("a", "v1");
    g.check("b", "v1"); // another key does not interfere
    expect(g.check("a", "v2")).toBe(true);
    expect(g.count("a")).toBe(1);
    expect(g.check("a", "v2")).toBe(true);
    expect(g.check("a", "v2")).toBe(false);
  });

  it("forgets a key on reset and honours a custom threshold", () => {
    const g = new HotLoopGuard({ threshold: 2 });
    g.check("a", "v1");
    g.reset("a");
    expect(g.check("a", "v1")).toBe(true);
    expect(() => g.assert("a", "v1")).toThrow(HotLoopError);
    expect(() => new HotLoopGuard({ threshold: 1 })).toThrow(RangeError);
  });
});

describe("writeFingerprint", () => {
  it("ignores object key order but not values", () => {
    expect(writeFingerprint({ a: 1, b: { c: [1, 2], d: 2n } })).toBe(writeFingerprint({ b: { d: 2n, c: [1, 2] }, a: 1 }));
    expect(writeFingerprint({ a: 1 })).not.toBe(writeFingerprint({ a: 2 }));
    expect(writeFingerprint([1, 2])).not.toBe(writeFingerprint([2, 1]));
  });
});
