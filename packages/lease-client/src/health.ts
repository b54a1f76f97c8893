// Holder-side rules: client-go's timing constraints and medik8s NMO's "K refusals in a row" loss
// rule. The one copy: the coordinator's scenario tests import them from here.

export interface HolderTimings {
  leaseDurationSeconds: number;
  /** No successful renew for this long: the hold is lost (shorter than the lease, so work halts first). */
  renewDeadlineSeconds: number;
  /** Pause between renews. */
  retryPeriodSeconds: number;
  /** Consecutive refusals tolerated before the hold is declared lost. */
  maxConsecutiveLosses: number;
}

/** client-go's rule: leaseDuration > renewDeadline > 1.2 × retryPeriod, all positive. */
export function validateHolderTimings(t: HolderTimings): string[] {
  const errors: string[] = [];
  if (!(t.leaseDurationSeconds > 0 && t.renewDeadlineSeconds > 0 && t.retryPeriodSeconds > 0)) errors.push("lease duration, renew deadline and retry period must be positive");
  if (!(t.leaseDurationSeconds > t.renewDeadlineSeconds)) errors.push("lease duration must be greater than the renew deadline");
  if (!(t.renewDeadlineSeconds > 1.2 * t.retryPeriodSeconds)) errors.push("renew deadline must be greater than 1.2 × retry period");
  if (!Number.isInteger(t.maxConsecutiveLosses) || t.maxConsecutiveLosses < 1) errors.push("maxConsecutiveLosses must be a positive integer");
  return errors;
}

/** Defaults for a lease of `durationSeconds`: renew every quarter, give up after two thirds. */
export function defaultTimings(durationSeconds: number, overrides: Partial<HolderTimings> = {}): HolderTimings {
  return {
    leaseDurationSeconds: durationSeconds,
    renewDeadlineSeconds: overrides.renewDeadlineSeconds ?? (durationSeconds * 2) / 3,
    retryPeriodSeconds: overrides.retryPeriodSeconds ?? durationSeconds / 4,
    maxConsecutiveLosses: overrides.maxConsecutiveLosses ?? 3,
  };
}

export interface HolderState {
  lastRenewedMs: number;
  consecutiveLosses: number;
}

export type RenewResult = "renewed" | "refused" | "error";
export type HolderVerdict = "holding" | "paused" | "lost";

/**
 * After each renew attempt: success resets; a refusal pauses the guarded work and becomes a loss
 * after K in a row; any result becomes a loss once no renew succeeded within the renew deadline.
 */
export function afterRenew(state: HolderState, result: RenewResult, nowMs: number, t: HolderTimings): { state: HolderState; verdict: HolderVerdict } {
  if (result === "renewed") return { state: { lastRenewedMs: nowMs, consecutiveLosses: 0 }, verdict: "holding" };
  const next: HolderState = { lastRenewedMs: state.lastRenewedMs, consecutiveLosses: state.consecutiveLosses + (result === "refused" ? 1 : 0) };
  if (nowMs - state.lastRenewedMs >= t.renewDeadlineSeconds * 1000) return { state: next, verdict: "lost" };
  if (next.consecutiveLosses >= t.maxConsecutiveLosses) return { state: next, verdict: "lost" };
  return { state: next, verdict: result === "refused" ? "paused" : "holding" };
}
