// The aggregator: the incremental status view fed from state-plane changes, coalesced flushes,
// insight.changed facts for row transitions, and the answers of UpdateStatusService and
// DisruptionService. No network I/O here: the runnable (runnable.ts) connects it to NATS, the
// gRPC handlers (api/) call it.
import { createHash } from "node:crypto";
import type { StateChange } from "@lockstep/bus";
import type {
  BootImagePolicyState,
  ClusterOperatorState,
  ClusterVersionState,
  InsightChanged,
  LeaseState,
  ListEffectivePoliciesResponse,
  MachineConfigState,
  NodeDisruptionPolicyState,
  NodeInsight,
  NodePreview,
  NodeState,
  PoolState,
  StateFreshness as StateFreshnessMessage,
  UpdateStatus,
  WatchUpdateStatusResponse,
} from "@lockstep/contracts";
import { type Details, type Evaluation, type HealthInsight, wallClockNow } from "@lockstep/insights";
import type { Logger } from "pino";
import type { Freshness } from "@lockstep/runtime";
import { encodeNodeField } from "./api/fast-encode.js";
import { freshnessToProto } from "./api/freshness.js";
import { NodeFieldCache } from "./api/node-fields.js";
import { nodeInsightToProto, updateStatusToProto } from "./api/to-proto.js";
import type { NodeKeys } from "./view/node-keys.js";
import { effectivePolicies, effectivePoliciesToProto } from "./preview/policies.js";
import { PublishQueue } from "./publish-queue.js";
import { type PreviewTarget, previewConfigChange } from "./preview/preview.js";
import { DEFAULT_LEASE_SOURCES, type LeaseSources, nodeHolds } from "./view/lease-holds.js";
import { lockstepInsights } from "./view/lockstep-insights.js";
import { renderStatus } from "./view/render-status.js";
import { type FlushResult, StatusView, type Transition } from "./view/status-view.js";

/** ClusterOperator written by the skew-enforcer; its Upgradeable=False blocks the next minor update. */
export const LOCKSTEP_OPERATOR = "lockstep";
const BOOT_IMAGE_POLICY = "cluster";

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
  /** Minimum time between two WatchUpdateStatus change messages (default 200 ms). */
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

/** A transition waiting to be published; the event is built when it is sent, not in the recompute. */
interface PendingFact {
  transition: Transition;
  /** The row's transition time (the insight is built from the record when the fact is sent). */
  since: bigint;
  /** When the transition was decided (ms); the fact's occurredAt however late it is sent. */
  at: number;
}

export type WatchListener = (message: WatchUpdateStatusResponse) => void;

/** Deterministic id: the same transition decided by the same inputs is one fact, whoever publishes it. */
export function insightChangedId(t: Transition): string {
  const h = createHash("sha256")
    .update([t.node, t.previousAssessment, t.previousPhase, t.record.assessment, t.record.phase, String(t.inputsRevision)].join("\u0000"))
    .digest("hex");
  return `insight.changed.${h.slice(0, 32)}`;
}

export class Aggregator {
  readonly view = new StatusView();
  private readonly clock: () => bigint;
  private readonly leases = new Map<string, LeaseState>();
  private readonly machineConfigs = new Map<string, MachineConfigState>();
  private readonly policies = new Map<string, NodeDisruptionPolicyState>();
  private bootImagePolicy: BootImagePolicyState | undefined;
  private lockstepOperator: ClusterOperatorState | undefined;
  // Node insights are not kept as messages: they are built from the view's records when asked for
  // (nodeInsightToProto is a pure function of a record and its transition time). Only their
  // encodings are cached, for GetUpdateStatus.
  private readonly nodeFields = new NodeFieldCache();
  private readonly watchers = new Set<{ listener: WatchListener; omitNodes: boolean }>();
  private timer: NodeJS.Timeout | undefined;
  private isSynced = false;
  private publisher: ((event: InsightChanged, id: string) => Promise<void>) | undefined;
  private freshnessOf: (() => Freshness) | undefined;
  private readonly facts: PublishQueue<PendingFact>;
  /** Nodes whose insight changed since the last watch message (built from the view when sent). */
  private readonly pendingChanged = new Set<string>();
  private readonly pendingRemoved = new Set<string>();
  private notifyTimer: NodeJS.Timeout | undefined;
  private lastNotify = 0;
  private readonly flushListeners = new Set<(result: FlushResult) => void>();
  private readonly insightSources = new Set<() => HealthInsight[]>();

  constructor(private readonly o: AggregatorOptions) {
    this.clock = o.clock ?? wallClockNow;
    this.facts = new PublishQueue<PendingFact>({
      send: (f) => this.sendFact(f),
      maxInFlight: o.publishMaxInFlight,
      maxAttempts: o.publishMaxAttempts,
      backoffMs: o.publishBackoffMs,
      onRetry: (f, err, attempt) => this.o.logger.debug({ err, node: f.transition.node, attempt }, "insight.changed publish failed; retrying"),
      onSettled: (f, ok, err, attempts) => {
        this.o.hooks?.onPublished?.(ok);
        if (!ok) this.o.logger.warn({ err, node: f.transition.node, attempts }, "insight.changed publish failed; giving up");
      },
    });
  }

