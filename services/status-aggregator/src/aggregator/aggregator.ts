// The aggregator: state-plane changes in, one immutable StatusSnapshot (snapshot.ts) out per
// recomputation. The feed (state-feed.ts) fills the incremental status view, a debounce coalesces
// recomputations, and each flush makes a snapshot that holds the answers (the status encoded, node
// fields encoded once when first asked for) and the view's freshness; readers take current() (gRPC
// handlers, api/) or subscribe (the watch fan-out, watch-fan-out.ts, and the Update Status API
// writer, update-api/). Transitions become insight.changed facts (insight-events.ts). No network
// I/O here: the runnable connects it to NATS.
//
// Read path: state change → feed → view → flush → snapshot → current() / subscribers. Snapshots
// are also made for a freshness flip, refresh() and, time alone, tick() (every second).
//
// What keeps a watch event from becoming work, in order (named as controller-runtime names its
// cache transforms and event predicates):
//   1. Transform        watcher normalise (packages/normalize): only what services read is kept
//                       (heartbeat times and unread conditions dropped), as a cache.TransformFunc.
//   2. Predicate        StateWriter digest (packages/bus): a value whose digest equals what the
//                       bucket holds is not written (an UpdateFunc predicate on content, where
//                       ResourceVersionChangedPredicate would pass every heartbeat).
//   3. Transform +      StateCache projection keeps only what this service reads of a node
//      Predicate        (AGGREGATOR_PROJECTIONS); sameBytes drops a redelivered identical value.
//   4. Queue dedup      StatusView dirty keys: changes within a debounce window mark names in a
//                       set, so a node changed N times is evaluated once (the workqueue's dedup).
//   5. Predicate        sameRecord: a re-evaluated row equal to the old one is no change (no
//                       snapshot entry, no watcher message, no Update Status write).
// The snapshot then encodes only the rows stage 5 let through (once, when an answer first needs
// them); unchanged nodes' bytes are shared with the previous snapshot. That replaced a sixth stage, NodeFieldCache (encodings kept apart from
// the view, re-encoded when an answer next asked), with no measured cost in memory (see the heap bench).
import type { StateChange } from "@lockstep/bus";
import type { InsightChanged, ListEffectivePoliciesResponse, NodePreview, StateFreshness as StateFreshnessMessage } from "@lockstep/contracts";
import { type AlertsResponse, type HealthInsight, wallClockNow } from "@lockstep/insights";
import type { Freshness } from "@lockstep/runtime";
import { freshnessToProto } from "@lockstep/skeleton";
import type { Logger } from "pino";
import { effectivePoliciesToProto } from "../preview/policies.js";
import { previewOnView } from "../preview/on-view.js";
import type { PreviewTarget } from "../preview/preview.js";
import { DEFAULT_LEASE_SOURCES, type LeaseSources, nodeHolds } from "../view/lease-holds.js";
import { lockstepInsights } from "../view/lockstep-insights.js";
import { type FlushResult, StatusView } from "../view/status-view.js";
import { Debounce } from "./debounce.js";
import { InsightEvents, type PublishInsightChanged } from "./insight-events.js";
import { type Evaluated, type SnapshotCause, StatusSnapshot } from "./snapshot.js";
import { StateFeed } from "./state-feed.js";
import { WatchFanOut, type WatchListener } from "./watch-fan-out.js";

export { insightChangedId } from "./insight-events.js";
export { LOCKSTEP_OPERATOR } from "./state-feed.js";
export type { WatchListener } from "./watch-fan-out.js";
export { StatusSnapshot } from "./snapshot.js";

export interface AggregatorHooks {
  /** Publishes one insight.changed fact; rejections are logged and counted, never thrown. */
  publishInsightChanged?: (event: InsightChanged, id: string) => Promise<void>;
  /** Called after every flush that recomputed something (metrics). */
  onFlush?: (result: FlushResult, ms: number, nodes: number) => void;
  onPublished?: (ok: boolean) => void;
}

export interface AggregatorOptions {
  logger: Logger;
  /** "now" of every answer, Unix ns. Default: the wall clock (tests pass a fixed clock). */
  clock?: () => bigint;
  /** Changes arriving within this window are recomputed together. */
  debounceMs: number;
  /**
   * Minimum time between two WatchUpdateStatus change messages. Default: the debounce window, which
   * already spaces the flushes, so each flush's changes go out at once (50 ms here cost a p50 of
   * ~25 ms at a rollout's pace in the system bench, for messages that carry only what changed).
   */
  watchMinIntervalMs?: number;
  leaseSources?: LeaseSources;
  /** The shipped default NodeDisruptionPolicy manifests (used when the cluster has none). */
  shippedPolicies?: readonly unknown[];
  hooks?: AggregatorHooks;
  /** Most insight.changed publishes awaiting an ack at once (default 256); the rest queue. */
  publishMaxInFlight?: number;
  /** Attempts per insight.changed fact before it is given up (default 8, backoff 100 ms doubling to 5 s). */
  publishMaxAttempts?: number;
  publishBackoffMs?: number;
}

