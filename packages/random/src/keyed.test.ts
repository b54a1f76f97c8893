import { describe, expect, it } from "vitest";
import { keyedRandom, stableHex } from "./keyed.js";

describe("keyedRandom", () => {
  it("depends on (seed, key) only, not on the order of calls", () => {
    const first = keyedRandom(7, "node-a");
    keyedRandom(7, "node-b");
    expect(keyedRandom(7, "node-a")).toBe(first);
    expect(first).toBe(0.40712414565496147);
    expect(keyedRandom(8, "node-a")).not.toBe(first);
    expect(keyedRandom(7, "node-b")).not.toBe(first);
  });

  it("draws in [0, 1)", () => {
    for (let i = 0; i < 1000; i++) {
      const x = keyedRandom(i, `k${i}`);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThan(1);
    }
  });
});

describe("stableHex", () => {
  it("is a prefix of the SHA-256 of the parts joined by NUL, of the asked length", () => {
    expect(stableHex(8, "a", 1)).toBe("05a9c569");
    expect(stableHex(12, "a", 1)).toHaveLength(12);
    expect(stableHex(8, "a", 1)).not.toBe(stableHex(8, "a1"));
  });
});
