// Keeps the state plane equal to the normalised API objects: one informer per watched resource,
// every event recomputes the key's desired snapshot, the StateWriter writes only what changed.
// After each complete list, keys of objects that no longer exist are deleted. `meta.synced` is
// written once every resource has listed (or been reported missing) and those writes landed.
//
// Every replica runs the informers and keeps each key's latest snapshot; only the elected leader
// writes (`lead`, one term at a time). Two writers would double the puts and, lagging each other,
// could put a node's older snapshot after a newer one; a follower that wins the election writes the
// difference between its snapshots and the bucket at once, with no relist.
import { encode, parseStateKey, stateKey, StateKinds, SyncMarker, type Codec, type StateKindName } from "@lockstep/contracts";
import { StateWriter, type JetStreamPublisher } from "@lockstep/bus";
import { Informer, metadataOnly, statusCode, type KubeConfigLike, type KubernetesObject } from "@lockstep/kube";
import type { KV } from "@nats-io/kv";
import { setMaxListeners } from "node:events";
import { abortedPromise } from "@lockstep/runtime";
import type { Logger } from "pino";
import type { WatcherMetrics } from "../metrics.js";
import { viewCurrentAsOf } from "./heartbeat.js";
import { SnapshotEncoder } from "./snapshot-encoder.js";
import { derivedKeyFor, keyFor, ownsDerivedKey, ownsKey, watchedResources, type Watched, type WatchSettings } from "./watched.js";

export interface StateSyncOptions extends WatchSettings {
  kc: KubeConfigLike;
  kv: KV;
  logger: Logger;
  metrics?: WatcherMetrics;
  /** Identity written into meta.synced. */
  identity: string;
  /** Puts through this publisher instead of the KV client (see StateWriterOptions.publisher). */
  publisher?: JetStreamPublisher;
  informer?: { minBackoffMs?: number; maxBackoffMs?: number; missingRetryMs?: number; watchTimeoutSeconds?: number; idleTimeoutMs?: number };
}

/** A key's latest snapshot as this replica's informers see it. */
interface Latest {
  bytes: Uint8Array;
  resourceVersion: string | undefined;
}

export class StateSync {
  /** The writer of the current term; undefined while this replica follows. */
  private termWriter: StateWriter | undefined;
  private readonly latest = new Map<string, Latest>();
  private readonly informers: Array<{ w: Watched; informer: Informer<KubernetesObject> }> = [];
  private readonly listed = new Set<string>();
  private readonly missing = new Set<string>();
  /**
   * Disruptors' objects (node signals) the watcher may not list (403): like a missing CRD they
   * neither hold back meta.synced nor make the heartbeat stale; looked for again with backoff.
   */
  private readonly forbidden = new Set<string>();
  /** One protobuf writer for every snapshot (snapshot-encoder.ts). */
  private readonly encoder = new SnapshotEncoder();
  private listedResolve!: () => void;
  /** Resolves once every resource has listed (or been reported missing): this replica's view is whole. */
  readonly listedAll = new Promise<void>((r) => (this.listedResolve = r));

  constructor(private readonly o: StateSyncOptions) {}

  /** The current term's writer (tests and benchmarks observe it); undefined while following. */
  get writer(): StateWriter | undefined {
    return this.termWriter;
  }

  /** Resolves once the current term's writes have landed (at once while following: nothing to land). */
  flushed(): Promise<void> {
    return this.termWriter?.flushed() ?? Promise.resolve();
  }

  /**
   * One term of leadership: reads what the bucket holds into a new writer, writes every
   * snapshot that differs and deletes what no listed resource has, writes meta.synced once the
   * lists are complete, then keeps the bucket equal until `term` aborts. `onSynced` is told when
   * meta.synced of this term has landed (the heartbeat may vouch from then on).
   */
  async lead(term: AbortSignal, onSynced?: () => void): Promise<void> {
    const m = this.o.metrics;
    const writer = new StateWriter(this.o.kv, {
      logger: this.o.logger,
      publisher: this.o.publisher,
      onWritten: (_key, op, since) => {
        m?.written.inc({ op });
        m?.lag.observe((Date.now() - since) / 1000);
      },
      onSuppressed: () => m?.suppressed.inc(),
      onStale: (_key, op) => m?.stale.inc({ op }),
      onError: () => m?.errors.inc({ resource: "kv", stage: "write" }),
    });
    this.termWriter = writer;
    try {
      // What the bucket holds now (another leader may have written since this replica last looked),
      // so unchanged objects are not rewritten, vanished ones are deleted, and each compare-and-set
      // expects the key's current revision.
      if (!(await this.resync(writer, term))) return;
      const now = Date.now();
      for (const [key, v] of this.latest) writer.set(key, v.bytes, now, v.resourceVersion);
      for (const { w, informer } of this.informers) if (this.listed.has(w.name)) this.sweep(w, informer);
      const listed = await Promise.race([this.listedAll.then(() => true), abortedPromise(term).then(() => false)]);
      if (listed && !term.aborted) {
        await this.writeSynced(writer, term);
        if (!term.aborted) onSynced?.();
      }
      await abortedPromise(term);
    } finally {
      // A deposed leader stops here: nothing pending is written after its term ended.
      writer.stop();
      if (this.termWriter === writer) this.termWriter = undefined;
    }
  }

