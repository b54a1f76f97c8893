import { describe, expect, it } from "vitest";
import { ReviewCache } from "./review-cache.js";

describe("ReviewCache", () => {
  it("answers until the ttl is over, then forgets", () => {
    let now = 1_000;
    const c = new ReviewCache<string>({ ttlMs: 10_000, clock: () => now });
    c.set("a", "alice");
    now += 9_999;
    expect(c.get("a")).toBe("alice");
    now += 1;
    expect(c.get("a")).toBeUndefined();
    expect(c.size).toBe(0);
  });

  it("keeps at most maxEntries, dropping the oldest", () => {
    const c = new ReviewCache<number>({ ttlMs: 60_000, maxEntries: 2, clock: () => 0 });
    c.set("a", 1);
    c.set("b", 2);
    c.set("a", 3); // refreshed: now the newest
    c.set("c", 4);
    expect([c.get("a"), c.get("b"), c.get("c")]).toEqual([3, undefined, 4]);
  });

  it("caches nothing with a zero ttl", () => {
    const c = new ReviewCache<number>({ ttlMs: 0 });
    c.set("a", 1);
    expect(c.get("a")).toBeUndefined();
  });
});
