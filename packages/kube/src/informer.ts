// A list+watch informer that never gives up. client-node 1.4's own informer stops for good on any
// non-410 error (kube-api.md §18.1); this one restarts after every error with capped exponential
// backoff, relists on 410, diffs a relist against its cache (so deletions missed while disconnected
// are reported), and reports a resource whose API is not served (missing CRD) instead of failing.
// A list or watch that goes silent (no event, no bookmark, no close: a hung connection) is declared
// hung after `idleTimeoutMs`, aborted and relisted; until then it stops counting as current.
//
// Lists and watches go over KubeHttp as plain JSON: no client-node module graph, no model
// deserialisation of every listed object.
import type { Logger } from "pino";
import type { KubeConfigLike } from "./access.js";
import { statusCode } from "./errors.js";
import { KubeHttp, type WatchHandle } from "./http.js";
import { collectionPath, type ResourceType } from "./resources.js";

export interface InformerHandlers<T extends KubernetesObject> {
  add?(obj: T): void;
  update?(obj: T, old: T): void;
  delete?(obj: T): void;
  /** After every complete list has been applied (the first one = initial sync). */
  listed?(info: { initial: boolean; count: number }): void;
  /** The API does not serve this resource (HTTP 404 on list). Retried slowly. */
  missing?(): void;
  /** Any list/watch error; the informer restarts by itself. */
  error?(err: unknown): void;
}

export interface InformerOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  logger?: Logger;
  /** Backoff after errors: starts here, doubles, capped at maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  /** Retry interval while the resource is not served. */
  missingRetryMs?: number;
  /** Server-side watch timeout; the watch is re-opened from the last resourceVersion. */
  watchTimeoutSeconds?: number;
  /**
   * How long a list or watch may bring nothing (no page, no event, no bookmark, no end) before it is
   * declared hung: the cache counts as current only up to its last sign of life, the request is
   * aborted and the resource relisted. A healthy watch ends at its server-side timeout (the API
   * server sends a bookmark shortly before), so this must exceed watchTimeoutSeconds. Default: the
   * watch timeout + 30 s.
   */
  idleTimeoutMs?: number;
  /**
   * What the cache keeps of each object (default: all of it). Handlers always get the whole object
   * as received; `list()`, `get()` and the `old`/deleted objects handed to handlers are what was kept.
   * A consumer that only needs identity keeps `metadataOnly` and saves most of the memory.
   */
  keep?: (obj: KubernetesObject) => KubernetesObject;
  /** Objects per list page (an expired continue token restarts the list). Default 500. */
  pageSize?: number;
}

/** What the informer needs of a Kubernetes object. */
export interface KubernetesObject {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; uid?: string; resourceVersion?: string };
}

/** Keeps apiVersion, kind and the identifying metadata only. */
export function metadataOnly(o: KubernetesObject): KubernetesObject {
  const m = o.metadata ?? {};
  return { apiVersion: o.apiVersion, kind: o.kind, metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion } };
}

const keyOf = (o: KubernetesObject) => `${o.metadata?.namespace ?? ""}/${o.metadata?.name ?? ""}`;

export class Informer<T extends KubernetesObject> {
  private readonly cache = new Map<string, T>();
  private resourceVersion = "";
  private stopped = true;
  private request: WatchHandle | undefined;
  private timer: NodeJS.Timeout | undefined;
  private backoffMs: number;
  private listedOnce = false;
  /** A watch is open: the cache is current now. */
  private watching = false;
  /** The resource is not served (404): its absence is current. */
  private missingNow = false;
  /** When the last open watch ended (the cache was current up to then). */
  private lastCurrentAt: number | undefined;
  /** Last sign of life of the list or watch in flight (its start, a page, its opening, an event). */
  private lastAlive = 0;
  /** A list or watch is in flight (the idle bound applies). */
  private busy = false;
  /** Each attempt's number: callbacks of an attempt declared hung are ignored. */
  private attempt = 0;
  /** Aborts the attempt in flight (its list pages and its watch's opening). */
  private attemptAbort: AbortController | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private readonly idleMs: number;
  private readonly http: KubeHttp;

  constructor(
    kc: KubeConfigLike,
    readonly resource: ResourceType,
    private readonly handlers: InformerHandlers<T>,
    private readonly o: InformerOptions = {},
  ) {
    this.http = new KubeHttp(kc, 4);
    this.backoffMs = o.minBackoffMs ?? 200;
    this.idleMs = o.idleTimeoutMs ?? (o.watchTimeoutSeconds ?? 300) * 1000 + 30_000;
  }

