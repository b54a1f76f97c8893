// The pure core of the event recorder (event-recorder.ts does the I/O): which Kubernetes Event
// writes a stream of observations turns into. As client-go's events recorder does, an observation
// identical to one already written (same regarding/related object, type, reason, action, note) is
// folded into that Event's `series` (count, lastObservedTime) instead of creating a new object, and
// the series is patched at most once per `seriesFlushMs`. Writes are rate-limited per object and in
// all by token buckets (client-go's spam filter: a burst of 25 per object, then one per 5 minutes),
// so a rollout of thousands of nodes, or a webhook refusing the same update 200 times, costs a
// bounded number of writes. Time comes in as an argument: no clock, no I/O.

export interface ObjectRef {
  apiVersion: string;
  kind: string;
  name: string;
  /** Absent for cluster-scoped objects (their Events go to `clusterNamespace`). */
  namespace?: string;
  uid?: string;
}

export type EventType = "Normal" | "Warning";

/** One fact about one object, as a recorder is told it. */
export interface EventNote {
  regarding: ObjectRef;
  related?: ObjectRef;
  type: EventType;
  /** UpperCamelCase, machine-readable (e.g. `UpdateRefused`). */
  reason: string;
  /** What was done or refused (e.g. `Refuse`). */
  action: string;
  /** The human sentence; at most 1 KiB (longer is cut). */
  note: string;
}

export interface BucketOptions {
  burst: number;
  perSecond: number;
}

export interface FoldOptions {
  /** Writes per regarding object (client-go's spam filter: 25, then 1 per 300 s). */
  perObject: BucketOptions;
  /** Writes of the whole process. */
  overall: BucketOptions;
  /** How often a growing series is patched (client-go: every 6 minutes; shorter so `kubectl get events` is current). */
  seriesFlushMs: number;
  /** An observation this long after the last one starts a new Event (client-go: 6 minutes). */
  seriesExpiryMs: number;
  /** Series remembered at most (client-go: 4096); the least recently seen are forgotten first. */
  maxTracked: number;
  /** Namespace of Events about cluster-scoped objects (client-go: default). */
  clusterNamespace: string;
}

export const DEFAULT_FOLD_OPTIONS: FoldOptions = {
  perObject: { burst: 25, perSecond: 1 / 300 },
  overall: { burst: 50, perSecond: 5 },
  seriesFlushMs: 10_000,
  seriesExpiryMs: 6 * 60_000,
  maxTracked: 4096,
  clusterNamespace: "default",
};

export const MAX_NOTE_BYTES = 1024;

/** A token bucket (client-go's flowcontrol token bucket), on a caller's clock. */
export class TokenBucket {
  private tokens: number;
  private atMs: number;

  constructor(
    private readonly o: BucketOptions,
    nowMs: number,
  ) {
    this.tokens = o.burst;
    this.atMs = nowMs;
  }

  private refill(nowMs: number): void {
    if (nowMs > this.atMs) this.tokens = Math.min(this.o.burst, this.tokens + ((nowMs - this.atMs) / 1000) * this.o.perSecond);
    this.atMs = Math.max(this.atMs, nowMs);
  }

  /** Takes a token if there is one. */
  take(nowMs: number): boolean {
    this.refill(nowMs);
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  /** Whether a token could be taken now (without taking it). */
  has(nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens >= 1;
  }

  /** Full again: nothing is lost by forgetting it. */
  full(nowMs: number): boolean {
    this.refill(nowMs);
    return this.tokens >= this.o.burst;
  }
}

export interface SeriesState {
  count: number;
  lastObservedMs: number;
}

/** A write the recorder must make. */
export type EventWrite =
  | { op: "create"; key: string; namespace: string; name: string; note: EventNote; eventTimeMs: number }
  | { op: "patch"; key: string; namespace: string; name: string; series: SeriesState };

interface Tracked {
  namespace: string;
  /** Undefined until the create was handed out. */
  name: string | undefined;
  note: EventNote;
  count: number;
  /** The count last handed out for writing (1 after the create). */
  writtenCount: number;
  firstMs: number;
  lastObservedMs: number;
  lastWriteMs: number;
}

export interface FoldStats {
  observed: number;
  creates: number;
  patches: number;
  /** Creates refused by a rate limit (a later repeat tries again). */
  dropped: number;
}

const refKey = (r: ObjectRef | undefined) => (r ? `${r.apiVersion}/${r.kind}/${r.namespace ?? ""}/${r.name}/${r.uid ?? ""}` : "");

/** The identity of an Event: observations with the same key fold into one series. */
export function eventKey(n: EventNote): string {
  return JSON.stringify([refKey(n.regarding), refKey(n.related), n.type, n.reason, n.action, n.note]);
}

/** Cuts a note to at most `MAX_NOTE_BYTES` of UTF-8 (the API server refuses longer ones). */
export function clampNote(note: string): string {
  if (Buffer.byteLength(note) <= MAX_NOTE_BYTES) return note;
  let s = note.slice(0, MAX_NOTE_BYTES);
  while (Buffer.byteLength(s) > MAX_NOTE_BYTES - 3) s = s.slice(0, -1);
  return `${s}...`;
}

/** client-go's Event name: the object's name and the time in nanoseconds, in hex; `seq` keeps names in one millisecond apart. */
export function eventName(regardingName: string, nowMs: number, seq: number): string {
  return `${regardingName}.${(BigInt(Math.floor(nowMs)) * 1_000_000n + BigInt(seq % 1_000_000)).toString(16)}`;
}

export class EventFold {
  private readonly o: FoldOptions;
  private readonly tracked = new Map<string, Tracked>();
  private readonly perObject = new Map<string, TokenBucket>();
  private readonly overall: TokenBucket;
  private seq = 0;
  readonly stats: FoldStats = { observed: 0, creates: 0, patches: 0, dropped: 0 };

