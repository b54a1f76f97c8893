import { ExponentialBackoff, type BackoffOptions } from "./backoff.js";
import { systemClock, type Clock, type TimerHandle } from "./clock.js";
import { isTerminalError } from "./errors.js";
import { TokenBucket, type TokenBucketOptions } from "./token-bucket.js";

/**
 * What a reconcile returns. `undefined`/`void` = converged; `{ requeueAfter }` = look again after
 * that many ms (waiting on time is not an error: it resets the key's backoff).
 * Throw for a transient failure (retried with backoff), or a TerminalError for a permanent one.
 */
export type ReconcileResult = void | undefined | { requeueAfter?: number };

/** Converges the world for one key. `signal` aborts when the queue stops. */
export type ReconcileFn = (key: string, signal: AbortSignal) => Promise<ReconcileResult> | ReconcileResult;

/** Reporting hooks; all optional. Exceptions thrown by hooks are swallowed. */
export interface QueueHooks {
  /** A transient failure; the key is retried after `retryInMs` (its `failures`-th in a row). */
  onError?: (key: string, error: unknown, failures: number, retryInMs: number) => void;
  /** A TerminalError: the key is not retried. */
  onTerminalError?: (key: string, error: unknown) => void;
  /** `maxFailures` failures in a row: backoff is reset and the key is re-added after `retryInMs`. */
  onRetriesExhausted?: (key: string, error: unknown, failures: number, retryInMs: number) => void;
}

/** Options for {@link WorkQueue}. */
export interface WorkQueueOptions extends QueueHooks {
  /** Used in errors and by callers for logs/metrics labels. */
  name?: string;
  /** Keys processed in parallel (never the same key twice at once). Default 1. */
  concurrency?: number;
  /** Per-key exponential backoff for thrown errors. Defaults: 5 ms doubling, capped at 30 s. */
  backoff?: BackoffOptions;
  /** Overall limit on retries of failed keys, shared by all keys. Defaults: 10 qps, burst 100. */
  rateLimit?: TokenBucketOptions;
  /** After this many failures in a row a key stops backing off and is parked. Default 15. */
  maxFailures?: number;
  /** How long a parked key waits before it is tried again. Default 5 minutes. */
  parkMs?: number;
  /** Time source; defaults to the real clock. */
  clock?: Clock;
}

/** Counters, plain numbers, for logs or a metrics collector. */
export interface QueueMetrics {
  /** Calls to add() (delayed adds count when they fire), including coalesced ones. */
  adds: number;
  /** Adds that were merged into a pending entry for the same key. */
  coalesced: number;
  /** Reconcile calls finished (any outcome). */
  processed: number;
  /** Transient failures scheduled for a retry with backoff. */
  retries: number;
  /** Terminal errors (not retried). */
  terminal: number;
  /** Keys parked after maxFailures failures in a row. */
  parked: number;
  /** Keys ready to be processed now. */
  depth: number;
  /** Keys being processed now. */
  inFlight: number;
  /** Keys waiting on a timer (requeue-after, backoff, parked). */
  delayed: number;
}

/**
 * A keyed, de-duplicating work queue with N workers, modelled on client-go's workqueue:
 * - a key is never processed concurrently with itself;
 * - adding a key that is already queued is a no-op (coalesced);
 * - adding a key while it is being processed makes it run exactly once more afterwards;
 * - thrown errors retry with per-key exponential backoff, also paced by an overall token bucket;
 * - `{ requeueAfter }` re-adds the key after a delay, without counting as a failure.
 *
 * Keys may be added before {@link start}; they are processed once it is called.
 */
export class WorkQueue {
  readonly name: string;
  private readonly reconcile: ReconcileFn;
  private readonly concurrency: number;
  private readonly clock: Clock;
  private readonly backoff: ExponentialBackoff;
  private readonly bucket: TokenBucket;
  private readonly maxFailures: number;
  private readonly parkMs: number;
  private readonly hooks: QueueHooks;

  /** Ready keys in FIFO order; every entry is also in `dirty`. */
  private readonly ready: string[] = [];
  /** Keys that need (another) run: queued, or re-added while in flight. */
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  /** Delayed adds: at most one timer per key, the earliest wins. */
  private readonly waiting = new Map<string, { at: number; timer: TimerHandle }>();
  private readonly inFlight = new Set<Promise<void>>();
  private idleWaiters: Array<() => void> = [];
  private readonly controller = new AbortController();
  private started = false;
  private stopped = false;
  private readonly counters = { adds: 0, coalesced: 0, processed: 0, retries: 0, terminal: 0, parked: 0 };