  get synced(): boolean {
    return this.listedOnce;
  }

  /**
   * The time (ms since the epoch) up to which this informer's cache is known to be current: now
   * while a watch is open (or the resource is reported not served), else when the last watch ended;
   * undefined before the first watch opened. A watch that keeps failing leaves it behind the clock,
   * which is what tells the watcher not to vouch for the state plane's freshness; so does an open
   * watch silent for longer than the idle bound (its last sign of life is then what is current).
   */
  currentAsOf(now = Date.now()): number | undefined {
    if (!this.stopped && this.watching) return now - this.lastAlive > this.idleMs ? this.lastAlive : now;
    if (!this.stopped && this.missingNow) return now;
    return this.lastCurrentAt;
  }

  list(): T[] {
    return [...this.cache.values()];
  }

  get(name: string, namespace = ""): T | undefined {
    return this.cache.get(`${namespace}/${name}`);
  }

  start(signal?: AbortSignal): void {
    if (!this.stopped) return;
    this.stopped = false;
    signal?.addEventListener("abort", () => this.stop(), { once: true });
    // Checked a few times per bound: a hung request is noticed within about 1.25 × the bound.
    this.watchdog = setInterval(() => this.checkIdle(Date.now()), Math.max(50, Math.min(this.idleMs / 4, 1_000)));
    this.watchdog.unref();
    void this.cycle();
  }

  stop(): void {
    if (this.watching) this.lastCurrentAt = Date.now();
    this.watching = false;
    this.stopped = true;
    clearTimeout(this.timer);
    clearInterval(this.watchdog);
    this.attemptAbort?.abort();
    this.request?.abort();
    this.request = undefined;
  }