  /** insight.changed facts not yet acknowledged (queued, in flight or waiting for a retry). */
  get publishBacklog(): number {
    return this.facts.pending;
  }

  get synced(): boolean {
    return this.isSynced;
  }

  /** Applies one state-plane change; after the initial sync, schedules a coalesced flush. */
  apply(change: StateChange): void {
    const { kind, name } = change.parsed;
    const rev = change.revision;
    switch (kind) {
      case "node":
        this.view.setNode(name, change.op === "put" ? (change.value as NodeState) : undefined, rev);
        break;
      case "pool":
        this.view.setPool(name, change.op === "put" ? (change.value as PoolState) : undefined, rev);
        break;
      case "machineConfig": {
        const s = change.op === "put" ? (change.value as MachineConfigState) : undefined;
        if (s) this.machineConfigs.set(name, s);
        else this.machineConfigs.delete(name);
        this.view.setMachineConfig(name, s, rev);
        break;
      }
      case "clusterVersion":
        this.view.setClusterVersion(change.op === "put" ? (change.value as ClusterVersionState) : undefined, rev);
        break;
      case "clusterOperator": {
        const s = change.op === "put" ? (change.value as ClusterOperatorState) : undefined;
        this.view.setClusterOperator(name, s);
        if (name === LOCKSTEP_OPERATOR) this.lockstepOperator = s;
        break;
      }
      case "lease":
        if (change.op === "put") this.leases.set(change.key, change.value as LeaseState);
        else this.leases.delete(change.key);
        break;
      case "bootImagePolicy":
        if (name === BOOT_IMAGE_POLICY) this.bootImagePolicy = change.op === "put" ? (change.value as BootImagePolicyState) : undefined;
        break;
      case "nodeDisruptionPolicy":
        if (change.op === "put") this.policies.set(name, change.value as NodeDisruptionPolicyState);
        else this.policies.delete(name);
        break;
      default:
        return;
    }
    if (this.isSynced) this.schedule();
  }

  /** The initial load is complete (cache loaded and the watcher's meta.synced seen): baseline, no events. */
  markSynced(): void {
    this.flushInternal(false);
    this.isSynced = true;
  }

  /** Recomputes what changed now (tests and shutdown; normally the debounce timer calls it). */
  flush(): FlushResult {
    return this.flushInternal(true);
  }

  /** Resolves when every fact queued so far is acknowledged or given up. */
  async drain(): Promise<void> {
    await this.facts.idle();
  }

  /** Drops facts not yet sent (shutdown, after drain had its chance). */
  stopPublishing(): void {
    this.facts.stop();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    this.timer = undefined;
    this.notifyTimer = undefined;
  }

  /** An answer never lags the state it was asked after: pending changes are recomputed first. */
  private catchUp(): void {
    if (this.view.pending) this.flushInternal(this.isSynced);
  }

