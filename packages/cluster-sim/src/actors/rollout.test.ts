import { describe, expect, it } from "vitest";
import { DROPPED_REQUEUE_MS, MAX_RETRIES, passTargets, requeueAfter, setDesiredError } from "./rollout.js";

describe("passTargets", () => {
  const sorted = ["a", "b", "c", "d", "e"];

  it("takes the first `capacity` candidates in sorted order when there are more candidates than room", () => {
    expect(passTargets(sorted, 2, 1, "worker/0")).toEqual(["a", "b"]);
    expect(passTargets(sorted, 4, 1, "worker/7")).toEqual(["a", "b", "c", "d"]);
  });

  it("with room for all, tries every candidate in an order that changes from pass to pass", () => {
    const orders = new Set<string>();
    for (let pass = 0; pass < 20; pass++) {
      const t = passTargets(sorted, 5, 1, `worker/${pass}`);
      expect([...t].sort()).toEqual(sorted);
      orders.add(t.join(""));
    }
    expect(orders.size).toBeGreaterThan(5);
    // Seeded: the same pass gives the same order.
    expect(passTargets(sorted, 9, 3, "worker/4")).toEqual(passTargets(sorted, 9, 3, "worker/4"));
    // So a node first in one pass is not first in every pass (the refused one does not block the rest forever).
    const firsts = new Set(Array.from({ length: 20 }, (_, p) => passTargets(sorted, 5, 1, `worker/${p}`)[0]));
    expect(firsts.size).toBeGreaterThan(1);
  });

  it("tries nothing without capacity or candidates", () => {
    expect(passTargets(sorted, 0, 1, "p")).toEqual([]);
    expect(passTargets([], 3, 1, "p")).toEqual([]);
  });
});

describe("requeueAfter", () => {
  it("backs off 5 ms · 2^n for 15 tries, then drops the key and adds it again after a minute", () => {
    const delays: number[] = [];
    let n = 0;
    for (let i = 0; i < MAX_RETRIES + 2; i++) {
      const r = requeueAfter(n);
      delays.push(r.delayMs);
      n = r.requeues;
    }
    expect(delays.slice(0, 4)).toEqual([5, 10, 20, 40]);
    expect(delays[MAX_RETRIES - 1]).toBe(81_920);
    expect(delays[MAX_RETRIES]).toBe(DROPPED_REQUEUE_MS);
    expect(delays[MAX_RETRIES + 1]).toBe(5);
  });
});

it("setDesiredError names the config and the node, as the controller's sync error does", () => {
  expect(setDesiredError("rendered-worker-1", "n1", "denied")).toBe("setting desired rendered-worker-1 for node n1: denied");
});