  /** Declares the list or watch in flight hung once it has been silent past the idle bound. */
  private checkIdle(now: number): void {
    if (this.stopped || !this.busy || now - this.lastAlive <= this.idleMs) return;
    const silentMs = now - this.lastAlive;
    if (this.watching) this.lastCurrentAt = this.lastAlive;
    this.watching = false;
    this.missingNow = false; // a hung re-check of a missing resource proves nothing either
    this.busy = false;
    this.attempt++; // whatever the abandoned attempt still reports is ignored
    this.attemptAbort?.abort();
    this.request?.abort();
    this.request = undefined;
    // Events may have been held back anywhere on the way: start over from a list.
    this.resourceVersion = "";
    this.o.logger?.warn({ resource: this.resource.plural, silentMs, idleTimeoutMs: this.idleMs }, "watch silent past its idle bound; declared hung and relisting");
    this.handlers.error?.(new Error(`${this.resource.plural}: no event, bookmark or end for ${silentMs} ms (idle bound ${this.idleMs} ms); declared hung`));
    // The silence itself was the wait: try again soon, not after a growing backoff.
    this.schedule(this.o.minBackoffMs ?? 200);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.cycle(), ms);
  }

  private fail(err: unknown): void {
    if (this.stopped) return;
    const code = statusCode(err);
    this.missingNow = code === 404;
    if (code === 410) {
      // Our resourceVersion was compacted away: relist at once.
      this.resourceVersion = "";
      this.schedule(0);
      return;
    }
    if (code === 404) {
      this.handlers.missing?.();
      this.schedule(this.o.missingRetryMs ?? 30_000);
      return;
    }
    this.handlers.error?.(err);
    this.o.logger?.warn({ err: String((err as Error)?.message ?? err), resource: this.resource.plural, retryMs: this.backoffMs }, "informer error; restarting");
    const wait = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.o.maxBackoffMs ?? 30_000);
    this.schedule(wait);
  }

  private async cycle(): Promise<void> {
    if (this.stopped) return;
    const attempt = ++this.attempt;
    const abort = new AbortController();
    this.attemptAbort = abort;
    this.busy = true;
    this.lastAlive = Date.now();
    try {
      if (!this.resourceVersion) await this.relist(attempt, abort.signal);
      if (this.stopped || attempt !== this.attempt) return;
      await this.openWatch(attempt, abort.signal);
    } catch (err) {
      if (attempt !== this.attempt) return;
      this.busy = false;
      this.fail(err);
    }
  }

  private async relist(attempt: number, signal: AbortSignal): Promise<void> {
    // Paged, and each page applied as it arrives: a 10,000-node list in one response costs hundreds
    // of MB at its peak, and holding every page until the last one keeps all of its objects alive
    // long enough to reach V8's old generation. Deletions are known only once the list is complete.
    const seen = new Set<string>();
    let cont: string | undefined;
    let resourceVersion = "";
    do {
      const page = await this.http.request<{ items?: T[]; metadata?: { resourceVersion?: string; continue?: string } }>("GET", collectionPath(this.resource, this.o.namespace), {
        query: { fieldSelector: this.o.fieldSelector, labelSelector: this.o.labelSelector, limit: this.o.pageSize ?? 500, continue: cont },
        signal,
      });
      if (this.stopped || attempt !== this.attempt) return;
      this.lastAlive = Date.now();
      for (const item of page.items ?? []) {
        const obj = this.whole(item);
        seen.add(keyOf(obj));
        this.upsert(obj);
      }
      cont = page.metadata?.continue || undefined;
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    } while (cont);
    for (const [k, old] of this.cache) {
      if (!seen.has(k)) {
        this.cache.delete(k);
        this.handlers.delete?.(old);
      }
    }
    this.resourceVersion = resourceVersion;
    this.missingNow = false;
    const initial = !this.listedOnce;
    this.listedOnce = true;
    this.handlers.listed?.({ initial, count: this.cache.size });
  }

  /**
   * The object with its apiVersion and kind (lists carry none per item; watch events do). The object
   * was just parsed and is ours, so it is completed in place rather than copied for every event.
   */
  private whole(obj: T): T {
    if (obj === null || typeof obj !== "object") return { apiVersion: this.resource.apiVersion, kind: this.resource.kind } as T;
    if (obj.apiVersion === undefined) obj.apiVersion = this.resource.apiVersion;
    if (obj.kind === undefined) obj.kind = this.resource.kind;
    return obj;
  }

  private upsert(obj: T): void {
    const k = keyOf(obj);
    const old = this.cache.get(k);
    this.cache.set(k, (this.o.keep ? this.o.keep(obj) : obj) as T);
    if (!old) this.handlers.add?.(obj);
    else if (old.metadata?.resourceVersion !== obj.metadata?.resourceVersion) this.handlers.update?.(obj, old);
  }

  private async openWatch(attempt: number, signal: AbortSignal): Promise<void> {
    const query: Record<string, string | number | boolean> = {
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      timeoutSeconds: this.o.watchTimeoutSeconds ?? 300,
    };
    if (this.o.labelSelector) query.labelSelector = this.o.labelSelector;
    if (this.o.fieldSelector) query.fieldSelector = this.o.fieldSelector;
    let gone = false;
    const handle = await this.http.watch(
      collectionPath(this.resource, this.o.namespace),
      query,
      (type: string, obj: any) => {
        if (this.stopped || attempt !== this.attempt) return;
        this.lastAlive = Date.now(); // any event, a BOOKMARK included, is a sign of life
        if (type === "ERROR") {
          if (obj?.code === 410) gone = true;
          return;
        }
        if (type === "ADDED" || type === "MODIFIED") this.upsert(this.whole(obj));
        else if (type === "DELETED") {
          const k = keyOf(obj);
          const old = this.cache.get(k);
          this.cache.delete(k);
          if (old) this.handlers.delete?.({ ...old, ...obj });
        }
        if (obj?.metadata?.resourceVersion) this.resourceVersion = obj.metadata.resourceVersion;
        this.backoffMs = this.o.minBackoffMs ?? 200; // healthy again
      },
      (err: unknown) => {
        if (attempt !== this.attempt) return; // declared hung and replaced already
        this.request = undefined;
        if (this.watching) this.lastCurrentAt = Date.now();
        this.watching = false;
        this.busy = false;
        if (this.stopped) return;
        if (gone) {
          this.resourceVersion = "";
          this.schedule(0);
        } else if (err) this.fail(err);
        else this.schedule(100); // clean close (timeout): resume from the last resourceVersion, without a hot loop
      },
      signal,
    );
    // Stopped (or declared hung) while the watch was being opened: close it rather than leave it streaming.
    if (this.stopped || attempt !== this.attempt) handle.abort();
    else {
      this.request = handle;
      this.watching = true;
      this.lastAlive = Date.now();
    }
  }
}
