// The wait queue shared by every coordinator replica, in KV bucket lockstep-lease-queue-v1: one
// entry per waiting requester, written by the replica serving its call. Every replica watches the
// bucket into a local mirror, and decisions read the mirror (lease-policy's sharedWaitQueue: order
// by the entry's first creation in the bucket, live entries only). The serving replica rewrites its
// entries every refresh interval so others know the call still waits; a replica that dies stops
// rewriting and its entries stop counting after the alive bound, but they stay in the bucket so a
// caller that reconnects to another replica is served in its first place.
import { tendWatch, watchOptions, type ensureLeaseQueueBucket } from "@lockstep/bus";
import { LeaseWaiter, leaseQueueKey, parseLeaseQueueKey } from "@lockstep/contracts";
import { changesDecisions, countsInLine, sharedWaitQueue, type OperationName, type QueueCandidate, type SharedWaiter, type Waiter } from "@lockstep/lease-policy";
import type { Logger } from "pino";

export type QueueKv = Awaited<ReturnType<typeof ensureLeaseQueueBucket>>;

/** How often a serving replica rewrites its waiters. */
export const DEFAULT_QUEUE_REFRESH_MS = 2_000;
/**
 * How long an entry counts without a rewrite: three refreshes, so one late or lost rewrite (a NATS
 * reconnect, a GC pause) never drops a live waiter, while a dead replica's waiters hold others
 * back for at most 6 s (at the default 2 s), well under any lease's duration. Their callers keep
 * their place whenever they come back: their own entry counts for them regardless.
 */
export const ALIVE_REFRESHES = 3;

export interface SharedQueueOptions {
  kv: QueueKv;
  /** This replica's name (COORDINATOR_ID), written into the entries it serves. */
  replica: string;
  logger: Logger;
  /** The coordinator's clock: entries are judged on it from when they were received. */
  clock?: () => number;
  refreshMs?: number;
  /** Told when the mirror changed in a way that can change a decision (waiting acquires decide again). */
  onChange?: () => void;
}

/** A waiter this replica serves. */
interface Served {
  waiter: Omit<Waiter, "enqueuedMs">;
  /**
   * The calls waiting here for it: a caller that retried after a dropped connection may have its
   * old call still running here for a moment, and that call's end must not delete the entry.
   */
  calls: Set<object>;
  firstRevision: number;
  firstCreatedMs: number;
  /** Revision of our last write of the entry (a delete is a CAS on it). */
  revision: number;
}

export class SharedQueue {
  private readonly mirror = new Map<string, SharedWaiter>();
  private readonly served = new Map<string, Served>();
  /** Revision of each mirrored entry as last received. */
  private readonly revisions = new Map<string, number>();
  private readonly clock: () => number;
  private readonly refreshMs: number;
  private readonly aliveForMs: number;
  private readonly abort = new AbortController();
  private timer: NodeJS.Timeout | undefined;
  private lastRevision = 0;
  private leaving = false;
  private loaded!: () => void;
  /** Resolves once the bucket's entries at start are in the mirror. */
  readonly ready = new Promise<void>((r) => (this.loaded = r));

  constructor(private readonly o: SharedQueueOptions) {
    this.clock = o.clock ?? Date.now;
    this.refreshMs = o.refreshMs ?? DEFAULT_QUEUE_REFRESH_MS;
    this.aliveForMs = ALIVE_REFRESHES * this.refreshMs;
  }

  /**
   * Starts watching the bucket and rewriting the waiters this replica serves; resolves once the
   * entries already there are mirrored (a replica serving before that could let a newcomer pass
   * them), or after `loadTimeoutMs`: an unreadable bucket costs fairness, not service.
   */
  async start(loadTimeoutMs = 5_000): Promise<void> {
    void this.watchLoop();
    this.timer = setInterval(() => void this.refresh(), this.refreshMs);
    // An empty bucket delivers nothing to say so: asked once.
    void this.o.kv.status().then(
      (st) => st.values === 0 && this.loaded(),
      () => undefined,
    );
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([this.ready, new Promise<void>((r) => (timer = setTimeout(r, loadTimeoutMs)))]);
    clearTimeout(timer);
  }

  /** Stops watching and rewriting; the entries stay (a caller may reconnect elsewhere). */
  stop(): void {
    this.abort.abort();
    clearInterval(this.timer);
  }

  /**
   * This replica is going away (SIGTERM): a call cancelled from now on is most likely cut by our own
   * shutdown, not given up by its caller, so its entry stays for the caller to take over elsewhere
   * (it stops counting for others after the alive bound if the caller does not come back).
   */
  handOver(): void {
    this.leaving = true;
  }

  /** The queue a decision for `candidate` reads. */
  queueFor(candidate: QueueCandidate | undefined, nowMs: number): Waiter[] {
    return sharedWaitQueue(this.mirror.values(), nowMs, candidate);
  }

