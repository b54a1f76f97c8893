// The line a command prints on stderr when the answering service's view of the cluster is stale
// (`lockstep status`, `skew`, `check-upgrade`, `bootimages`).
import type { StateFreshness } from "@lockstep/contracts";

/**
 * Pure: the warning for a stale view, or undefined (fresh, or a server that does not say);
 * `service` answered (it counts the age from its own start when it never heard the watcher).
 */
export function staleWarning(f: StateFreshness | undefined, service = "status-aggregator"): string | undefined {
  if (!f?.stale) return undefined;
  const age = Math.round(f.ageSeconds);
  const why = f.heard ? "the watcher has not been heard from" : `the watcher has not been heard from since the ${service} started`;
  return `warning: Lockstep's view of the cluster is ${age} s old (${why}); what follows may be out of date`;
}

/** Writes the warning for a stale view on `out` (stderr), if there is one. */
export function warnIfStale(f: StateFreshness | undefined, service = "status-aggregator", out: NodeJS.WritableStream = process.stderr): void {
  const warning = staleWarning(f, service);
  if (warning) out.write(`${warning}\n`);
}