export class Aggregator {
  readonly view = new StatusView();
  private readonly clock: () => bigint;
  private readonly feed: StateFeed;
  private readonly debounce: Debounce;
  private readonly facts: InsightEvents;
  private readonly watchers: WatchFanOut;
  private snapshot: StatusSnapshot | undefined;
  private readonly subscribers = new Set<(s: StatusSnapshot) => void>();
  private isSynced = false;
  private freshnessOf: (() => Freshness) | undefined;
  private readonly insightSources = new Set<() => HealthInsight[]>();
  private alertsOf: (() => AlertsResponse | undefined) | undefined;

  constructor(private readonly o: AggregatorOptions) {
    this.clock = o.clock ?? wallClockNow;
    this.feed = new StateFeed(this.view, o.shippedPolicies);
    this.debounce = new Debounce(o.debounceMs, () => {
      try {
        this.flush();
      } catch (err) {
        o.logger.error({ err }, "status recomputation failed");
      }
    });
    this.facts = new InsightEvents({
      logger: o.logger,
      ...(o.hooks?.publishInsightChanged ? { fallback: o.hooks.publishInsightChanged } : {}),
      ...(o.hooks?.onPublished ? { onPublished: o.hooks.onPublished } : {}),
      maxInFlight: o.publishMaxInFlight,
      maxAttempts: o.publishMaxAttempts,
      backoffMs: o.publishBackoffMs,
    });
    this.watchers = new WatchFanOut(o.watchMinIntervalMs ?? o.debounceMs);
  }

  /** insight.changed facts not yet acknowledged (queued, in flight or waiting for a retry). */
  get publishBacklog(): number {
    return this.facts.backlog;
  }

  get synced(): boolean {
    return this.isSynced;
  }

  /**
   * The latest snapshot; undefined before the initial sync. Never recomputes the view. The view's
   * age moves with no event, and its turn to stale is noticed by a periodic check: an answer in
   * between must not call a stale view fresh, so a flip not yet noticed is taken now.
   */
  current(): StatusSnapshot | undefined {
    if (this.snapshot && this.freshnessOf && (this.freshnessNow()?.stale ?? false) !== (this.snapshot.freshness?.stale ?? false)) this.freshnessChanged();
    return this.snapshot;
  }

  /** Calls `listener` with every new snapshot after the initial sync (the Update Status API writer). */
  subscribe(listener: (s: StatusSnapshot) => void): () => void {
    this.subscribers.add(listener);
    return () => this.subscribers.delete(listener);
  }

  /** Applies one state-plane change; after the initial sync, schedules a coalesced flush. */
  apply(change: StateChange): void {
    if (this.feed.apply(change) && this.isSynced) this.debounce.schedule();
  }

  /** The initial load is complete (cache loaded and the watcher's meta.synced seen): baseline, no events. */
  markSynced(): void {
    this.flushInternal(false);
    this.isSynced = true;
  }

  /** Recomputes what changed now (tests and shutdown; normally the debounce calls it). */
  flush(): FlushResult {
    return this.flushInternal(true);
  }

  /** Resolves when every fact queued so far is acknowledged or given up. */
  async drain(): Promise<void> {
    await this.facts.drain();
  }

  /** Drops facts not yet sent (shutdown, after drain had its chance). */
  stopPublishing(): void {
    this.facts.stop();
  }

  stop(): void {
    this.debounce.cancel();
    this.watchers.stop();
  }

  private flushInternal(publish: boolean): FlushResult {
    this.debounce.cancel();
    const started = performance.now();
    const now = this.clock();
    const result = this.view.flush(now);
    const anything = result.changed.length + result.removed.length + result.pools.length > 0;
    if (anything || !this.snapshot) this.next("flush", now, result);
    const ms = performance.now() - started;
    if (anything) this.o.hooks?.onFlush?.(result, ms, this.view.nodeCount);
    // A transition's row changed in this flush, at `now` (its `since`); none for the baseline.
    if (publish) for (const t of result.transitions) this.facts.push(t, now);
    return result;
  }

