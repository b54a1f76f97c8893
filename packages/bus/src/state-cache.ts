// In-memory view of the state plane (JetStream KV `lockstep-state-v1`). `ready` resolves once the
// initial values are loaded; afterwards every put and delete is applied in revision order and
// reported to listeners. If the watch ends (nats-server restart), it resumes from the last revision
// seen, so the cache converges with nothing lost.
//
// A consumer that reads a few fields of a large kind (nodes) declares a projection for it: the cache
// then keeps only what the projection returns (not the decoded value, not its bytes), and a put
// whose projection equals the one held updates the revision and tells no listener, so a consumer is
// not woken by changes to fields it never reads.
//
// The watcher's heartbeat (`heartbeat.watcher`) is not state: it is kept apart, never reported to
// change listeners (every consumer would otherwise re-evaluate everything every few seconds), and
// only its receipt time matters: `age()` is how old this consumer's view is (state-age.ts).
import type { KV, KvWatchEntry } from "@nats-io/kv";
import {
  decode,
  HEARTBEAT_KEY,
  InternTable,
  sameBytes,
  parseStateKey,
  stateKey,
  StateKinds,
  SYNCED_KEY,
  type ParsedStateKey,
  type StateKindName,
  type StateOf,
  type Heartbeat,
  type SyncMarker,
} from "@lockstep/contracts";
import type { Logger } from "pino";
import { plainEqual } from "./plain-equal.js";
import { monotonicNow, stateAge, type StateAge } from "./state-age.js";
import { tendWatch } from "./watch-liveness.js";
import { within } from "./within.js";
import { askAgainUntilAnswered } from "./ask-again.js";
import { deleteConsumer, pendingAtStart } from "./watch-consumer.js";
import { storedUpTo, watchOptions } from "./watch-start.js";

/** How long a resuming watch's consumer creation may go unanswered before it is asked again. */
const RESUME_REQUEST_MS = 2_500;
/** A resume's stream info is asked again this often while unanswered (ask-again.ts), so many times per round. */
const RESUME_ASK_EVERY_MS = 1_000;
const RESUME_ASKS = 10;

export interface StateEntry {
  key: string;
  parsed: ParsedStateKey;
  /** The decoded value, or its projection for a projected kind. */
  value: unknown;
  /** The value's bytes as stored; undefined for a projected kind (they are not kept). */
  bytes: Uint8Array | undefined;
  revision: number;
}

export interface StateChange {
  key: string;
  parsed: ParsedStateKey;
  op: "put" | "delete";
  /** As `get` returns it: the decoded value, or its projection for a projected kind. */
  value?: unknown;
  previous?: unknown;
  revision: number;
}

export type StateListener = (change: StateChange) => void;

/** Kinds a consumer may project (`meta` and `heartbeat` are read by the cache itself). */
export type ProjectableKind = Exclude<StateKindName, "meta" | "heartbeat">;

/** Per kind, what of a value the consumer keeps: plain data (compared with plainEqual). */
export type StateProjections = { [K in ProjectableKind]?: (value: StateOf<K>) => unknown };

/**
 * What the cache holds for kind K: the projection's result when K is projected, else the value.
 * Without projections (P = never) it is StateOf<K> even for a generic K, so a cache still fits
 * interfaces written against StateOf.
 */
export type CachedOf<P, K extends StateKindName> = [P] extends [never]
  ? StateOf<K>
  : K extends keyof P
    ? P[K] extends (value: never) => infer R
      ? R
      : StateOf<K>
    : StateOf<K>;

export interface StateCacheOptions<P extends StateProjections = never> {
  logger?: Logger;
  /** Watch only these kinds (default: all). Uses one watch per kind (no 2.10 multi-filter). */
  kinds?: StateKindName[];
  /**
   * Keep only this of each value of a kind. The function must be pure and return plain data
   * (primitives, arrays, plain objects, Dates); its result must not be mutated by the consumer.
   */
  project?: P;
  /** Monotonic clock in ms for the state age (tests); default performance.now. */
  now?: () => number;
  /** How often each watch's consumer is checked for besides when a server leaves (watch-liveness.ts); default 3 s. */
  watchCheckMs?: number;
}

