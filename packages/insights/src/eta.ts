// Spec §9.4: the estimated time remaining of the control-plane update.
import { roundDuration, truncateDuration } from "./duration.js";
import { HOUR, MINUTE, SECOND, parseTime } from "./time.js";
import type { UpdateHistory } from "./types.js";

/**
 * Fraction of the update time spent when a fraction c of operators is updated; a polynomial
 * fitted to a real update. Powers are explicit products to match Go's math.Pow bit for bit.
 */
export function timewiseComplete(c: number): number {
  const x = c;
  const x2 = x * x;
  const x3 = x * x2;
  const x4 = x2 * x2;
  if (c < 0.25) return -0.03078788 + 2.62886 * x - 3.823954 * x2;
  if (c < 0.9) return 0.1851215 + 1.64994 * x - 4.676898 * x2 + 5.451824 * x3 - 2.125286 * x4;
  return 25053.32 - 107394.3 * x + 172527.2 * x2 - 123107 * x3 + 32921.81 * x4;
}

/** Duration of the first Completed update among history[1..len-2], else 1 h. */
export function baselineDuration(history: readonly UpdateHistory[]): bigint {
  if (history.length < 3) return HOUR;
  for (const item of history.slice(1, -1)) {
    if (item.state === "Completed") return parseTime(item.completionTime) - parseTime(item.startedTime);
  }
  return HOUR;
}

/** Go Duration.Seconds(). */
export function seconds(d: bigint): number {
  const sec = d / SECOND;
  const nsec = d % SECOND;
  return Number(sec) + Number(nsec) / 1e9;
}

export function estimateCompletion(baseline: bigint, toLastObservedProgress: bigint, updatingFor: bigint, completion: number): bigint {
  if (completion >= 1) return 0n;
  const tw = timewiseComplete(completion);
  const totalSeconds =
    completion > 0 && tw > 0 && toLastObservedProgress > 5n * MINUTE ? seconds(toLastObservedProgress) / tw : seconds(baseline);
  const remaining = totalSeconds - seconds(updatingFor);
  const overestimate = remaining < 0 ? 1 / 1.2 : 1.2;
  const est = BigInt(Math.trunc(remaining * overestimate)) * SECOND;
  return est > 10n * MINUTE ? roundDuration(est, MINUTE) : roundDuration(est, SECOND);
}

/** EstDuration: the whole expected update length, truncated to the minute. */
export const estimatedDuration = (updatingFor: bigint, est: bigint): bigint => truncateDuration(updatingFor + est, MINUTE);
