// The wait queue shared by every coordinator replica (one entry per waiter in a NATS KV bucket),
// turned into the WaitQueue a decision reads. Every replica must put waiters in the same order, so
// the order is the entry's first creation in the bucket (one server's sequence, not each replica's
// clock). Liveness and the waiter's own deadline are judged on the reader's clock from when it
// received the entry, with durations the writer chose: clock skew between pods does not matter.
import type { OperationName } from "./operations.js";
import type { Waiter } from "./queue.js";

/** One waiter as a replica's mirror of the bucket holds it. */
export interface SharedWaiter {
  holder: string;
  node: string;
  operation: OperationName;
  scopes: string[];
  /** Replica serving the waiting call. */
  replica: string;
  /** Place in line: revision of the entry's first creation in the bucket. */
  firstRevision: number;
  /** Server time of that first creation (ms): what enqueuedMs reports. */
  firstCreatedMs: number;
  /** Reader's clock (ms) when it received the current value. */
  receivedMs: number;
  /** The entry counts this long after receipt unless rewritten (the writer's alive_until - written). */
  aliveForMs: number;
  /** The requester gives up this long after receipt (the writer's expires - written). */
  expiresInMs: number;
}

/** The requester a decision is made for: its own entry keeps its place even when nobody refreshes it. */
export interface QueueCandidate {
  holder: string;
  node: string;
  /** Its current wait deadline (reader's clock). */
  expiresMs: number;
}

export function sameWaiter(a: { holder: string; node: string }, b: { holder: string; node: string }): boolean {
  return a.holder === b.holder && a.node === b.node;
}

/** Whether the entry still counts for others: rewritten recently enough by a live replica, and not given up. */
export function countsInLine(w: SharedWaiter, nowMs: number): boolean {
  return nowMs < w.receivedMs + w.aliveForMs && nowMs < w.receivedMs + w.expiresInMs;
}

/**
 * Whether a new value of an entry can change a decision: a new waiter, one that counts again, or a
 * changed place, operation or scopes. A refresh (the same waiter, still counting) cannot: with
 * every waiter rewritten every few seconds, waking every waiting call on each would cost
 * waiters² decisions per interval. (An entry that stops counting does so with time, which waiting
 * calls re-decide on anyway.)
 */
export function changesDecisions(previous: SharedWaiter | undefined, next: SharedWaiter, nowMs: number): boolean {
  if (previous === undefined || !countsInLine(previous, nowMs)) return true;
  return (
    previous.firstRevision !== next.firstRevision ||
    previous.operation !== next.operation ||
    previous.scopes.length !== next.scopes.length ||
    previous.scopes.some((s, i) => s !== next.scopes[i])
  );
}

/**
 * The queue a decision reads: live entries in order of first creation. An entry nobody refreshes
 * (its replica died) drops out after its alive bound, except the candidate's own: a caller that
 * reconnects to another replica keeps its original place. enqueuedMs is the first creation's server
 * time, capped at nowMs and never decreasing along the order, so a newcomer the decision enqueues
 * at nowMs always lands behind every registered waiter whatever this replica's clock says.
 */
export function sharedWaitQueue(entries: Iterable<SharedWaiter>, nowMs: number, candidate?: QueueCandidate): Waiter[] {
  const kept: SharedWaiter[] = [];
  for (const w of entries) {
    if (countsInLine(w, nowMs) || (candidate !== undefined && sameWaiter(w, candidate))) kept.push(w);
  }
  kept.sort((a, b) => a.firstRevision - b.firstRevision);
  const out: Waiter[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  for (const w of kept) {
    floor = Math.max(floor, Math.min(w.firstCreatedMs, nowMs));
    const own = candidate !== undefined && sameWaiter(w, candidate);
    const expiresMs = own ? Math.max(w.receivedMs + w.expiresInMs, candidate.expiresMs) : w.receivedMs + w.expiresInMs;
    out.push({ holder: w.holder, node: w.node, operation: w.operation, scopes: w.scopes, enqueuedMs: floor, expiresMs });
  }
  return out;
}
