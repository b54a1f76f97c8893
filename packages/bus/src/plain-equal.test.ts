import { isDeepStrictEqual } from "node:util";
import { describe, expect, it } from "vitest";
import { plainEqual } from "./plain-equal.js";

describe("plainEqual", () => {
  it.each<[string, unknown, unknown, boolean]>([
    ["equal strings", "a", "a", true],
    ["different strings", "a", "b", false],
    ["NaN and NaN", NaN, NaN, true],
    ["0 and -0 (as isDeepStrictEqual)", 0, -0, false],
    ["a number and its string", 1, "1", false],
    ["undefined and null", undefined, null, false],
    ["null and an object", null, {}, false],
    ["equal nested objects", { a: 1, b: { c: ["x", { d: true }] } }, { b: { c: ["x", { d: true }] }, a: 1 }, true],
    ["a nested difference", { a: 1, b: { c: ["x", { d: true }] } }, { a: 1, b: { c: ["x", { d: false }] } }, false],
    ["a key set to undefined and a missing key", { a: undefined }, {}, false],
    ["same key count, different keys", { a: undefined }, { b: undefined }, false],
    ["arrays of different length", [1, 2], [1, 2, 3], false],
    ["an array and an object with its indices", [1], { 0: 1 }, false],
    ["a hole and undefined", [, 1], [undefined, 1], false],
    ["equal Dates", new Date(5), new Date(5), true],
    ["different Dates", new Date(5), new Date(6), false],
    ["a Date and its time", new Date(5), 5, false],
    ["null-prototype objects", Object.assign(Object.create(null), { a: 1 }), Object.assign(Object.create(null), { a: 1 }), true],
    ["a null-prototype and a plain object", Object.assign(Object.create(null), { a: 1 }), { a: 1 }, false],
    ["two equal Maps (not plain data: different)", new Map([["a", 1]]), new Map([["a", 1]]), false],
    ["two equal Uint8Arrays (not plain data: different)", new Uint8Array([1]), new Uint8Array([1]), false],
  ])("%s", (_name, a, b, expected) => {
    expect(plainEqual(a, b)).toBe(expected);
    expect(plainEqual(b, a)).toBe(expected);
  });

  it("a value that is not plain data still equals itself", () => {
    const m = new Map();
    expect(plainEqual(m, m)).toBe(true);
    expect(plainEqual({ m }, { m })).toBe(true);
  });

  it("agrees with util.isDeepStrictEqual on random plain data and on random near-copies of it", () => {
    let seed = 7;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const leaves = [0, 1, -0, NaN, "", "a", "b", true, false, null, undefined];
    const gen = (depth: number): unknown => {
      const r = rnd(depth > 3 ? 3 : 7);
      if (r < 3) return leaves[rnd(leaves.length)];
      if (r === 3) return new Date(rnd(3));
      if (r === 4) return Array.from({ length: rnd(4) }, () => gen(depth + 1));
      const o: Record<string, unknown> = {};
      for (let i = rnd(4); i > 0; i--) o["k" + rnd(4)] = gen(depth + 1);
      return o;
    };
    // A copy with at most one change somewhere, so that equal pairs are common.
    const mutate = (v: unknown): unknown => {
      if (rnd(4) === 0) return gen(2);
      if (Array.isArray(v)) return v.map((x) => (rnd(3) === 0 ? mutate(x) : x));
      if (v instanceof Date) return new Date(v.getTime());
      if (v !== null && typeof v === "object") {
        const o: Record<string, unknown> = {};
        const entries = Object.entries(v);
        for (const [k, x] of rnd(2) ? entries : entries.reverse()) o[k] = rnd(3) === 0 ? mutate(x) : structuredClone(x);
        if (rnd(8) === 0) delete o[Object.keys(o)[0] ?? ""];
        return o;
      }
      return v;
    };
    let equal = 0;
    for (let i = 0; i < 5_000; i++) {
      const a = gen(0);
      const b = rnd(2) ? mutate(a) : gen(0);
      const expected = isDeepStrictEqual(a, b);
      if (expected) equal++;
      expect(plainEqual(a, b), JSON.stringify([a, b])).toBe(expected);
    }
    expect(equal).toBeGreaterThan(500); // the walk does exercise equal pairs
  });
});
