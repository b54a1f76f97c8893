import { describe, expect, it } from "vitest";
import { afterRenew, defaultTimings, validateHolderTimings } from "./health.js";

const t = defaultTimings(12, { maxConsecutiveLosses: 2 });

describe("holder health", () => {
  it("defaults satisfy client-go's constraints; bad timings are listed", () => {
    expect(t).toEqual({ leaseDurationSeconds: 12, renewDeadlineSeconds: 8, retryPeriodSeconds: 3, maxConsecutiveLosses: 2 });
    expect(validateHolderTimings(t)).toEqual([]);
    expect(validateHolderTimings({ ...t, renewDeadlineSeconds: 12 })).toContain("lease duration must be greater than the renew deadline");
    expect(validateHolderTimings({ ...t, retryPeriodSeconds: 7 })).toContain("renew deadline must be greater than 1.2 × retry period");
    expect(validateHolderTimings({ ...t, maxConsecutiveLosses: 0 })).toContain("maxConsecutiveLosses must be a positive integer");
  });

  it("scenario 11: a refusal pauses, a success resumes, K refusals in a row lose the hold", () => {
    let s = { lastRenewedMs: 0, consecutiveLosses: 0 };
    let r = afterRenew(s, "refused", 1_000, t);
    expect(r.verdict).toBe("paused");
    r = afterRenew(r.state, "renewed", 2_000, t);
    expect(r).toEqual({ state: { lastRenewedMs: 2_000, consecutiveLosses: 0 }, verdict: "holding" });
    s = r.state;
    r = afterRenew(s, "refused", 3_000, t);
    r = afterRenew(r.state, "refused", 4_000, t);
    expect(r.verdict).toBe("lost");
  });

  it("scenario 22: errors alone lose the hold once the renew deadline passes, before the lease could expire", () => {
    const s = { lastRenewedMs: 0, consecutiveLosses: 0 };
    expect(afterRenew(s, "error", 7_999, t).verdict).toBe("holding");
    expect(afterRenew(s, "error", 8_000, t).verdict).toBe("lost");
    expect(t.renewDeadlineSeconds).toBeLessThan(t.leaseDurationSeconds);
  });

  it("defaults take each override on its own; the renew deadline and retry period scale with the duration", () => {
    expect(defaultTimings(60)).toEqual({ leaseDurationSeconds: 60, renewDeadlineSeconds: 40, retryPeriodSeconds: 15, maxConsecutiveLosses: 3 });
    expect(defaultTimings(60, { retryPeriodSeconds: 1 })).toEqual({ leaseDurationSeconds: 60, renewDeadlineSeconds: 40, retryPeriodSeconds: 1, maxConsecutiveLosses: 3 });
    expect(validateHolderTimings(defaultTimings(1))).toEqual([]);
  });

  it("lists every problem of nonsense timings", () => {
    expect(validateHolderTimings({ leaseDurationSeconds: 0, renewDeadlineSeconds: 0, retryPeriodSeconds: 0, maxConsecutiveLosses: 1.5 })).toEqual([
      "lease duration, renew deadline and retry period must be positive",
      "lease duration must be greater than the renew deadline",
      "renew deadline must be greater than 1.2 × retry period",
      "maxConsecutiveLosses must be a positive integer",
    ]);
    expect(validateHolderTimings({ ...t, leaseDurationSeconds: Number.NaN })).toContain("lease duration, renew deadline and retry period must be positive");
  });

  it("a refusal past the renew deadline is a loss even below K; an error never counts towards K", () => {
    const s = { lastRenewedMs: 0, consecutiveLosses: 0 };
    expect(afterRenew(s, "refused", 8_000, t)).toEqual({ state: { lastRenewedMs: 0, consecutiveLosses: 1 }, verdict: "lost" });
    let r = afterRenew(s, "error", 1_000, t);
    r = afterRenew(r.state, "error", 2_000, t);
    r = afterRenew(r.state, "error", 3_000, t);
    expect(r).toEqual({ state: { lastRenewedMs: 0, consecutiveLosses: 0 }, verdict: "holding" });
  });
});
