import type { OperationName } from "./operations.js";

/** One requester waiting for a node (and the budget scopes it needs). */
export interface Waiter {
  holder: string;
  node: string;
  operation: OperationName;
  scopes: string[];
  enqueuedMs: number;
  /** The waiter gives up (and stops blocking others) at this time. */
  expiresMs: number;
}

/** Waiters in arrival order. Plain data so the service can persist it (e.g. on a Lease annotation). */
export type WaitQueue = readonly Waiter[];

export function pruneQueue(queue: WaitQueue, nowMs: number): Waiter[] {
  return queue.filter((w) => w.expiresMs > nowMs);
}

/** Adds the waiter, or refreshes its deadline while keeping its place (position never resets on poll). */
export function enqueue(queue: WaitQueue, waiter: Waiter): Waiter[] {
  const existing = queue.find((w) => w.holder === waiter.holder && w.node === waiter.node);
  if (existing) return queue.map((w) => (w === existing ? { ...existing, expiresMs: Math.max(existing.expiresMs, waiter.expiresMs), scopes: waiter.scopes, operation: waiter.operation } : w));
  return [...queue, waiter].sort((a, b) => a.enqueuedMs - b.enqueuedMs);
}

export function dequeue(queue: WaitQueue, holder: string, node: string): Waiter[] {
  return queue.filter((w) => !(w.holder === holder && w.node === node));
}

/**
 * The live waiters that must be served before `candidate` (FIFO, no barging): earlier waiters for the
 * same node, and earlier waiters sharing a budget scope whose own node is free. A waiter stuck behind
 * a held node does not reserve budget capacity, so one blocked node cannot starve its pool.
 */
export function waitersAhead(
  queue: WaitQueue,
  candidate: { holder: string; node: string; scopes: readonly string[] },
  nowMs: number,
  nodeIsHeldByOther: (waiter: Waiter) => boolean,
): Waiter[] {
  const live = pruneQueue(queue, nowMs);
  const own = live.find((w) => w.holder === candidate.holder && w.node === candidate.node);
  const earlier = own ? live.filter((w) => w.enqueuedMs < own.enqueuedMs || (w.enqueuedMs === own.enqueuedMs && live.indexOf(w) < live.indexOf(own))) : live;
  return earlier.filter((w) => {
    if (w.holder === candidate.holder && w.node === candidate.node) return false;
    if (w.node === candidate.node) return true;
    return w.scopes.some((s) => candidate.scopes.includes(s)) && !nodeIsHeldByOther(w);
  });
}
