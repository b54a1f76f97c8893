/**
 * @lockstep/reconcile: level-triggered reconciliation without Kubernetes or NATS.
 *
 *     const guard = new HotLoopGuard();
 *     const queue = new WorkQueue(async (key, signal) => {
 *       const desired = compute(cache.get(key));          // absent in the cache = deleted
 *       if (equal(desired, observed)) { guard.reset(key); return; }
 *       guard.assert(key, writeFingerprint(desired));     // third identical write: HotLoopError (terminal)
 *       await write(desired, { signal });                 // throw = retried with backoff
 *       return { requeueAfter: 30_000 };                  // optional: look again later
 *     }, { name: "bootimages", concurrency: 4, onTerminalError: (key, err) => setDegraded(key, err) });
 *     informer.on("change", (key) => queue.add(key));
 *     await queue.run(signal);                            // or as a runtime Runnable
 */
export { WorkQueue } from "./queue.js";
export type { ReconcileFn, ReconcileResult, QueueHooks, QueueMetrics, WorkQueueOptions } from "./queue.js";
export { TerminalError, HotLoopError, isTerminalError } from "./errors.js";
export { HotLoopGuard, writeFingerprint } from "./hot-loop.js";
export type { HotLoopGuardOptions } from "./hot-loop.js";
export { ExponentialBackoff } from "./backoff.js";
export type { BackoffOptions } from "./backoff.js";
export { TokenBucket } from "./token-bucket.js";
export type { TokenBucketOptions } from "./token-bucket.js";
export { ManualClock, systemClock } from "./clock.js";
export type { Clock, TimerHandle } from "./clock.js";
