import { describe, expect, it } from "vitest";
import { changesDecisions, sharedWaitQueue, type SharedWaiter } from "./shared-queue.js";
import { decide } from "./decide.js";
import { node, pool, request, testPolicy } from "./fixtures.js";
import { waitersAhead } from "./queue.js";

const e = (holder: string, node: string, firstRevision: number, o: Partial<SharedWaiter> = {}): SharedWaiter => ({
  holder, node, operation: "Update", scopes: ["pool.worker"], replica: "a", firstRevision, firstCreatedMs: 1_000 + firstRevision, receivedMs: 5_000, aliveForMs: 6_000, expiresInMs: 60_000, ...o,
});
const order = (entries: SharedWaiter[], nowMs: number, candidate?: { holder: string; node: string; expiresMs: number }) =>
  sharedWaitQueue(entries, nowMs, candidate).map((w) => `${w.holder}@${w.enqueuedMs}`);

describe("changesDecisions", () => {
  const nowMs = 6_000;
  it.each<[string, SharedWaiter | undefined, SharedWaiter, boolean]>([
    ["a new waiter", undefined, e("w", "n", 1), true],
    ["a refresh of a counting waiter", e("w", "n", 1, { receivedMs: 4_000 }), e("w", "n", 1, { receivedMs: 6_000, replica: "a" }), false],
    ["a refresh by the replica that took it over", e("w", "n", 1, { replica: "b" }), e("w", "n", 1, { replica: "a" }), false],
    ["a waiter that counts again (its caller reconnected elsewhere)", e("w", "n", 1, { receivedMs: 0 }), e("w", "n", 1), true],
    ["another place", e("w", "n", 1), e("w", "n", 9), true],
    ["other scopes", e("w", "n", 1), e("w", "n", 1, { scopes: ["pool.worker", "budget.zone-b"] }), true],
    ["another operation", e("w", "n", 1), e("w", "n", 1, { operation: "Reboot" }), true],
  ])("%s: %s", (_, previous, next, want) => {
    expect(changesDecisions(previous, next, nowMs)).toBe(want);
  });
});

describe("sharedWaitQueue", () => {
  it.each<[string, SharedWaiter[], number, { holder: string; node: string; expiresMs: number } | undefined, string[]]>([
    ["orders by first creation in the bucket, whichever replica wrote or received it", [e("w2", "n", 7, { replica: "a", receivedMs: 5_000 }), e("w1", "n", 3, { replica: "b", receivedMs: 5_500 })], 6_000, undefined, ["w1@1003", "w2@1007"]],
    ["a server clock ahead of this replica's is capped at now, never reordered", [e("w1", "n", 3, { firstCreatedMs: 9_000 }), e("w2", "n", 4, { firstCreatedMs: 8_000 })], 6_000, undefined, ["w1@6000", "w2@6000"]],
    ["a server clock that stepped back never lets a later entry report an earlier time", [e("w1", "n", 3, { firstCreatedMs: 2_000 }), e("w2", "n", 4, { firstCreatedMs: 1_500 })], 6_000, undefined, ["w1@2000", "w2@2000"]],
    ["an entry not refreshed within its alive bound stops counting", [e("dead", "n", 1, { receivedMs: 0, aliveForMs: 6_000 }), e("live", "n", 2)], 6_000, undefined, ["live@1002"]],
    ["a requester past its own deadline stops counting", [e("gone", "n", 1, { expiresInMs: 500 }), e("w", "n", 2)], 6_000, undefined, ["w@1002"]],
    ["the candidate's own unrefreshed entry keeps its place (a caller reconnected to another replica)", [e("w1", "n", 1, { receivedMs: 0 }), e("w2", "n", 2)], 7_000, { holder: "w1", node: "n", expiresMs: 30_000 }, ["w1@1001", "w2@1002"]],
    ["someone else's unrefreshed entry does not come back for another candidate", [e("w1", "n", 1, { receivedMs: 0 }), e("w2", "n", 2)], 7_000, { holder: "w3", node: "n", expiresMs: 30_000 }, ["w2@1002"]],
  ])("%s", (_, entries, nowMs, candidate, want) => {
    expect(order(entries, nowMs, candidate)).toEqual(want);
  });

  it("extends the candidate's own deadline to its current wait, so the decision does not prune it", () => {
    const q = sharedWaitQueue([e("w1", "n", 1, { receivedMs: 0, expiresInMs: 1_000 })], 7_000, { holder: "w1", node: "n", expiresMs: 30_000 });
    expect(q[0]!.expiresMs).toBe(30_000);
  });

  it("a newcomer enqueued at now lands behind every registered waiter, even when their server times are later", () => {
    const q = sharedWaitQueue([e("w1", "n", 3, { firstCreatedMs: 9_000 })], 6_000);
    const ahead = waitersAhead([...q, { holder: "w2", node: "n", operation: "Update", scopes: [], enqueuedMs: 6_000, expiresMs: 60_000 }], { holder: "w2", node: "n", scopes: [] }, 6_000, () => false);
    expect(ahead.map((w) => w.holder)).toEqual(["w1"]);
  });

  it("is what decide reads: on a free node the waiter another replica registered first is granted, the later one queued", () => {
    const policy = testPolicy();
    const observed = (queue: ReturnType<typeof sharedWaitQueue>) => ({ nodes: [node("n")], pools: [pool("worker")], budgets: [], leases: [], observations: new Map(), queue });
    const nowMs = 6_000;
    const entries = [e("w2", "n", 5, { replica: "a" }), e("w1", "n", 2, { replica: "b" })];
    const forW2 = decide(request("n", "w2", undefined, { waitSeconds: 30 }), observed(sharedWaitQueue(entries, nowMs, { holder: "w2", node: "n", expiresMs: nowMs + 30_000 })), new Date(nowMs), policy);
    expect(forW2.kind).toBe("wait");
    expect(forW2.kind === "wait" && forW2.code).toBe("Queued");
    const forW1 = decide(request("n", "w1", undefined, { waitSeconds: 30 }), observed(sharedWaitQueue(entries, nowMs, { holder: "w1", node: "n", expiresMs: nowMs + 30_000 })), new Date(nowMs), policy);
    expect(forW1.kind).toBe("grant");
    // Once the replica serving w1 died and its entry went unrefreshed, w2 is no longer held back.
    const later = nowMs + 10_000;
    const forW2Later = decide(request("n", "w2", undefined, { waitSeconds: 30 }), observed(sharedWaitQueue([e("w2", "n", 5, { receivedMs: later }), e("w1", "n", 2)], later, { holder: "w2", node: "n", expiresMs: later + 30_000 })), new Date(later), policy);
    expect(forW2Later.kind).toBe("grant");
  });
});