  constructor(nowMs: number, options: Partial<FoldOptions> = {}) {
    this.o = { ...DEFAULT_FOLD_OPTIONS, ...options };
    this.overall = new TokenBucket(this.o.overall, nowMs);
  }

  /** One observation: a create when it is new (and the limits allow it); repeats only count until `due`. */
  observe(input: EventNote, nowMs: number): EventWrite | undefined {
    this.stats.observed++;
    const note = { ...input, note: clampNote(input.note) };
    const key = eventKey(note);
    let t = this.tracked.get(key);
    if (t && t.name !== undefined && nowMs - t.lastObservedMs <= this.o.seriesExpiryMs) {
      t.count++;
      t.lastObservedMs = nowMs;
      this.touch(key, t);
      return undefined;
    }
    if (!this.take(note.regarding, nowMs)) {
      this.stats.dropped++;
      return undefined;
    }
    t = {
      namespace: note.regarding.namespace ?? this.o.clusterNamespace,
      name: eventName(note.regarding.name, nowMs, this.seq++),
      note,
      count: 1,
      writtenCount: 1,
      firstMs: nowMs,
      lastObservedMs: nowMs,
      lastWriteMs: nowMs,
    };
    this.touch(key, t);
    this.stats.creates++;
    return { op: "create", key, namespace: t.namespace, name: t.name!, note, eventTimeMs: nowMs };
  }

  /** The series patches due now (grown since their last write, flush interval passed, limits allow). */
  due(nowMs: number): EventWrite[] {
    const out: EventWrite[] = [];
    for (const [key, t] of this.tracked) {
      if (t.name === undefined || t.count === t.writtenCount || nowMs - t.lastWriteMs < this.o.seriesFlushMs) continue;
      if (!this.take(t.note.regarding, nowMs)) continue;
      t.writtenCount = t.count;
      t.lastWriteMs = nowMs;
      this.stats.patches++;
      out.push({ op: "patch", key, namespace: t.namespace, name: t.name, series: { count: t.count, lastObservedMs: t.lastObservedMs } });
    }
    this.prune(nowMs);
    return out;
  }

  /** The Event of `key` is gone (deleted by its TTL, or its create failed): the next observation creates anew. */
  forget(key: string): void {
    this.tracked.delete(key);
  }

  /** Series tracked now (for tests and metrics). */
  get size(): number {
    return this.tracked.size;
  }

  private take(regarding: ObjectRef, nowMs: number): boolean {
    const k = refKey(regarding);
    let b = this.perObject.get(k);
    if (!b) this.perObject.set(k, (b = new TokenBucket(this.o.perObject, nowMs)));
    // Both must have a token before either is spent, so a refusal by one costs the other nothing.
    if (!b.has(nowMs) || !this.overall.has(nowMs)) return false;
    b.take(nowMs);
    this.overall.take(nowMs);
    return true;
  }

  private touch(key: string, t: Tracked): void {
    this.tracked.delete(key);
    this.tracked.set(key, t);
    while (this.tracked.size > this.o.maxTracked) this.tracked.delete(this.tracked.keys().next().value!);
  }

  /** Forgets finished series (written out, not seen for `seriesExpiryMs`) and full buckets. */
  private prune(nowMs: number): void {
    for (const [key, t] of this.tracked) if (t.count === t.writtenCount && nowMs - t.lastObservedMs > this.o.seriesExpiryMs) this.tracked.delete(key);
    for (const [k, b] of this.perObject) if (b.full(nowMs)) this.perObject.delete(k);
  }
}
