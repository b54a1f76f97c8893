// A waiting Acquire whose coordinator goes away mid-wait (a replica stopped or restarted: the
// call fails UNAVAILABLE, or CANCELLED when it outlived the replica's shutdown grace period) is
// asked again within the same overall wait. The address is a Service,
// so the retry reaches another replica, where the caller's entry in the shared wait queue keeps
// its place. Acquire is idempotent per holder (a grant whose answer was lost is a renewal then).

/** What to do after a waiting Acquire failed: retry after `delayMs` with `waitSeconds`, or give up. */
export type WaitRetry = { retry: true; delayMs: number; waitSeconds: number } | { retry: false };

/** Backoff between attempts: 250 ms doubling, at most 2 s (a replacement replica is seconds away). */
export function retryDelayMs(attempt: number): number {
  return Math.min(2_000, 250 * 2 ** Math.max(0, attempt - 1));
}

/**
 * Whether to ask again: only a waiting Acquire, only when the coordinator was unreachable, and only
 * while its overall wait is not over (the retry waits for what is left of it).
 */
export function waitRetry(o: { unavailable: boolean; waiting: boolean; attempt: number; nowMs: number; deadlineMs: number }): WaitRetry {
  if (!o.waiting || !o.unavailable) return { retry: false };
  const delayMs = retryDelayMs(o.attempt);
  const left = o.deadlineMs - (o.nowMs + delayMs);
  if (left < 1_000) return { retry: false };
  return { retry: true, delayMs, waitSeconds: Math.floor(left / 1000) };
}