  constructor(reconcile: ReconcileFn, options: WorkQueueOptions = {}) {
    this.reconcile = reconcile;
    this.name = options.name ?? "workqueue";
    this.concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(this.concurrency) || this.concurrency < 1) {
      throw new RangeError(`${this.name}: concurrency must be a positive integer (got ${this.concurrency})`);
    }
    this.clock = options.clock ?? systemClock;
    this.backoff = new ExponentialBackoff(options.backoff);
    this.bucket = new TokenBucket(this.clock, options.rateLimit);
    this.maxFailures = options.maxFailures ?? 15;
    this.parkMs = options.parkMs ?? 5 * 60_000;
    this.hooks = {
      onError: options.onError,
      onTerminalError: options.onTerminalError,
      onRetriesExhausted: options.onRetriesExhausted,
    };
  }

  /** Queues `key` for processing. Ignored after stop. */
  add(key: string): void {
    if (this.stopped) return;
    this.counters.adds++;
    if (this.dirty.has(key)) {
      this.counters.coalesced++;
      return;
    }
    this.dirty.add(key);
    // In flight: it is re-queued when the current run finishes.
    if (this.processing.has(key)) return;
    this.ready.push(key);
    this.pump();
  }

  /** Queues `key` after `delayMs`. If the key already waits for an earlier time, that one wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    if (!(delayMs > 0)) {
      this.add(key);
      return;
    }
    const at = this.clock.now() + delayMs;
    const existing = this.waiting.get(key);
    if (existing) {
      if (existing.at <= at) return;
      this.clock.clearTimeout(existing.timer);
    }
    const timer = this.clock.setTimeout(() => {
      this.waiting.delete(key);
      this.add(key);
    }, delayMs);
    this.waiting.set(key, { at, timer });
  }

  /** Starts the workers. Idempotent. */
  start(): void {
    if (this.started || this.stopped) return;
    this.started = true;
    this.pump();
  }

  /**
   * Stops taking work: pending and delayed keys are dropped, the reconcile signal is aborted, and
   * the returned promise resolves once in-flight reconciles have finished.
   */
  async stop(): Promise<void> {
    if (!this.stopped) {
      this.stopped = true;
      this.controller.abort(new Error(`${this.name} stopped`));
      for (const { timer } of this.waiting.values()) this.clock.clearTimeout(timer);
      this.waiting.clear();
      this.ready.length = 0;
      this.dirty.clear();
    }
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    this.notifyIdle();
  }

  /** Runs until `signal` aborts, then stops (waiting for in-flight work). Fits a runtime Runnable. */
  async run(signal: AbortSignal): Promise<void> {
    this.start();
    if (!signal.aborted) {
      await new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
    }
    await this.stop();
  }

  /**
   * Resolves when nothing is ready or in flight (delayed keys do not count: they are waiting on time).
   * Meant for tests. Before start() with keys queued it waits for start().
   */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Current counters. */
  get metrics(): QueueMetrics {
    return {
      ...this.counters,
      depth: this.ready.length,
      inFlight: this.processing.size,
      delayed: this.waiting.size,
    };
  }

  /** Consecutive failures of `key` so far. */
  failures(key: string): number {
    return this.backoff.failures(key);
  }

  private isIdle(): boolean {
    return (this.ready.length === 0 || this.stopped) && this.processing.size === 0;
  }

  private notifyIdle(): void {
    if (!this.isIdle() || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }

  private pump(): void {
    while (this.started && !this.stopped && this.processing.size < this.concurrency && this.ready.length > 0) {
      const key = this.ready.shift()!;
      this.dirty.delete(key);
      this.processing.add(key);
      const p: Promise<void> = this.process(key).finally(() => {
        this.inFlight.delete(p);
        this.processing.delete(key);
        if (this.dirty.has(key) && !this.stopped) this.ready.push(key);
        this.pump();
        this.notifyIdle();
      });
      this.inFlight.add(p);
    }
  }

  private async process(key: string): Promise<void> {
    let result: ReconcileResult;
    try {
      result = await this.reconcile(key, this.controller.signal);
    } catch (error) {
      this.counters.processed++;
      this.handleError(key, error);
      return;
    }
    this.counters.processed++;
    this.backoff.forget(key);
    const after = result?.requeueAfter;
    if (after !== undefined && Number.isFinite(after) && after >= 0) this.addAfter(key, after);
  }

  private handleError(key: string, error: unknown): void {
    if (this.stopped) return;
    if (isTerminalError(error)) {
      this.backoff.forget(key);
      this.counters.terminal++;
      this.callHook(() => this.hooks.onTerminalError?.(key, error));
      return;
    }
    const failures = this.backoff.failures(key) + 1;
    if (failures >= this.maxFailures) {
      this.backoff.forget(key);
      this.counters.parked++;
      this.addAfter(key, this.parkMs);
      this.callHook(() => this.hooks.onRetriesExhausted?.(key, error, failures, this.parkMs));
      return;
    }
    const delay = Math.max(this.backoff.next(key), this.bucket.reserve());
    this.counters.retries++;
    this.addAfter(key, delay);
    this.callHook(() => this.hooks.onError?.(key, error, failures, delay));
  }

  private callHook(fn: () => void): void {
    try {
      fn();
    } catch {
      // Reporting must never break the queue.
    }
  }
}
