import { describe, expect, it } from "vitest";
import { dequeue, enqueue, pruneQueue, waitersAhead, type Waiter } from "./queue.js";

const w = (holder: string, node: string, enqueuedMs: number, scopes = ["pool.worker"], expiresMs = 1e12): Waiter => ({ holder, node, operation: "Update", scopes, enqueuedMs, expiresMs });

describe("wait queue", () => {
  it("keeps arrival order and a waiter's place when it polls again", () => {
    let q = enqueue([], w("a", "n1", 1));
    q = enqueue(q, w("b", "n2", 2));
    q = enqueue(q, w("a", "n1", 5, ["pool.worker"], 2e12));
    expect(q.map((x) => [x.holder, x.enqueuedMs])).toEqual([["a", 1], ["b", 2]]);
    expect(waitersAhead(q, { holder: "b", node: "n2", scopes: ["pool.worker"] }, 0, () => false).map((x) => x.holder)).toEqual(["a"]);
  });
  it("a newcomer waits behind everyone competing with it", () => {
    const q = [w("a", "n1", 1), w("b", "n2", 2, ["pool.infra"])];
    expect(waitersAhead(q, { holder: "c", node: "n3", scopes: ["pool.worker"] }, 0, () => false).map((x) => x.holder)).toEqual(["a"]);
    expect(waitersAhead(q, { holder: "c", node: "n2", scopes: [] }, 0, () => false).map((x) => x.holder)).toEqual(["b"]);
  });
  it("a waiter whose node is held elsewhere does not reserve budget, and expired waiters drop out", () => {
    const q = [w("a", "n1", 1), w("b", "n2", 2, ["pool.worker"], 10)];
    expect(waitersAhead(q, { holder: "c", node: "n3", scopes: ["pool.worker"] }, 20, (x) => x.node === "n1")).toEqual([]);
    expect(pruneQueue(q, 20).map((x) => x.holder)).toEqual(["a"]);
    expect(dequeue(q, "a", "n1").map((x) => x.holder)).toEqual(["b"]);
  });
});
