// The line `lockstep status` prints when the status-aggregator's view of the cluster is stale.
import type { StateFreshness } from "@lockstep/contracts";

/** Pure: the warning for a stale view, or undefined (fresh, or an aggregator that does not say). */
export function staleWarning(f: StateFreshness | undefined): string | undefined {
  if (!f?.stale) return undefined;
  const age = Math.round(f.ageSeconds);
  const why = f.heard ? "the watcher has not been heard from" : "the watcher has not been heard from since the status-aggregator started";
  return `warning: Lockstep's view of the cluster is ${age} s old (${why}); what follows may be out of date`;
}
