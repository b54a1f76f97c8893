// Keeps the state plane equal to the normalised API objects: one informer per watched resource,
// every event recomputes the key's desired snapshot, the StateWriter writes only what changed.
// After each complete list, keys of objects that no longer exist are deleted. `meta.synced` is
// written once every resource has listed (or been reported missing) and those writes landed.
//
// Two replicas are safe without leader election: both compute the same snapshot from the same API
// objects and write identical bytes, which consumers ignore (StateCache drops identical rewrites).
import { encode, parseStateKey, stateKey, StateKinds, SyncMarker, type Codec, type StateKindName } from "@lockstep/contracts";
import { StateWriter, type JetStreamPublisher } from "@lockstep/bus";
import { Informer, metadataOnly, statusCode, type KubeConfigLike, type KubernetesObject } from "@lockstep/kube";
import type { KV } from "@nats-io/kv";
import { setMaxListeners } from "node:events";
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
  /** Keys present in the bucket at start (from a StateCache), so unchanged values are not rewritten. */
  existing?: Iterable<[key: string, bytes: Uint8Array, revision?: number]>;
  /** Puts through this publisher instead of the KV client (see StateWriterOptions.publisher). */
  publisher?: JetStreamPublisher;
  informer?: { minBackoffMs?: number; maxBackoffMs?: number; missingRetryMs?: number; watchTimeoutSeconds?: number };
}

export class StateSync {
  readonly writer: StateWriter;
  private readonly informers: Array<{ w: Watched; informer: Informer<KubernetesObject> }> = [];
  private readonly listed = new Set<string>();
  private readonly missing = new Set<string>();
  /**
   * Disruptors' objects (node signals) the watcher may not list (403): like a missing CRD they
   * neither hold back meta.synced nor make the heartbeat stale; looked for again with backoff.
   */
  private readonly forbidden = new Set<string>();
  private syncedWritten = false;
  /** One protobuf writer for every snapshot (snapshot-encoder.ts). */
  private readonly encoder = new SnapshotEncoder();
  private syncedResolve!: () => void;
  /** Resolves once meta.synced has been written. */
  readonly synced = new Promise<void>((r) => (this.syncedResolve = r));

  constructor(private readonly o: StateSyncOptions) {
    const m = o.metrics;
    this.writer = new StateWriter(o.kv, {
      logger: o.logger,
      publisher: o.publisher,
      onWritten: (_key, op, since) => {
        m?.written.inc({ op });
        m?.lag.observe((Date.now() - since) / 1000);
      },
      onSuppressed: () => m?.suppressed.inc(),
      onStale: (_key, op) => m?.stale.inc({ op }),
      onError: () => m?.errors.inc({ resource: "kv", stage: "write" }),
    });
    if (o.existing) this.writer.prime(o.existing);
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
          this.writer.remove(keyFor(w, obj), Date.now(), rv);
          if (w.derived) this.writer.remove(derivedKeyFor({ ...w, derived: w.derived }, obj as never), Date.now(), rv);
        },
        listed: ({ initial, count }) => {
          this.o.metrics?.relists.inc({ resource: w.name });
          this.sweep(w, informer);
          if (initial) this.o.logger.info({ resource: w.name, count }, "initial list applied");
          this.missing.delete(w.name);
          this.forbidden.delete(w.name);
          this.listed.add(w.name);
          void this.maybeSynced();
        },
        missing: () => {
          if (!this.missing.has(w.name)) this.o.logger.warn({ resource: w.name }, "resource not served by the API server; skipped");
          this.missing.add(w.name);
          void this.maybeSynced();
        },
        error: (err) => {
          this.o.metrics?.errors.inc({ resource: w.name, stage: "watch" });
          if (w.kind !== "nodeSignal" || statusCode(err) !== 403 || this.listed.has(w.name)) return;
          if (!this.forbidden.has(w.name)) this.o.logger.warn({ resource: w.name }, "not permitted to list a disruptor's objects; their node signals are skipped until permitted");
          this.forbidden.add(w.name);
          this.missing.add(w.name);
          void this.maybeSynced();
        },
      }, { namespace: w.namespace, fieldSelector: w.fieldSelector, logger: this.o.logger, keep: metadataOnly, ...this.o.informer });
      this.informers.push({ w, informer });
      informer.start(signal);
    }
    signal.addEventListener("abort", () => this.writer.stop(), { once: true });
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
      this.writer.remove(key, since, rv);
      if (derivedKey !== undefined) this.writer.remove(derivedKey, since, rv);
      return;
    }
    // No snapshot: the object signals nothing now (a Machine not being deleted).
    if (bytes === undefined) this.writer.remove(key, since, rv);
    else this.writer.set(key, bytes, since, rv);
    if (w.derived && derivedKey !== undefined) this.applyDerived(w, w.derived, derivedKey, obj, value, since, rv);
  }

  private applyDerived(w: Watched, d: NonNullable<Watched["derived"]>, key: string, obj: KubernetesObject, primary: unknown, since: number, rv: string | undefined): void {
    try {
      const value = d.normalize(obj as never, primary);
      if (value === undefined) this.writer.remove(key, since, rv);
      else this.writer.set(key, this.encoder.encode(StateKinds[d.kind].codec as Codec<unknown>, value), since, rv);
    } catch (err) {
      this.o.metrics?.errors.inc({ resource: w.name, stage: "normalize" });
      this.o.logger.warn({ resource: w.name, name: obj.metadata?.name, err: (err as Error).message }, "skipping malformed derived snapshot");
      this.writer.remove(key, since, rv);
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

  /** Deletes keys this resource owns whose objects are not in the informer's cache. */
  private sweep(w: Watched, informer: Informer<KubernetesObject>): void {
    const live = new Set(informer.list().map((o) => keyFor(w, o as never)));
    const derived = w.derived;
    const liveDerived = derived ? new Set(informer.list().map((o) => derivedKeyFor({ ...w, derived }, o as never))) : undefined;
    for (const key of this.writer.keys()) {
      const parsed = parseStateKey(key);
      if (!parsed) continue;
      if (ownsKey(w, parsed, this.o) && !live.has(key)) this.writer.remove(key);
      else if (liveDerived && ownsDerivedKey(w, parsed) && !liveDerived.has(key)) this.writer.remove(key);
    }
  }

  private async maybeSynced(): Promise<void> {
    if (this.syncedWritten) return;
    const pending = this.informers.filter(({ w }) => !this.listed.has(w.name) && !this.missing.has(w.name));
    if (pending.length > 0 || this.informers.length === 0) return;
    this.syncedWritten = true;
    await this.writer.flushed();
    const kinds = new Set<StateKindName>();
    const skipped = new Set<StateKindName>();
    for (const { w } of this.informers) (this.listed.has(w.name) ? kinds : skipped).add(w.kind);
    for (const k of kinds) skipped.delete(k);
    const marker = SyncMarker.fromPartial({ syncedAt: new Date(), writer: this.o.identity, kinds: [...kinds].sort(), skippedKinds: [...skipped].sort() });
    this.writer.set(stateKey("meta", "synced"), encode(SyncMarker, marker));
    await this.writer.flushed();
    this.o.logger.info({ kinds: marker.kinds, skipped: marker.skippedKinds }, "state plane synced");
    this.syncedResolve();
  }
}
