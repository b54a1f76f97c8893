// A controller: a side part of a state consumer that converges something (usually a Kubernetes
// status) from the consumer's view. It shares the consumer's connection, cache and freshness gate
// instead of keeping its own, so it never acts on a view older than STATE_MAX_AGE. The skeleton
// gives each controller one work queue: changes of its kinds enqueue keys, every key is enqueued
// after meta.synced, and reconcile runs only while the view is fresh (and, if `leaderOnly`, only on
// the leader); what was held is reconciled again once fresh (or on becoming leader).
import type { StateCache, StateChange, StateProjections } from "@lockstep/bus";
import type { StateKindName } from "@lockstep/contracts";
import { WorkQueue, type ReconcileResult } from "@lockstep/reconcile";
import { describeStaleness, observeWorkQueue, type Logger } from "@lockstep/runtime";
import { Histogram, type Registry } from "prom-client";
import type { LeaderGate } from "./leader.js";
import type { StatePlane } from "./plane.js";

/** What a reconcile is handed. `signal` aborts when the consumer stops. */
export interface ControllerContext<P extends StateProjections = never> {
  cache: StateCache<P>;
  signal: AbortSignal;
}

export interface Controller<P extends StateProjections = never> {
  /** Names its queue in logs and metrics. */
  name: string;
  /** The state kinds it reads; the consumer's cache loads them too. */
  kinds: readonly StateKindName[];
  /** The keys a change of one of its kinds makes due. Default: the one key `name` (a whole pass). */
  keysFor?(change: StateChange): Iterable<string>;
  /** Every key, reconciled after meta.synced, once fresh again and on becoming leader. Default: `name`. */
  allKeys?(cache: StateCache<P>): Iterable<string>;
  /** Only the leader reconciles (a writer). Without a leader gate this replica is the leader. */
  leaderOnly?: boolean;
  /**
   * A change makes its keys due this much later, so a burst of changes folds into one reconcile per
   * key. Default 0 (at once). Becoming fresh, leading or a resync is never delayed.
   */
  delayMs?: number;
  /** Every key again this often, changed or not (time-based conditions: schedules, terms). Default never. */
  resyncMs?: number;
  /** Keys reconciled at once (never the same key twice). Default 1. */
  concurrency?: number;
  /** This replica stopped leading (leaderOnly only): forget what only the leader keeps, such as metric series. */
  stepDown?(): void;
  /** A key held while the view is stale (it is reconciled once fresh): for a report, `why` says how stale. */
  held?(key: string, why: string): void;
  /** Converges one key; throw to retry with backoff. */
  reconcile(key: string, ctx: ControllerContext<P>): Promise<ReconcileResult> | ReconcileResult;
}

/** The kinds a cache must load for a consumer and its controllers. */
export function unionKinds(kinds: readonly StateKindName[], controllers: readonly Controller<any>[]): StateKindName[] {
  return [...new Set([...kinds, ...controllers.flatMap((c) => c.kinds)])];
}

export const CONTROLLER_RECONCILE_METRIC = "lockstep_controller_reconcile_duration_seconds";

/** One histogram per registry, labelled by controller (queue counters: observeWorkQueue). */
function reconcileDuration(registry: Registry): Histogram<"controller" | "outcome"> {
  const known = registry.getSingleMetric(CONTROLLER_RECONCILE_METRIC);
  if (known) return known as Histogram<"controller" | "outcome">;
  return new Histogram({
    name: CONTROLLER_RECONCILE_METRIC,
    help: "How long a controller's reconcile of one key took, by outcome (ok or error).",
    labelNames: ["controller", "outcome"],
    buckets: [0.001, 0.005, 0.025, 0.1, 0.5, 2.5, 10],
    registers: [registry],
  });
}

export interface ControllerRunnerOptions {
  logger: Logger;
  leader?: LeaderGate;
  /** Queue depth, adds, retries (lockstep_workqueue_*) and reconcile durations, labelled by controller. */
  registry?: Registry;
}

/** One controller's queue and gates, wired to a plane before its cache loads. */
export class ControllerRunner<P extends StateProjections = never> {
  private readonly queue: WorkQueue;
  /** Keys refused while stale, made due again once fresh. */
  private readonly held = new Set<string>();
  private readonly kinds: ReadonlySet<StateKindName>;
  private readonly logger: Logger;
  private readonly duration: Histogram<"controller" | "outcome"> | undefined;
  private synced = false;

  constructor(
    private readonly c: Controller<P>,
    private readonly plane: StatePlane<P>,
    private readonly o: ControllerRunnerOptions,
  ) {
    this.kinds = new Set(c.kinds);
    const logger = (this.logger = o.logger.child({ controller: c.name }));
    this.queue = new WorkQueue((key, signal) => this.reconcile(key, signal), {
      name: c.name,
      concurrency: c.concurrency,
      onError: (key, err, failures, retryInMs) => logger.warn({ key, err, failures, retryInMs }, "controller reconcile failed; retrying"),
      onTerminalError: (key, err) => logger.error({ key, err }, "controller reconcile failed terminally"),
    });
    if (o.registry) {
      observeWorkQueue(o.registry, this.queue);
      this.duration = reconcileDuration(o.registry);
    }
    const delay = c.delayMs ?? 0;
    plane.cache.onChange((change) => {
      if (!this.kinds.has(change.parsed.kind)) return;
      for (const key of c.keysFor ? c.keysFor(change) : [c.name]) this.queue.addAfter(key, delay);
    });
    plane.freshness.onChange((f) => f.fresh && this.release());
    if (c.leaderOnly) o.leader?.onChange((leading) => (leading ? this.release() : c.stepDown?.()));
  }

  /** After meta.synced: reconcile every key, then keep converging until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.synced = true;
    this.addAll();
    const resync = this.c.resyncMs ? setInterval(() => this.addAll(), this.c.resyncMs) : undefined;
    try {
      await this.queue.run(signal);
    } finally {
      clearInterval(resync);
    }
  }

  private release(): void {
    if (!this.synced) return;
    for (const key of this.held) this.queue.add(key);
    this.held.clear();
    this.addAll();
  }

  private addAll(): void {
    for (const key of this.c.allKeys ? this.c.allKeys(this.plane.cache) : [this.c.name]) this.queue.add(key);
  }

  private async reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> {
    // Not held: a new leader reconciles every key when its term begins.
    if (this.c.leaderOnly && this.o.leader && !this.o.leader.isLeader()) return;
    if (!this.plane.freshness.fresh) {
      this.held.add(key);
      // Makes sure the turn to stale is recorded, so the turn back to fresh is told and releases it.
      this.plane.freshness.check();
      this.logger.debug({ key }, "controller holds a key while the view is stale");
      this.c.held?.(key, describeStaleness(this.plane.freshness.current()));
      return;
    }
    const end = this.duration?.startTimer({ controller: this.c.name });
    try {
      const result = await this.c.reconcile(key, { cache: this.plane.cache, signal });
      end?.({ outcome: "ok" });
      return result;
    } catch (err) {
      end?.({ outcome: "error" });
      throw err;
    }
  }
}