  /** Builds the next snapshot from the view as of its last flush, and hands it to readers. */
  private next(cause: SnapshotCause, now: bigint, result: Pick<FlushResult, "changed" | "removed">): void {
    // The evaluation below would flush the view itself and take in changes waiting for the
    // debounce without reporting them (no watcher message, no fact): they go out as a flush first.
    if (cause !== "flush" && this.view.pending) this.flushInternal(true);
    this.snapshot = StatusSnapshot.next(this.snapshot, {
      cause,
      revision: this.view.revision,
      names: this.view.rowNames(),
      changed: result.changed,
      removed: result.removed,
      evaluated: this.evaluate(now),
      clusterVersion: this.view.clusterVersion,
      clusterOperators: this.view.clusterOperators,
      freshness: this.freshnessNow(),
    });
    this.publish(this.snapshot);
  }

  private publish(s: StatusSnapshot): void {
    this.watchers.publish(s);
    for (const l of this.subscribers) l(s);
  }

  private evaluate(now: bigint): Evaluated {
    try {
      const extra = this.extraInsights(now);
      return { evaluation: this.view.evaluation(now, wallClockNow(), extra, this.alertsOf?.()), extra };
    } catch (error) {
      return { error }; // not evaluable (no ClusterVersion yet: a StatusError), reported by each answer
    }
  }

  /** Where the age of the state plane view is read (the runnable's StateFreshness). */
  attachFreshness(read: () => Freshness): void {
    this.freshnessOf = read;
  }

  private freshnessNow(): StateFreshnessMessage | undefined {
    return this.freshnessOf ? freshnessToProto(this.freshnessOf()) : undefined;
  }

  /** The view turned stale or fresh again (the runnable's StateFreshness listener): a new snapshot at once. */
  freshnessChanged(): void {
    if (!this.isSynced || !this.snapshot) return;
    this.snapshot = this.snapshot.withFreshness(this.freshnessNow());
    this.publish(this.snapshot);
  }

  /** Sets where insight.changed facts go (the runnable, once connected to NATS). */
  attachPublisher(publish: PublishInsightChanged): void {
    this.facts.attach(publish);
  }

  /**
   * A new snapshot without a change of the view, for the watchers too: the extra insight sources
   * (alerts, the writer's mode) changed, or their periodic refresh.
   */
  refresh(): void {
    if (this.isSynced) this.next("refresh", this.clock(), { changed: [], removed: [] });
  }

  /**
   * A new snapshot because time moved (durations, lease holds, the view's age), for the answers
   * only: the runnable calls it every second, so an answer's "now" is at most that old.
   */
  tick(): void {
    if (this.isSynced) this.next("tick", this.clock(), { changed: [], removed: [] });
  }

  /**
   * Subscribes to changes; the first message is the full status (nodes included unless omitted),
   * later ones carry the status without nodes plus the node insights that changed.
   */
  watch(omitNodes: boolean, listener: WatchListener): () => void {
    return this.watchers.watch(omitNodes, listener);
  }

  get watcherCount(): number {
    return this.watchers.count;
  }

  private extraInsights(now: bigint): HealthInsight[] {
    const nowMs = Number(now / 1_000_000n);
    const own = lockstepInsights({
      holds: nodeHolds(this.feed.leases.values(), nowMs, this.o.leaseSources ?? DEFAULT_LEASE_SOURCES),
      record: (n) => this.view.nodeRecord(n)?.record,
      bootImagePolicy: this.feed.bootImagePolicy,
      lockstepOperator: this.feed.lockstepOperator,
    });
    for (const source of this.insightSources) own.push(...source());
    return own;
  }

  /** Adds Lockstep insights from another part of the process (read at each snapshot; call refresh() when they change). */
  addInsightSource(source: () => HealthInsight[]): () => void {
    this.insightSources.add(source);
    return () => this.insightSources.delete(source);
  }

  /** Where the firing alerts are read (alerts/poller.ts); none attached: alerts unavailable, as oc without access. */
  attachAlerts(read: () => AlertsResponse | undefined): void {
    this.alertsOf = read;
  }

  /** Previews read the view as of its last flush and the feed's MachineConfigs and policies. */
  preview(target: PreviewTarget, machineConfig: string): NodePreview[] {
    return previewOnView(this.view, this.feed.machineConfigs, this.feed.resolvedPolicies().rules, target, machineConfig);
  }

  effectivePolicies(): ListEffectivePoliciesResponse {
    return effectivePoliciesToProto(this.feed.resolvedPolicies());
  }
}