  start(signal: AbortSignal): void {
    setMaxListeners(64, signal); // one abort listener per informer
    for (const w of watchedResources(this.o)) {
      const informer: Informer<KubernetesObject> = new Informer(this.o.kc, w.resource, {
        add: (obj) => this.apply(w, obj, "ADDED"),
        update: (obj) => this.apply(w, obj, "MODIFIED"),
        delete: (obj) => {
          this.o.metrics?.events.inc({ resource: w.name, type: "DELETED" });
          // The deleted object's resourceVersion: a newer object of that name in the bucket stays.
          const rv = obj.metadata?.resourceVersion;
          this.forget(keyFor(w, obj), Date.now(), rv);
          if (w.derived) this.forget(derivedKeyFor({ ...w, derived: w.derived }, obj as never), Date.now(), rv);
        },
        listed: ({ initial, count }) => {
          this.o.metrics?.relists.inc({ resource: w.name });
          this.sweep(w, informer);
          if (initial) this.o.logger.info({ resource: w.name, count }, "initial list applied");
          this.missing.delete(w.name);
          this.forbidden.delete(w.name);
          this.listed.add(w.name);
          this.maybeListedAll();
        },
        missing: () => {
          if (!this.missing.has(w.name)) this.o.logger.warn({ resource: w.name }, "resource not served by the API server; skipped");
          this.missing.add(w.name);
          this.maybeListedAll();
        },
        error: (err) => {
          this.o.metrics?.errors.inc({ resource: w.name, stage: "watch" });
          if (w.kind !== "nodeSignal" || statusCode(err) !== 403 || this.listed.has(w.name)) return;
          if (!this.forbidden.has(w.name)) this.o.logger.warn({ resource: w.name }, "not permitted to list a disruptor's objects; their node signals are skipped until permitted");
          this.forbidden.add(w.name);
          this.missing.add(w.name);
          this.maybeListedAll();
        },
      }, { namespace: w.namespace, fieldSelector: w.fieldSelector, logger: this.o.logger, keep: metadataOnly, ...this.o.informer });
      this.informers.push({ w, informer });
      informer.start(signal);
    }
  }

  /** Records a key's snapshot, and writes it while leading. */
  private remember(key: string, bytes: Uint8Array, since: number, resourceVersion: string | undefined): void {
    this.latest.set(key, { bytes, resourceVersion });
    this.termWriter?.set(key, bytes, since, resourceVersion);
  }

  /** Forgets a key (its object is gone or says nothing now), and deletes it while leading. */
  private forget(key: string, since = Date.now(), resourceVersion?: string): void {
    this.latest.delete(key);
    this.termWriter?.remove(key, since, resourceVersion);
  }

  private apply(w: Watched, obj: KubernetesObject, type: string): void {
    const since = Date.now();
    // Every write of this object's keys carries its version: no writer puts an older one back.
    const rv = obj.metadata?.resourceVersion;
    this.o.metrics?.events.inc({ resource: w.name, type });
    const key = keyFor(w, obj as never);
    const derivedKey = w.derived ? derivedKeyFor({ ...w, derived: w.derived }, obj as never) : undefined;
    let value: unknown;
    let bytes: Uint8Array | undefined;
    try {
      value = w.normalize(obj as never);
      // A value the wire type refuses (an int32 out of range) throws in encode: malformed too.
      bytes = value === undefined ? undefined : this.encoder.encode(StateKinds[w.kind].codec as Codec<unknown>, value);
    } catch (err) {
      // Bad data never stops the watcher: the object is reported and left out of the state plane.
      this.o.metrics?.errors.inc({ resource: w.name, stage: "normalize" });
      this.o.logger.warn({ resource: w.name, name: obj.metadata?.name, namespace: obj.metadata?.namespace, err: (err as Error).message }, "skipping malformed object");
      this.forget(key, since, rv);
      if (derivedKey !== undefined) this.forget(derivedKey, since, rv);
      return;
    }
    // No snapshot: the object signals nothing now (a Machine not being deleted).
    if (bytes === undefined) this.forget(key, since, rv);
    else this.remember(key, bytes, since, rv);
    if (w.derived && derivedKey !== undefined) this.applyDerived(w, w.derived, derivedKey, obj, value, since, rv);
  }