  /** Waiters that count now, on every replica (the gauge). */
  size(nowMs = this.clock()): number {
    let n = 0;
    for (const w of this.mirror.values()) if (countsInLine(w, nowMs)) n++;
    return n;
  }

  /**
   * Puts the waiter in the shared line, or (already there, e.g. served by a replica that died)
   * takes its entry over keeping its first place. Later calls only update its deadline and scopes.
   */
  async register(waiter: Omit<Waiter, "enqueuedMs">, call: object = waiter): Promise<void> {
    const key = leaseQueueKey(waiter.node, waiter.holder);
    const mine = this.served.get(key);
    if (mine !== undefined) {
      mine.waiter = waiter;
      mine.calls.add(call);
      return;
    }
    const known = this.mirror.get(key);
    if (known !== undefined) return this.takeOver(key, waiter, call, known.firstRevision, known.firstCreatedMs);
    const nowMs = this.clock();
    let revision: number;
    try {
      revision = await this.o.kv.create(key, this.encode(waiter, nowMs, undefined));
    } catch (err) {
      // Created meanwhile (another replica serves the same holder and node, or our mirror lags).
      const entry = await this.o.kv.get(key);
      if (entry === null || entry.operation !== "PUT") throw err;
      const first = this.firstOf(entry.value, entry.revision, entry.created.getTime());
      return this.takeOver(key, waiter, call, first.firstRevision, first.firstCreatedMs);
    }
    // Our own write is our place at once (the watch echoes it later); its server time is read once.
    const entry = await this.o.kv.get(key);
    const createdMs = entry?.revision === revision ? entry.created.getTime() : nowMs;
    this.served.set(key, { waiter, calls: new Set([call]), firstRevision: revision, firstCreatedMs: createdMs, revision });
    this.mirrorOwn(key, waiter, revision, createdMs, nowMs);
  }

  private async takeOver(key: string, waiter: Omit<Waiter, "enqueuedMs">, call: object, firstRevision: number, firstCreatedMs: number): Promise<void> {
    const nowMs = this.clock();
    const revision = await this.o.kv.put(key, this.encode(waiter, nowMs, { firstRevision, firstCreatedMs }));
    this.served.set(key, { waiter, calls: new Set([call]), firstRevision, firstCreatedMs, revision });
    this.mirrorOwn(key, waiter, firstRevision, firstCreatedMs, nowMs);
    this.o.logger.debug({ node: waiter.node, holder: waiter.holder, firstRevision }, "shared queue entry taken over");
  }

  /**
   * The waiter got its answer, gave up or was cancelled: its entry goes. The delete is a CAS on our
   * last write, so an entry another replica took over meanwhile (the caller reconnected) stays.
   */
  async unregister(holder: string, node: string, cancelled = false, call?: object): Promise<void> {
    const key = leaseQueueKey(node, holder);
    const mine = this.served.get(key);
    if (mine !== undefined && call !== undefined) {
      mine.calls.delete(call);
      // Another call of the same caller still waits here: the entry is its place.
      if (mine.calls.size > 0) return;
    }
    if (cancelled && this.leaving) {
      this.served.delete(key);
      if (mine !== undefined) this.o.logger.debug({ node, holder }, "shared queue entry left for its caller");
      return;
    }
    // Answered here without waiting, but its entry from an earlier call (a replica that went away)
    // is still there: it goes too, or it would hold budget room for a holder that has its answer.
    const theirs = mine === undefined ? this.revisions.get(key) : undefined;
    if (mine === undefined && theirs === undefined) return;
    this.served.delete(key);
    try {
      await this.o.kv.delete(key, { previousSeq: mine?.revision ?? theirs });
      this.mirror.delete(key);
      this.o.onChange?.();
    } catch (err) {
      this.o.logger.debug({ node, holder, err: (err as Error).message }, "shared queue entry not deleted");
    }
  }

