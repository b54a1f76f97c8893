import { describe, expect, it } from "vitest";
import { retryDelayMs, waitRetry } from "./wait-retry.js";

describe("waitRetry", () => {
  it.each([
    ["a waiting acquire whose coordinator was unreachable retries for what is left of its wait", { unavailable: true, waiting: true, attempt: 1, nowMs: 0, deadlineMs: 30_000 }, { retry: true, delayMs: 250, waitSeconds: 29 }],
    ["later attempts back off, up to 2 s", { unavailable: true, waiting: true, attempt: 5, nowMs: 10_000, deadlineMs: 30_000 }, { retry: true, delayMs: 2_000, waitSeconds: 18 }],
    ["not once the wait is (nearly) over", { unavailable: true, waiting: true, attempt: 1, nowMs: 29_000, deadlineMs: 30_000 }, { retry: false }],
    ["not an acquire that does not wait (its caller decides)", { unavailable: true, waiting: false, attempt: 1, nowMs: 0, deadlineMs: 30_000 }, { retry: false }],
    ["not another error (denied, invalid, permission)", { unavailable: false, waiting: true, attempt: 1, nowMs: 0, deadlineMs: 30_000 }, { retry: false }],
  ])("%s", (_, input, want) => {
    expect(waitRetry(input)).toEqual(want);
  });

  it("backs off 250 ms, 500 ms, 1 s, 2 s, 2 s", () => {
    expect([1, 2, 3, 4, 5].map(retryDelayMs)).toEqual([250, 500, 1_000, 2_000, 2_000]);
  });
});
