// The aggregator: the one object the gRPC handlers (api/), the Update Status API writer and the
// runnable talk to. It composes parts with one job each: the feed (state-feed.ts) fills the
// incremental status view, a debounce coalesces recomputations, transitions become insight.changed
// facts (insight-events.ts), watchers get throttled messages (watch-fan-out.ts), node insights are
// kept encoded (proto/node-fields.ts); previews and effective policies read the view and the feed.
// No network I/O here: the runnable (runnable.ts) connects it to NATS.
import type { StateChange } from "@lockstep/bus";
import type {
  InsightChanged,
  ListEffectivePoliciesResponse,
  NodeInsight,
  NodePreview,
  StateFreshness as StateFreshnessMessage,
  UpdateStatus,
} from "@lockstep/contracts";
import { type AlertsResponse, type Details, type Evaluation, type HealthInsight, wallClockNow } from "@lockstep/insights";
import type { Freshness } from "@lockstep/runtime";
import type { Logger } from "pino";
import { effectivePoliciesToProto } from "../preview/policies.js";
import { previewOnView } from "../preview/on-view.js";
import type { PreviewTarget } from "../preview/preview.js";
import { encodeNodeField } from "../proto/fast-encode.js";
import { freshnessToProto } from "@lockstep/skeleton";
import { NodeFieldCache } from "../proto/node-fields.js";
import { nodeInsightToProto, updateStatusToProto } from "../proto/to-proto.js";
import { DEFAULT_LEASE_SOURCES, type LeaseSources, nodeHolds } from "../view/lease-holds.js";
import { lockstepInsights } from "../view/lockstep-insights.js";
import type { NodeKeys } from "../view/node-keys.js";
import { renderStatus } from "../view/render-status.js";
import { type FlushResult, StatusView } from "../view/status-view.js";
import { Debounce } from "./debounce.js";
import { InsightEvents, type PublishInsightChanged } from "./insight-events.js";
import { StateFeed } from "./state-feed.js";
import { WatchFanOut, type WatchListener } from "./watch-fan-out.js";

