// Spec §3.4: the evaluation time of the golden fixtures.
import { ZERO_TIME, parseTime } from "./time.js";
import type { ClusterOperator, ClusterVersion } from "./types.js";

/** The deliberate sub-second skew upstream adds to exercise rounding. */
export const FIXTURE_NOW_SKEW = 368_975n;

/** Latest ClusterVersion / ClusterOperator condition transition + 368,975 ns (scanned as upstream does). */
export function fixtureNow(cv: ClusterVersion | undefined, operators: readonly ClusterOperator[]): bigint {
  let now = ZERO_TIME;
  const scan = (conditions: readonly { lastTransitionTime?: string | null }[] | null | undefined): void => {
    for (const c of conditions ?? []) {
      const t = parseTime(c.lastTransitionTime);
      if (t > now) now = t + FIXTURE_NOW_SKEW;
    }
  };
  scan(cv?.status?.conditions);
  for (const co of operators) scan(co.status?.conditions);
  return now;
}
