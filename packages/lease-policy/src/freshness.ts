// Fail closed on a stale state plane. Budgets, conflicts and node health all come from the watcher's
// view; when its heartbeat is overdue that view may be arbitrarily old (a node gone NotReady since is
// invisible), so no new disruption is granted from it. Pure: the caller says whether the view is
// stale and why, and applies this to the decision the ordinary policy made.
import type { Decision } from "./types.js";

export interface StaleView {
  /** What a human reads, e.g. "the watcher has not been heard from for 41 s". */
  why: string;
  /** When to try again. */
  retryAfterSeconds: number;
}

/** The message of a StateStale refusal. */
export function staleReason(why: string): string {
  return `StateStale: ${why}; no disruption is granted until it is`;
}

/**
 * The decision to answer an Acquire with, given the view's staleness (undefined: fresh). Kept as
 * decided: an invalid request (it says nothing about the cluster) and the renewal of a hold the
 * requester already has — refusing it would not reduce disruption (the node is already disrupted by
 * that holder) and would only make it lose its place; releases never pass here for the same reason.
 * Anything else is refused with StateStale, without writes; a request that may still wait, waits
 * (and is decided again, and granted, once the view is fresh).
 */
export function refuseWhenStale(d: Decision, stale: StaleView | undefined, node: string, mayWait: boolean): Decision {
  if (stale === undefined) return d;
  if (d.kind === "deny" && d.code === "Invalid") return d;
  if (d.kind === "grant" && d.renewal) return d;
  const reason = staleReason(stale.why);
  const current = d.kind === "grant" ? undefined : d.current;
  const common = { code: "StateStale" as const, reason, current, retryAfterSeconds: stale.retryAfterSeconds, writes: [], warnings: [], observations: d.observations, queue: d.queue };
  if (mayWait) return { kind: "wait", ...common, position: 0, events: [] };
  return { kind: "deny", ...common, events: [{ type: "lease.denied", node, message: reason }] };
}