export class StateCache<P extends StateProjections = never> {
  private readonly entries = new Map<string, StateEntry>();
  private readonly byKind = new Map<StateKindName, Map<string, StateEntry>>();
  private readonly listeners = new Set<StateListener>();
  private readonly abort = new AbortController();
  private lastRevision = new Map<string, number>();
  private readyResolve!: () => void;
  /** Resolves when the initial values of every watched filter are in. */
  readonly ready: Promise<void>;
  private isReady = false;
  private syncedMarker: SyncMarker | undefined;
  private readonly undecodable = new Set<string>();
  private readonly now: () => number;
  private startedAt: number;
  private heartbeatValue: Heartbeat | undefined;
  private heartbeatReceivedAt: number | undefined;
  private readonly heartbeatListeners = new Set<(h: Heartbeat) => void>();
  /** Shared by every value this cache decodes: the same short strings recur across thousands of them. */
  private readonly strings = new InternTable();

  constructor(private readonly kv: KV, private readonly o: StateCacheOptions<P> = {}) {
    this.ready = new Promise((r) => (this.readyResolve = r));
    this.now = o.now ?? monotonicNow;
    this.startedAt = this.now();
  }

  /** Starts the watches; resolves when the cache is ready. */
  async start(): Promise<void> {
    this.startedAt = this.now();
    const filters = this.o.kinds ? [...new Set([...this.o.kinds, "meta" as const, "heartbeat" as const])].map((k) => `${StateKinds[k].prefix}.>`) : [">"];
    let pending = filters.length;
    // One question for all first watches: entries stored before any of them began are not live.
    const stored = storedUpTo(this.kv);
    stored.catch(() => undefined); // each watch reports (and retries) its own failure
    for (const f of filters) {
      void this.watchLoop(f, stored, () => {
        if (--pending === 0) {
          this.isReady = true;
          this.readyResolve();
        }
      });
    }
    await this.ready;
  }

  stop(): void {
    this.abort.abort();
  }