export { insightChangedId } from "./insight-events.js";
export { LOCKSTEP_OPERATOR } from "./state-feed.js";
export type { WatchListener } from "./watch-fan-out.js";

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
  /** Minimum time between two WatchUpdateStatus change messages (default 50 ms). */
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
  // Node insights are not kept as messages: they are built from the view's records when asked for
  // (nodeInsightToProto is a pure function of a record and its transition time). Only their
  // encodings are cached, for GetUpdateStatus.
  private readonly nodeFields = new NodeFieldCache();
  private isSynced = false;
  private freshnessOf: (() => Freshness) | undefined;
  private readonly flushListeners = new Set<(result: FlushResult) => void>();
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
    this.watchers = new WatchFanOut({ nodeInsight: (n) => this.nodeInsight(n), status: (omitNodes) => this.status(omitNodes), freshness: () => this.freshness() }, o.watchMinIntervalMs ?? 50);
  }

  /** insight.changed facts not yet acknowledged (queued, in flight or waiting for a retry). */
  get publishBacklog(): number {
    return this.facts.backlog;
  }

  get synced(): boolean {
    return this.isSynced;
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

  /** An answer never lags the state it was asked after: pending changes are recomputed first. */
  private catchUp(): void {
    if (this.view.pending) this.flushInternal(this.isSynced);
  }

  private flushInternal(publish: boolean): FlushResult {
    this.debounce.cancel();
    const started = performance.now();
    const now = this.clock();
    const result = this.view.flush(now);
    // Re-encoded when next asked for (removed nodes leave the view's row names).
    for (const { record } of result.changed) this.nodeFields.changed(record.name);
    const ms = performance.now() - started;
    const anything = result.changed.length + result.removed.length + result.pools.length > 0;
    if (anything) {
      this.o.hooks?.onFlush?.(result, ms, this.view.nodeCount);
      for (const l of this.flushListeners) l(result);
    }
    if (publish) {
      // A transition's row changed in this flush, at `now` (its `since`).
      for (const t of result.transitions) this.facts.push(t, now);
      if (anything) this.watchers.changed(result.changed, result.removed);
    }
    return result;
  }

  /** Calls `listener` after every recomputation that changed something (the Update Status API writer). */
  onFlushed(listener: (result: FlushResult) => void): () => void {
    this.flushListeners.add(listener);
    return () => this.flushListeners.delete(listener);
  }

  /** Where the age of the state plane view is read (the runnable's StateFreshness). */
  attachFreshness(read: () => Freshness): void {
    this.freshnessOf = read;
  }

  /** The view's age for answers; undefined before a source is attached. */
  freshness(): StateFreshnessMessage | undefined {
    return this.freshnessOf ? freshnessToProto(this.freshnessOf()) : undefined;
  }

  /** The view turned stale or fresh again (the runnable's StateFreshness listener): watchers hear it at once. */
  freshnessChanged(): void {
    if (this.isSynced) this.watchers.freshnessChanged();
  }

  /** Sets where insight.changed facts go (the runnable, once connected to NATS). */
  attachPublisher(publish: PublishInsightChanged): void {
    this.facts.attach(publish);
  }

  /** Every watcher gets a fresh status (durations move with time even when nothing changes). */
  refreshWatchers(): void {
    if (this.isSynced) this.watchers.changed([], []);
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

  private extraInsights(): HealthInsight[] {
    const nowMs = Number(this.clock() / 1_000_000n);
    const own = lockstepInsights({
      holds: nodeHolds(this.feed.leases.values(), nowMs, this.o.leaseSources ?? DEFAULT_LEASE_SOURCES),
      record: (n) => this.view.nodeRecord(n)?.record,
      bootImagePolicy: this.feed.bootImagePolicy,
      lockstepOperator: this.feed.lockstepOperator,
    });
    for (const source of this.insightSources) own.push(...source());
    return own;
  }

  /** Adds Lockstep insights from another part of the process (the Update Status API writer's mode). */
  addInsightSource(source: () => HealthInsight[]): () => void {
    this.insightSources.add(source);
    return () => this.insightSources.delete(source);
  }

  /** Where the firing alerts are read (alerts/poller.ts); none attached: alerts unavailable, as oc without access. */
  attachAlerts(read: () => AlertsResponse | undefined): void {
    this.alertsOf = read;
  }

  /** The evaluation at the clock's now, with Lockstep's insights. Throws StatusError when not evaluable. */
  evaluate(): { evaluation: Evaluation; extra: HealthInsight[] } {
    this.catchUp();
    const now = this.clock();
    const extra = this.extraInsights();
    return { evaluation: this.view.evaluation(now, wallClockNow(), extra, this.alertsOf?.()), extra };
  }

  status(omitNodes: boolean): UpdateStatus {
    const { evaluation, extra } = this.evaluate();
    return updateStatusToProto({ evaluation, extra: new Set(extra), nodes: omitNodes ? [] : this.nodeList(), revision: this.view.revision });
  }

  render(details: Details): string {
    const { evaluation, extra } = this.evaluate();
    return renderStatus(evaluation, extra, details);
  }

  /** Node insights in name order, built for this call. */
  nodeList(): NodeInsight[] {
    this.catchUp();
    return this.view.rowNames().map((n) => this.nodeInsight(n)!);
  }

  /** Names of the nodes shown, in name order (ListNodeInsights pages over these, see nodeKeys). */
  nodeNames(): readonly string[] {
    this.catchUp();
    return this.view.rowNames();
  }

  /** A node's pool and assessment without building its insight (names from nodeNames()). */
  readonly nodeKeys: NodeKeys<string> = {
    name: (n) => n,
    pool: (n) => this.view.nodeRecord(n)?.record.pool ?? "",
    assessment: (n) => this.view.nodeRecord(n)?.record.assessment,
  };

  /** A node's insight, built from its row as of the last flush. */
  nodeInsight(name: string): NodeInsight | undefined {
    const row = this.view.nodeRecord(name);
    return row && nodeInsightToProto(row.record, row.since);
  }

  /** The node insights (name order) as encoded `UpdateStatus.nodes` fields in one buffer; unchanged nodes are not re-encoded. */
  nodeFieldBytes(): Buffer {
    this.catchUp();
    return this.nodeFields.bytes(this.view.rowNames(), (n) => encodeNodeField(this.nodeInsight(n)!));
  }

  preview(target: PreviewTarget, machineConfig: string): NodePreview[] {
    this.catchUp();
    return previewOnView(this.view, this.feed.machineConfigs, this.feed.resolvedPolicies().rules, target, machineConfig);
  }

  effectivePolicies(): ListEffectivePoliciesResponse {
    return effectivePoliciesToProto(this.feed.resolvedPolicies());
  }
}
