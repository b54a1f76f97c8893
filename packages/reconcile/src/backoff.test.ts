import { describe, expect, it } from "vitest";
import { ExponentialBackoff } from "./backoff.js";
import { ManualClock } from "./clock.js";
import { TokenBucket } from "./token-bucket.js";

describe("ExponentialBackoff", () => {
  it("doubles from the base per key and caps", () => {
    const b = new ExponentialBackoff({ baseMs: 5, maxMs: 30_000 });
    const seq = Array.from({ length: 15 }, () => b.next("a"));
    expect(seq.slice(0, 5)).toEqual([5, 10, 20, 40, 80]);
    expect(seq.at(-1)).toBe(30_000);
    expect(b.next("other")).toBe(5);
    b.forget("a");
    expect(b.next("a")).toBe(5);
    for (let i = 0; i < 2000; i++) b.next("huge");
    expect(b.next("huge")).toBe(30_000);
  });
});

describe("TokenBucket", () => {
  it("allows a burst, then one token per 1/qps, refilling with time", () => {
    const clock = new ManualClock();
    const t = new TokenBucket(clock, { qps: 2, burst: 3 });
    expect([t.reserve(), t.reserve(), t.reserve(), t.reserve(), t.reserve()]).toEqual([0, 0, 0, 500, 1000]);
    clock.advance(10_000);
    expect([t.reserve(), t.reserve(), t.reserve(), t.reserve()]).toEqual([0, 0, 0, 500]);
  });
});
