// A bounded publish pipeline: many publishes in flight at once (JetStream acks are round trips,
// one at a time would cap the rate at 1/RTT), at most `maxInFlight` of them, the rest queued in
// order. Enqueueing never waits, so the recompute never blocks on acks. A failed publish is retried
// with exponential backoff (facts carry deterministic ids, so a retry that did land is a duplicate
// the stream drops); after `maxAttempts` it is given up and reported.
// No I/O of its own: `send` does the publishing.

export interface PublishQueueOptions<T> {
  /** Publishes one item; a rejection means "retry later". */
  send: (item: T) => Promise<void>;
  /** Most publishes awaiting an ack at once (default 256). */
  maxInFlight?: number;
  /** Attempts per item before it is given up (default 8). */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to maxBackoffMs (defaults 100 ms, 5 s). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** Called once per item: true when acked, false when given up (with the last error). */
  onSettled?: (item: T, ok: boolean, err?: unknown, attempts?: number) => void;
  /** Called on every failed attempt that will be retried. */
  onRetry?: (item: T, err: unknown, attempt: number) => void;
}

interface Entry<T> {
  item: T;
  attempts: number;
}

export class PublishQueue<T> {
  private readonly queue: Entry<T>[] = [];
  private head = 0;
  private active = 0;
  private retrying = 0;
  private readonly retryTimers = new Set<NodeJS.Timeout>();
  private idleWaiters: Array<() => void> = [];
  private stopped = false;
  private readonly maxInFlight: number;
  private readonly maxAttempts: number;
  private readonly backoffMs: number;
  private readonly maxBackoffMs: number;

  constructor(private readonly o: PublishQueueOptions<T>) {
    this.maxInFlight = Math.max(1, o.maxInFlight ?? 256);
    this.maxAttempts = Math.max(1, o.maxAttempts ?? 8);
    this.backoffMs = o.backoffMs ?? 100;
    this.maxBackoffMs = o.maxBackoffMs ?? 5_000;
  }

  /** Items waiting to be sent (not yet in flight, not waiting for a retry). */
  get queued(): number {
    return this.queue.length - this.head;
  }

  get inFlight(): number {
    return this.active;
  }

  /** Everything not yet settled: queued, in flight, or waiting for a retry. */
  get pending(): number {
    return this.queued + this.active + this.retrying;
  }

  /** Queues an item; returns at once. */
  push(item: T): void {
    if (this.stopped) return;
    this.queue.push({ item, attempts: 0 });
    this.pump();
  }

  /** Resolves once nothing is pending (immediately if nothing is). */
  idle(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Drops what is queued or waiting for a retry; publishes in flight settle on their own. */
  stop(): void {
    this.stopped = true;
    for (const t of this.retryTimers) clearTimeout(t);
    this.retryTimers.clear();
    this.retrying = 0;
    this.queue.length = 0;
    this.head = 0;
    this.checkIdle();
  }

  private pump(): void {
    while (this.active < this.maxInFlight && this.head < this.queue.length) {
      const entry = this.queue[this.head]!;
      this.queue[this.head++] = undefined as never;
      // Compact the consumed prefix now and then instead of shift() per item (O(n) each).
      if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
        this.queue.splice(0, this.head);
        this.head = 0;
      }
      this.start(entry);
    }
  }

  private start(entry: Entry<T>): void {
    this.active++;
    entry.attempts++;
    let p: Promise<void>;
    try {
      p = this.o.send(entry.item);
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      () => {
        this.active--;
        this.o.onSettled?.(entry.item, true, undefined, entry.attempts);
        this.pump();
        this.checkIdle();
      },
      (err: unknown) => {
        this.active--;
        if (entry.attempts >= this.maxAttempts || this.stopped) {
          this.o.onSettled?.(entry.item, false, err, entry.attempts);
        } else {
          this.o.onRetry?.(entry.item, err, entry.attempts);
          this.retryLater(entry);
        }
        this.pump();
        this.checkIdle();
      },
    );
  }

  private retryLater(entry: Entry<T>): void {
    const delay = Math.min(this.maxBackoffMs, this.backoffMs * 2 ** (entry.attempts - 1));
    this.retrying++;
    const t = setTimeout(() => {
      this.retryTimers.delete(t);
      this.retrying--;
      if (this.stopped) return this.checkIdle();
      this.queue.push(entry);
      this.pump();
    }, delay);
    t.unref?.();
    this.retryTimers.add(t);
  }

  private checkIdle(): void {
    if (this.pending > 0 || this.idleWaiters.length === 0) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