  private applyDerived(w: Watched, d: NonNullable<Watched["derived"]>, key: string, obj: KubernetesObject, primary: unknown, since: number, rv: string | undefined): void {
    try {
      const value = d.normalize(obj as never, primary);
      if (value === undefined) this.forget(key, since, rv);
      else this.remember(key, this.encoder.encode(StateKinds[d.kind].codec as Codec<unknown>, value), since, rv);
    } catch (err) {
      this.o.metrics?.errors.inc({ resource: w.name, stage: "normalize" });
      this.o.logger.warn({ resource: w.name, name: obj.metadata?.name, err: (err as Error).message }, "skipping malformed derived snapshot");
      this.forget(key, since, rv);
    }
  }

  /**
   * The oldest time up to which every informer's cache is current (undefined while one never was):
   * what the heartbeat vouches for.
   */
  currentAsOf(now = Date.now()): number | undefined {
    return viewCurrentAsOf(this.informers.filter(({ w }) => !this.forbidden.has(w.name)).map(({ informer }) => informer.currentAsOf(now)));
  }

  /** Watched resources whose informer has not been current since `since` (for logs). */
  behind(since: number, now = Date.now()): string[] {
    return this.informers.filter(({ w, informer }) => !this.forbidden.has(w.name) && (informer.currentAsOf(now) ?? -Infinity) < since).map(({ w }) => w.name);
  }

  /**
   * Deletes keys this resource owns whose objects are not in the informer's cache: from this
   * replica's snapshots, and from the bucket while leading (it may hold keys another leader wrote).
   */
  private sweep(w: Watched, informer: Informer<KubernetesObject>): void {
    const live = new Set(informer.list().map((o) => keyFor(w, o as never)));
    const derived = w.derived;
    const liveDerived = derived ? new Set(informer.list().map((o) => derivedKeyFor({ ...w, derived }, o as never))) : undefined;
    const keys = new Set(this.latest.keys());
    if (this.termWriter) for (const k of this.termWriter.keys()) keys.add(k);
    for (const key of keys) {
      const parsed = parseStateKey(key);
      if (!parsed) continue;
      if (ownsKey(w, parsed, this.o) && !live.has(key)) this.forget(key);
      else if (liveDerived && ownsDerivedKey(w, parsed) && !liveDerived.has(key)) this.forget(key);
    }
  }

  /** Reads the bucket into the term's writer, again every second while NATS cannot answer; false if the term ended first. */
  private async resync(writer: StateWriter, term: AbortSignal): Promise<boolean> {
    for (;;) {
      try {
        await writer.resync();
        return true;
      } catch (err) {
        if (term.aborted) return false;
        this.o.logger.warn({ err: (err as Error).message }, "cannot read the state bucket to start writing; retrying");
        await new Promise((r) => setTimeout(r, 1_000));
        if (term.aborted) return false;
      }
    }
  }

  private maybeListedAll(): void {
    const pending = this.informers.filter(({ w }) => !this.listed.has(w.name) && !this.missing.has(w.name));
    if (pending.length > 0 || this.informers.length === 0) return;
    this.listedResolve();
  }

  /** meta.synced for this term, once the term's writes of the complete lists have landed. */
  private async writeSynced(writer: StateWriter, term: AbortSignal): Promise<void> {
    await writer.flushed();
    if (term.aborted) return;
    const kinds = new Set<StateKindName>();
    const skipped = new Set<StateKindName>();
    for (const { w } of this.informers) (this.listed.has(w.name) ? kinds : skipped).add(w.kind);
    for (const k of kinds) skipped.delete(k);
    const marker = SyncMarker.fromPartial({ syncedAt: new Date(), writer: this.o.identity, kinds: [...kinds].sort(), skippedKinds: [...skipped].sort() });
    writer.set(stateKey("meta", "synced"), encode(SyncMarker, marker));
    await writer.flushed();
    if (!term.aborted) this.o.logger.info({ kinds: marker.kinds, skipped: marker.skippedKinds }, "state plane synced");
  }

}