  private async refresh(): Promise<void> {
    for (const [key, s] of [...this.served]) {
      const nowMs = this.clock();
      try {
        // A CAS on our last write: if another replica wrote it since, the caller reconnected there
        // (or that call ended and deleted it), and it is theirs to refresh now.
        const revision = await this.o.kv.update(key, this.encode(s.waiter, nowMs, s), s.revision);
        // Unregistered while the write was in flight: the rewrite must not outlive the waiter.
        if (this.served.get(key) !== s) await this.o.kv.delete(key, { previousSeq: revision }).catch(() => undefined);
        else {
          s.revision = revision;
          // Our own waiters stay live in our view even while the watch is down (it echoes this later).
          this.mirrorOwn(key, s.waiter, s.firstRevision, s.firstCreatedMs, nowMs);
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        const message = (err as Error).message;
        if (/wrong last sequence/i.test(message)) {
          if (this.served.get(key) === s) this.served.delete(key);
          this.o.logger.debug({ node: s.waiter.node, holder: s.waiter.holder }, "shared queue entry served elsewhere now");
          continue;
        }
        this.o.logger.warn({ node: s.waiter.node, holder: s.waiter.holder, err: message }, "shared queue entry not refreshed");
      }
    }
  }

  private encode(w: Omit<Waiter, "enqueuedMs">, nowMs: number, first: { firstRevision: number; firstCreatedMs: number } | undefined): Uint8Array {
    return LeaseWaiter.encode({
      node: w.node,
      holder: w.holder,
      operation: w.operation,
      scopes: w.scopes,
      expires: new Date(w.expiresMs),
      replica: this.o.replica,
      written: new Date(nowMs),
      aliveUntil: new Date(nowMs + this.aliveForMs),
      firstRevision: first ? String(first.firstRevision) : "0",
      firstCreated: first ? new Date(first.firstCreatedMs) : undefined,
    }).finish();
  }

  private firstOf(bytes: Uint8Array, revision: number, createdMs: number): { value: LeaseWaiter; firstRevision: number; firstCreatedMs: number } {
    const value = LeaseWaiter.decode(bytes);
    const first = Number(value.firstRevision);
    // The first write carries no place: the entry's own revision and server time are it.
    return first > 0 ? { value, firstRevision: first, firstCreatedMs: value.firstCreated?.getTime() ?? createdMs } : { value, firstRevision: revision, firstCreatedMs: createdMs };
  }

  private mirrorOwn(key: string, w: Omit<Waiter, "enqueuedMs">, firstRevision: number, firstCreatedMs: number, nowMs: number): void {
    this.mirrorSet(key, {
      holder: w.holder, node: w.node, operation: w.operation, scopes: w.scopes, replica: this.o.replica,
      firstRevision, firstCreatedMs, receivedMs: nowMs, aliveForMs: this.aliveForMs, expiresInMs: w.expiresMs - nowMs,
    }, nowMs);
  }

  /** Waiting calls are woken only by a change that can change a decision, not by refreshes. */
  private mirrorSet(key: string, next: SharedWaiter, nowMs: number): void {
    const changed = changesDecisions(this.mirror.get(key), next, nowMs);
    this.mirror.set(key, next);
    if (changed) this.o.onChange?.();
  }

  private apply(key: string, op: string, bytes: Uint8Array, revision: number, createdMs: number): void {
    const id = parseLeaseQueueKey(key);
    if (id === undefined) return;
    if (op !== "PUT") {
      this.revisions.delete(key);
      if (this.mirror.delete(key)) this.o.onChange?.();
      return;
    }
    this.revisions.set(key, revision);
    let parsed: ReturnType<SharedQueue["firstOf"]>;
    try {
      parsed = this.firstOf(bytes, revision, createdMs);
    } catch (err) {
      this.o.logger.warn({ key, err: (err as Error).message }, "ignoring undecodable shared queue entry");
      return;
    }
    const { value } = parsed;
    const writtenMs = value.written?.getTime() ?? 0;
    const nowMs = this.clock();
    this.mirrorSet(key, {
      holder: id.holder, node: id.node, operation: value.operation as OperationName, scopes: value.scopes, replica: value.replica,
      firstRevision: parsed.firstRevision, firstCreatedMs: parsed.firstCreatedMs, receivedMs: nowMs,
      aliveForMs: Math.max(0, (value.aliveUntil?.getTime() ?? 0) - writtenMs),
      expiresInMs: (value.expires?.getTime() ?? 0) - writtenMs,
    }, nowMs);
  }

  private async watchLoop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        const from = this.lastRevision;
        const iter = await this.o.kv.watch(watchOptions(undefined, from));
        const stop = () => iter.stop();
        this.abort.signal.addEventListener("abort", stop, { once: true });
        // Like the state cache's watches: ended when its consumer died with its server (resumed
        // below), and its consumer deleted when it ends rather than left for nats.js's 5 minutes.
        const release = tendWatch(iter, {
          onGone: (reason) => this.o.logger.warn({ reason }, "shared queue watch lost its consumer; resuming"),
        });
        try {
          for await (const e of iter) {
            this.apply(e.key, e.operation, e.value, e.revision, e.created.getTime());
            this.lastRevision = Math.max(this.lastRevision, e.revision);
            if (e.isUpdate) this.loaded(); // the last of the entries there at start (then every later one)
          }
        } finally {
          release();
          this.abort.signal.removeEventListener("abort", stop);
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        this.o.logger.warn({ err: (err as Error).message }, "shared queue watch interrupted; resuming");
      }
      if (!this.abort.signal.aborted) await new Promise((r) => setTimeout(r, 250));
    }
  }
}
