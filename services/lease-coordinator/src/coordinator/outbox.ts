// Events leave after the reply, in batches: every event emitted during one turn of the event loop is
// published in the next (setImmediate), so the NATS client writes them to its socket once instead of
// once per grant, and a JetStream publish never sits on a grant's path. A failed publish is retried
// with backoff; ids are deterministic where the fact is idempotent, so a retry is never a duplicate.
import type { Logger } from "pino";
import type { OutgoingEvent } from "./events.js";

export interface OutboxOptions {
  publish(e: OutgoingEvent): Promise<unknown>;
  logger: Logger;
  /**
   * Attempts per event before it is dropped with an error log. Default 12: with the default delays
   * about 31 s of retrying, longer than a JetStream stream-leader change (the stream answers every
   * publish at once with "no stream" for ~5 s, measured on nats-server 2.9; 5 attempts, 1.5 s of
   * retrying, dropped events then).
   */
  maxAttempts?: number;
  /** First retry delay; doubles per attempt up to maxRetryMs. Defaults 100 ms, 5 s. */
  retryBaseMs?: number;
  maxRetryMs?: number;
  /** Events held at most (oldest dropped beyond it, so a dead bus cannot exhaust memory). Default 10,000. */
  capacity?: number;
}

interface Pending {
  e: OutgoingEvent;
  attempt: number;
}

export class EventOutbox {
  private batch: Pending[] = [];
  private scheduled = false;
  private inFlight = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly idle = new Set<() => void>();
  private closed = false;

  constructor(private readonly o: OutboxOptions) {}

  emit(events: readonly OutgoingEvent[]): void {
    if (this.closed) return;
    for (const e of events) this.batch.push({ e, attempt: 1 });
    const capacity = this.o.capacity ?? 10_000;
    if (this.batch.length > capacity) {
      const dropped = this.batch.splice(0, this.batch.length - capacity);
      this.o.logger.error({ dropped: dropped.length }, "event outbox full; oldest events dropped");
    }
    if (!this.scheduled && this.batch.length > 0) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Events accepted and not yet acknowledged (queued, in flight or waiting to retry). */
  get pending(): number {
    return this.batch.length + this.inFlight + this.timers.size;
  }

  /** Resolves once nothing is pending (or at once); used on shutdown. */
  drained(): Promise<void> {
    if (this.pending === 0) return Promise.resolve();
    return new Promise((r) => this.idle.add(r));
  }

  /** Stops retries and drops what is queued. */
  close(): void {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    this.batch = [];
    this.checkIdle();
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.batch;
    this.batch = [];
    for (const p of batch) this.send(p);
  }

  private send(p: Pending): void {
    this.inFlight++;
    this.o.publish(p.e).then(
      () => {
        this.inFlight--;
        this.checkIdle();
      },
      (err: unknown) => {
        this.inFlight--;
        const max = this.o.maxAttempts ?? 12;
        if (this.closed || p.attempt >= max) {
          this.o.logger.error({ err, id: p.e.id, attempts: p.attempt }, "event publish failed; event dropped");
          this.checkIdle();
          return;
        }
        this.o.logger.warn({ err, id: p.e.id, attempt: p.attempt }, "event publish failed; retrying");
        const t = setTimeout(() => {
          this.timers.delete(t);
          if (!this.closed) this.emitRetry({ e: p.e, attempt: p.attempt + 1 });
          else this.checkIdle();
        }, Math.min((this.o.retryBaseMs ?? 100) * 2 ** (p.attempt - 1), this.o.maxRetryMs ?? 5_000));
        this.timers.add(t);
      },
    );
  }

  private emitRetry(p: Pending): void {
    this.batch.push(p);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private checkIdle(): void {
    if (this.pending > 0) return;
    const waiting = [...this.idle];
    this.idle.clear();
    for (const r of waiting) r();
  }
}