  onChange(listener: StateListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get loaded(): boolean {
    return this.isReady;
  }

  /** The watcher's `meta.synced` marker, once it has written one. */
  get synced(): SyncMarker | undefined {
    return this.syncedMarker;
  }

  /**
   * Resolves once the cache is loaded and the watcher's `meta.synced` marker is present: consumers
   * act only after both (DESIGN.md, state plane).
   */
  async whenSynced(signal?: AbortSignal): Promise<SyncMarker> {
    await this.ready;
    if (this.syncedMarker) return this.syncedMarker;
    return new Promise<SyncMarker>((resolve, reject) => {
      const off = this.onChange((c) => {
        if (c.key === SYNCED_KEY && c.op === "put") {
          off();
          resolve(c.value as SyncMarker);
        }
      });
      signal?.addEventListener("abort", () => (off(), reject(signal.reason)), { once: true });
    });
  }

  /**
   * How old this consumer's view is: the time since the watcher's heartbeat was last received live,
   * or since start() when none was (a heartbeat loaded with the initial values does not count).
   */
  age(): StateAge {
    return stateAge(this.heartbeatReceivedAt, this.startedAt, this.now());
  }

  /** The last heartbeat value seen (loaded or live), for messages and logs. */
  get heartbeat(): Heartbeat | undefined {
    return this.heartbeatValue;
  }

  /** Called with every heartbeat received live. */
  onHeartbeat(listener: (h: Heartbeat) => void): () => void {
    this.heartbeatListeners.add(listener);
    return () => this.heartbeatListeners.delete(listener);
  }

  get<K extends StateKindName>(kind: K, name: string, namespace?: string): CachedOf<P, K> | undefined {
    return this.entries.get(stateKey(kind, name, namespace))?.value as CachedOf<P, K> | undefined;
  }

  getByKey(key: string): StateEntry | undefined {
    return this.entries.get(key);
  }

  list<K extends StateKindName>(kind: K): CachedOf<P, K>[] {
    const out: CachedOf<P, K>[] = [];
    for (const e of this.byKind.get(kind)?.values() ?? []) out.push(e.value as CachedOf<P, K>);
    return out;
  }

  keys(): IterableIterator<string> {
    return this.entries.keys();
  }

  get size(): number {
    return this.entries.size;
  }

  /** Keys whose value could not be decoded (reported, kept out of the cache). */
  get invalidKeys(): ReadonlySet<string> {
    return this.undecodable;
  }

  private async watchLoop(filter: string, firstStored: Promise<number> | undefined, onInitial: () => void): Promise<void> {
    let initialDone = false;
    const markInitial = () => {
      if (!initialDone) {
        initialDone = true;
        onInitial();
      }
    };
    // When this filter's last watch ended: a resume says how long the filter went unwatched.
    let lostAt: number | undefined;
    while (!this.abort.signal.aborted) {
      try {
        const from = this.lastRevision.get(filter);
        // A resume (after a dead server) does not wait out the 5 s request timeout while the stream's
        // leaders are elected: it asks for the stream's extent every second until one ask is answered
        // (ask-again.ts), and creates its consumer with a short bound, asked again (within.ts). Each
        // second saved is a second less of a stale view: the watcher's first heartbeat after the
        // election is replayed to a watch resumed after it, and only a later one counts as received.
        const bounded = <T>(p: Promise<T>, what: string, onLate?: (v: T) => void) => (from === undefined ? p : within(RESUME_REQUEST_MS, p, what, onLate));
        const extent = () => (from === undefined ? storedUpTo(this.kv) : askAgainUntilAnswered(() => storedUpTo(this.kv), RESUME_ASK_EVERY_MS, RESUME_ASKS));
        // Entries stored before the watch began (initial values, or a replay after a resume) are not live.
        const stored = await (firstStored ?? extent());
        firstStored = undefined;
        const iter = await bounded(this.kv.watch(watchOptions(filter, from)), "watch", (late) => {
          late.stop();
          deleteConsumer(late);
        });
        if (lostAt !== undefined) {
          this.o.logger?.info({ filter, unwatchedMs: Math.round(this.now() - lostAt) }, "state watch resumed");
          lostAt = undefined;
        }
        const stopOnAbort = () => iter.stop();
        this.abort.signal.addEventListener("abort", stopOnAbort, { once: true });
        // A watch whose server died (in a cluster) ends here and resumes from its last revision.
        const release = tendWatch(iter, {
          intervalMs: this.o.watchCheckMs,
          onGone: (reason) => this.o.logger?.warn({ filter, reason }, "state watch lost its consumer; resuming"),
        });
        try {
          // A resumed watch, or a filter with no values, has nothing "initial" to wait for.
          if (from !== undefined || stored === 0) markInitial();
          else void this.markIfEmpty(filter, iter, markInitial);
          for await (const e of iter) {
            this.apply(e, e.revision > stored);
            this.lastRevision.set(filter, e.revision);
            if (e.isUpdate) markInitial();
          }
        } finally {
          this.abort.signal.removeEventListener("abort", stopOnAbort);
          release();
        }
      } catch (err) {
        if (this.abort.signal.aborted) return;
        this.o.logger?.warn({ err, filter }, "state watch interrupted; resuming");
      }
      lostAt ??= this.now();
      if (!this.abort.signal.aborted) await new Promise((r) => setTimeout(r, 250));
    }
  }

  /**
   * Marks an empty filter's initial values as in. A filter with values needs no answer: the watch's
   * last initial entry says so (isUpdate). An empty one delivers nothing; the watch's consumer said
   * at its creation how much the filter held (watch-consumer.ts, pinned by watch-start.test.ts).
   */
  private async markIfEmpty(filter: string, iter: unknown, markInitial: () => void): Promise<void> {
    const pending = await pendingAtStart(iter);
    if (pending === 0) markInitial();
    else if (pending === undefined) this.o.logger?.error({ filter }, "cannot tell whether a state filter is empty: the KV library no longer says what its watch's consumer held");
  }

  private apply(e: KvWatchEntry, live: boolean): void {
    if (e.key === HEARTBEAT_KEY) return this.applyHeartbeat(e, live);
    const previous = this.entries.get(e.key);
    // A key seen before is not parsed again (an update of a node parses nothing).
    const parsed = previous?.parsed ?? parseStateKey(e.key);
    if (!parsed) return;
    if (e.operation === "DEL" || e.operation === "PURGE") {
      this.undecodable.delete(e.key);
      if (!previous) return;
      this.entries.delete(e.key);
      this.byKind.get(parsed.kind)?.delete(e.key);
      if (e.key === SYNCED_KEY) this.syncedMarker = undefined;
      this.emit({ key: e.key, parsed, op: "delete", previous: previous.value, revision: e.revision });
      return;
    }
    if (previous && previous.revision >= e.revision) return; // replay after resume
    if (previous?.bytes && sameBytes(previous.bytes, e.value)) {
      // Same snapshot rewritten (e.g. by a second watcher replica): nothing changed.
      previous.revision = e.revision;
      return;
    }
    const kind = StateKinds[parsed.kind];
    let value: unknown;
    try {
      value = decode(kind.codec as never, kind.typeName, e.value, this.strings);
    } catch (err) {
      this.undecodable.add(e.key);
      this.o.logger?.warn({ err, key: e.key }, "ignoring undecodable state value");
      return;
    }
    const project = (this.o.project as Record<string, ((v: unknown) => unknown) | undefined> | undefined)?.[parsed.kind];
    if (project) {
      try {
        value = project(value);
      } catch (err) {
        this.undecodable.add(e.key);
        this.o.logger?.warn({ err, key: e.key }, "ignoring state value its projection refused");
        return;
      }
      this.undecodable.delete(e.key);
      if (previous && plainEqual(previous.value, value)) {
        // Only fields this consumer never reads changed.
        previous.revision = e.revision;
        return;
      }
    }
    this.undecodable.delete(e.key);
    // A copy (Buffer#slice would not copy): the value is a view into the connection's read chunk
    // (tens of KiB), and one kept view keeps its whole chunk alive; over a rolling update that is
    // most chunks ever read. A projected kind keeps no bytes: its rewrites are judged by projection.
    // The watch entry's key is a slice of the message subject: a kept slice keeps the whole subject.
    const key = previous?.key ?? ownCopy(e.key);
    const entry: StateEntry = { key, parsed, value, bytes: project ? undefined : new Uint8Array(e.value), revision: e.revision };
    this.entries.set(key, entry);
    let kindMap = this.byKind.get(parsed.kind);
    if (!kindMap) this.byKind.set(parsed.kind, (kindMap = new Map()));
    kindMap.set(key, entry);
    if (e.key === SYNCED_KEY) this.syncedMarker = value as SyncMarker;
    this.emit({ key, parsed, op: "put", value, previous: previous?.value, revision: e.revision });
  }

  private applyHeartbeat(e: KvWatchEntry, live: boolean): void {
    if (e.operation === "DEL" || e.operation === "PURGE") {
      this.heartbeatValue = undefined;
      return;
    }
    let value: Heartbeat;
    try {
      value = decode(StateKinds.heartbeat.codec, StateKinds.heartbeat.typeName, e.value, this.strings);
    } catch (err) {
      this.o.logger?.warn({ err, key: e.key }, "ignoring undecodable state value");
      return;
    }
    this.heartbeatValue = value;
    if (!live) return;
    this.heartbeatReceivedAt = this.now();
    for (const l of this.heartbeatListeners) {
      try {
        l(value);
      } catch (err) {
        this.o.logger?.error({ err, key: e.key }, "state listener failed");
      }
    }
  }

  private emit(change: StateChange): void {
    for (const l of this.listeners) {
      try {
        l(change);
      } catch (err) {
        this.o.logger?.error({ err, key: change.key }, "state listener failed");
      }
    }
  }
}

/** A string of its own, not a slice or a concatenation holding on to a larger one. */
function ownCopy(s: string): string {
  return Buffer.from(s, "utf8").toString("utf8");
}