  private schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      try {
        this.flush();
      } catch (err) {
        this.o.logger.error({ err }, "status recomputation failed");
      }
    }, this.o.debounceMs);
  }

  private flushInternal(publish: boolean): FlushResult {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    const started = performance.now();
    const now = this.clock();
    const result = this.view.flush(now);
    // Re-encoded when next asked for (removed nodes leave the view's row names).
    for (const { record } of result.changed) this.nodeFields.changed(record.name);
    const ms = performance.now() - started;
    if (result.changed.length + result.removed.length + result.pools.length > 0) {
      this.o.hooks?.onFlush?.(result, ms, this.view.nodeCount);
      for (const l of this.flushListeners) l(result);
    }
    if (publish) {
      // A transition's row changed in this flush, at `now` (its `since`).
      for (const t of result.transitions) this.publishTransition(t, now);
      if (result.changed.length > 0 || result.removed.length > 0 || result.pools.length > 0) this.notify(result.changed, result.removed);
    }
    return result;
  }

  /** Calls `listener` after every recomputation that changed something (the Update Status API writer). */
  onFlushed(listener: (result: FlushResult) => void): () => void {
    this.flushListeners.add(listener);
    return () => this.flushListeners.delete(listener);
  }

  /** Sets where insight.changed facts go (the runnable, once connected to NATS). */
  /** Where the age of the state plane view is read (the runnable's StateFreshness). */
  attachFreshness(read: () => Freshness): void {
    this.freshnessOf = read;
  }

  /** The view's age for answers; undefined before a source is attached. */
  freshness(): StateFreshnessMessage | undefined {
    return this.freshnessOf ? freshnessToProto(this.freshnessOf()) : undefined;
  }

  attachPublisher(publish: (event: InsightChanged, id: string) => Promise<void>): void {
    this.publisher = publish;
  }

  private publishTransition(t: Transition, since: bigint): void {
    if (!this.publisher && !this.o.hooks?.publishInsightChanged) return;
    this.facts.push({ transition: t, since, at: Date.now() });
  }

  private sendFact({ transition: t, since, at }: PendingFact): Promise<void> {
    const publish = this.publisher ?? this.o.hooks?.publishInsightChanged;
    if (!publish) return Promise.resolve();
    const id = insightChangedId(t);
    const event: InsightChanged = {
      meta: { id, occurredAt: new Date(at), source: "", object: { group: "", version: "v1", kind: "Node", namespace: "", name: t.node, uid: "" }, correlationId: "" },
      node: t.node,
      pool: t.pool,
      previousAssessment: t.previousAssessment,
      previousPhase: t.previousPhase,
      insight: nodeInsightToProto(t.record, since),
    };
    return publish(event, id);
  }

  /**
   * Watchers get at most one message per watchMinIntervalMs: changes in between are merged (the
   * latest insight per node), so a burst costs one status computation, not one per flush.
   */
  private notify(changed: ReadonlyArray<{ record: { name: string } }>, removed: string[]): void {
    if (this.watchers.size === 0) return;
    for (const { record } of changed) {
      this.pendingChanged.add(record.name);
      this.pendingRemoved.delete(record.name);
    }
    for (const r of removed) {
      this.pendingRemoved.add(r);
      this.pendingChanged.delete(r);
    }
    const wait = this.lastNotify + (this.o.watchMinIntervalMs ?? 50) - Date.now();
    if (wait <= 0) this.sendNotify();
    else if (!this.notifyTimer) {
      this.notifyTimer = setTimeout(() => {
        this.notifyTimer = undefined;
        this.sendNotify();
      }, wait);
    }
  }

  private sendNotify(): void {
    this.lastNotify = Date.now();
    // Built before status() below, which may flush: these are the rows as of the flushes that
    // queued them (their newest), as the view holds them now.
    const changedNodes: NodeInsight[] = [];
    for (const name of this.pendingChanged) {
      const row = this.view.nodeRecord(name);
      if (row) changedNodes.push(nodeInsightToProto(row.record, row.since));
    }
    const removed = [...this.pendingRemoved];
    this.pendingChanged.clear();
    this.pendingRemoved.clear();
    let status: UpdateStatus | undefined;
    try {
      status = this.status(true);
    } catch {
      status = undefined; // not evaluable yet (no ClusterVersion): send the node changes alone
    }
    for (const w of this.watchers) w.listener({ status, changedNodes, removedNodes: removed });
  }

  /** Every watcher gets a fresh status (durations move with time even when nothing changes). */
  refreshWatchers(): void {
    if (this.watchers.size > 0 && this.isSynced) this.notify([], []);
  }

  /**
   * Subscribes to changes; the first message is the full status (nodes included unless omitted),
   * later ones carry the status without nodes plus the node insights that changed.
   */
  watch(omitNodes: boolean, listener: WatchListener): () => void {
    const w = { listener, omitNodes };
    let status: UpdateStatus | undefined;
    try {
      status = this.status(omitNodes);
    } catch {
      status = undefined;
    }
    listener({ status, changedNodes: [], removedNodes: [] });
    this.watchers.add(w);
    return () => this.watchers.delete(w);
  }

  get watcherCount(): number {
    return this.watchers.size;
  }

  private extraInsights(): HealthInsight[] {
    const nowMs = Number(this.clock() / 1_000_000n);
    const own = lockstepInsights({
      holds: nodeHolds(this.leases.values(), nowMs, this.o.leaseSources ?? DEFAULT_LEASE_SOURCES),
      record: (n) => this.view.nodeRecord(n)?.record,
      bootImagePolicy: this.bootImagePolicy,
      lockstepOperator: this.lockstepOperator,
    });
    for (const source of this.insightSources) own.push(...source());
    return own;
  }

  /** Adds Lockstep insights from another part of the process (the Update Status API writer's mode). */
  addInsightSource(source: () => HealthInsight[]): () => void {
    this.insightSources.add(source);
    return () => this.insightSources.delete(source);
  }

  /** The evaluation at the clock's now, with Lockstep's insights. Throws StatusError when not evaluable. */
  evaluate(): { evaluation: Evaluation; extra: HealthInsight[] } {
    this.catchUp();
    const now = this.clock();
    const extra = this.extraInsights();
    return { evaluation: this.view.evaluation(now, wallClockNow(), extra), extra };
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
    const rules = this.resolvedPolicies().rules;
    return previewConfigChange(
      {
        node: (n) => this.view.nodeState(n),
        poolNodes: (p) => (this.view.poolSummary(p) ? this.view.poolNodeNames(p) : undefined),
        poolOf: (n) => this.view.nodeRecord(n)?.record.pool ?? "",
        machineConfig: (n) => this.machineConfigs.get(n),
        rules,
      },
      target,
      machineConfig,
    );
  }

  effectivePolicies(): ListEffectivePoliciesResponse {
    return effectivePoliciesToProto(this.resolvedPolicies());
  }

  private resolvedPolicies() {
    return effectivePolicies([...this.policies.values()], this.o.shippedPolicies ?? []);
  }
}
