// Kubernetes Events (events.k8s.io/v1) on the objects Lockstep acts on, where `kubectl describe`,
// the console's Events tab and event exporters look. The folding and rate limits are event-fold.ts
// (pure); this is its I/O: one write at a time in the background, a flush tick for growing series,
// and nothing written while this replica is not the leader. `record` never throws and never waits:
// Events are a courtesy to humans, never a reason for a service to fail or slow down.
import type { Logger } from "pino";
import type { KubeConfigLike } from "./access.js";
import { statusCode } from "./errors.js";
import { EventFold, type EventNote, type EventWrite, type FoldOptions, type FoldStats, type ObjectRef } from "./event-fold.js";
import { KubeHttp } from "./http.js";
import { collectionPath, Resources } from "./resources.js";

export interface EventRecorderOptions {
  /** Or an existing KubeHttp. */
  kc?: KubeConfigLike;
  http?: KubeHttp;
  /** The service, e.g. `lease-coordinator`: reportingController is `lockstep.io/<service>`. */
  service: string;
  /** The pod's name (reportingInstance). */
  instance: string;
  /** Only the leader writes; observations on a follower are dropped (its leader records its own). */
  isLeader?: () => boolean;
  logger?: Logger;
  fold?: Partial<FoldOptions>;
  /** Wall clock (tests). */
  now?: () => number;
  /** Told of each API call made (metrics). */
  onWrite?(op: "create" | "patch", ok: boolean): void;
}

export interface RecorderStats extends FoldStats {
  /** API calls made (creates and patches sent). */
  writes: number;
  failed: number;
  /** Observations dropped because this replica was not the leader. */
  notLeader: number;
}

/** What a core is handed: record a fact about an object. */
export interface EventSink {
  record(note: EventNote): void;
}

/** A sink that records nothing (unit tests of cores, tools without Kubernetes). */
export const NO_EVENTS: EventSink = { record() {} };

const micro = (ms: number) => new Date(ms).toISOString().replace(/Z$/, "000Z");

const refOf = (r: ObjectRef) => ({ apiVersion: r.apiVersion, kind: r.kind, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}), ...(r.uid ? { uid: r.uid } : {}) });

export class EventRecorder implements EventSink {
  private readonly http: KubeHttp;
  private readonly fold: EventFold;
  private readonly now: () => number;
  private readonly controller: string;
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private readonly counts = { writes: 0, failed: 0, notLeader: 0 };

  constructor(private readonly o: EventRecorderOptions) {
    if (!o.http && !o.kc) throw new Error("EventRecorder: kc or http is required");
    this.http = o.http ?? new KubeHttp(o.kc!, 4);
    this.now = o.now ?? Date.now;
    this.fold = new EventFold(this.now(), o.fold);
    this.controller = `lockstep.io/${o.service}`;
  }

  record(note: EventNote): void {
    if (this.o.isLeader && !this.o.isLeader()) {
      this.counts.notLeader++;
      return;
    }
    const w = this.fold.observe(note, this.now());
    if (w) this.enqueue(w);
  }

  /** Writes the series that are due; the runnable calls it on a tick, tests call it directly. */
  flushDue(): void {
    if (this.o.isLeader && !this.o.isLeader()) return;
    for (const w of this.fold.due(this.now())) this.enqueue(w);
  }

  /** Resolves when every write handed out so far has been made (or has failed). */
  async settled(): Promise<void> {
    while (this.pending > 0) await this.chain;
  }

  stats(): RecorderStats {
    return { ...this.fold.stats, ...this.counts };
  }

  /** The flush tick, until `signal` aborts; then the last due series are written. */
  async run(signal: AbortSignal, tickMs = 1_000): Promise<void> {
    const timer = setInterval(() => this.flushDue(), tickMs);
    timer.unref();
    await new Promise<void>((resolve) => (signal.aborted ? resolve() : signal.addEventListener("abort", () => resolve(), { once: true })));
    clearInterval(timer);
    await this.settled();
  }

  private enqueue(w: EventWrite): void {
    this.pending++;
    this.chain = this.chain
      .then(() => this.write(w))
      .finally(() => void this.pending--);
  }

  private async write(w: EventWrite): Promise<void> {
    const path = collectionPath(Resources.event, w.namespace);
    this.counts.writes++;
    try {
      if (w.op === "create") {
        const n = w.note;
        const body = {
          apiVersion: Resources.event.apiVersion,
          kind: Resources.event.kind,
          metadata: { name: w.name, namespace: w.namespace },
          eventTime: micro(w.eventTimeMs),
          reportingController: this.controller,
          reportingInstance: this.o.instance,
          action: n.action,
          reason: n.reason,
          regarding: refOf(n.regarding),
          ...(n.related ? { related: refOf(n.related) } : {}),
          note: n.note,
          type: n.type,
        };
        await this.http.request("POST", path, { body });
      } else {
        const body = { series: { count: w.series.count, lastObservedTime: micro(w.series.lastObservedMs) } };
        await this.http.request("PATCH", `${path}/${encodeURIComponent(w.name)}`, { body, contentType: "application/merge-patch+json" });
      }
      this.o.onWrite?.(w.op, true);
    } catch (err) {
      this.counts.failed++;
      this.o.onWrite?.(w.op, false);
      // A create that failed, or a patch of an Event gone (its TTL): the next observation starts anew.
      if (w.op === "create" || statusCode(err) === 404) this.fold.forget(w.key);
      this.o.logger?.warn({ err: (err as Error).message, op: w.op, event: w.name, namespace: w.namespace }, "event recorder: write failed");
    }
  }
}
