// The skew-enforcer as a Runnable: rebuild the view from the state plane, and on every relevant
// change reconcile the single key "cluster": evaluate the pure rules, converge ClusterOperator
// `lockstep`, publish the facts that became due.
import type { KubeConfigLike } from "@lockstep/kube";
import { closeBus, connectBus, ensureEventStream, ensureStateBucket, StateCache, type BusConnectionOptions } from "@lockstep/bus";
import type { BootImagesState, Condition, MachineSetState, StateKindName } from "@lockstep/contracts";
import { WorkQueue, type ReconcileResult } from "@lockstep/reconcile";
import { describeStaleSince, observeWorkQueue, StateFreshness, type Readiness, type Runnable } from "@lockstep/runtime";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { statusFingerprint } from "./cluster-operator-status.js";
import { ClusterOperatorWriter } from "./cluster-operator-writer.js";
import { FactLog } from "./fact-log.js";
import { dueFacts } from "./facts.js";
import { skewMetrics, type SkewMetrics } from "./metrics.js";
import {
  CLUSTER_OPERATOR_NAME,
  clusterOperatorStatusChanged,
  desiredClusterOperatorStatus,
  evaluateSkew,
  holdAllButUpgradeable,
  staleEvaluation,
  type ClusterOperatorStatus,
  NodeTally,
  type RelatedObject,
  type SkewNode,
  type SkewEvaluation,
  type SkewSettings,
} from "@lockstep/skew-rules";
import { bootImagesOf, machineSetOf, SKEW_PROJECTIONS, skewInputs, WATCHED_KINDS, type ViewSettings } from "./view.js";

export { skewServiceImpl, type SkewQueries } from "./grpc.js";
export { skewEnforcerConfigSchema, skewSettingsFromConfig, type SkewEnforcerConfig } from "./config.js";

/** The one reconcile key: the verdict is about the whole cluster. */
export const CLUSTER_KEY = "cluster";
/** Degraded reason when our status writes keep being undone. */
export const REASON_HOT_LOOP = "StatusWriteHotLoop";

export interface SkewEnforcerOptions {
  kc: KubeConfigLike;
  bus: BusConnectionOptions;
  logger: Logger;
  settings: SkewSettings;
  /** Namespace Lockstep runs in (a related object of the ClusterOperator). */
  namespace: string;
  /** Lockstep's version, reported as operand `operator`. */
  operatorVersion: string;
  registry?: Registry;
  readiness?: Readiness;
  /** Re-evaluate this often without changes (ms). Default 10 minutes. */
  resyncMs?: number;
  /** How long a change waits so that a burst of changes costs one evaluation (default 250 ms). */
  evaluateDelayMs?: number;
  bootImagesNamespace?: string;
  bootImagesName?: string;
  /** How old the state plane may be before the enforcer fails closed (STATE_MAX_AGE). Default 15 s. */
  stateMaxAgeMs?: number;
  /** Event source name. Default "skew-enforcer". */
  source?: string;
  now?: () => Date;
}

export class NotSyncedError extends Error {
  constructor() {
    super("the skew-enforcer has not yet loaded the state plane (waiting for the watcher's meta.synced)");
    this.name = "NotSyncedError";
  }
}

export class SkewEnforcer {
  readonly queue: WorkQueue;
  private readonly view: ViewSettings;
  private readonly metrics: SkewMetrics | undefined;
  private readonly writer: ClusterOperatorWriter;
  private readonly now: () => Date;
  private cache: StateCache<typeof SKEW_PROJECTIONS> | undefined;
  /** Nodes counted per pool and progress, kept current from the cache's changes. */
  private tally = new NodeTally();
  private facts: FactLog | undefined;
  private factsLoaded = false;
  /** Related objects as last read or written (the state plane does not carry them). */
  private knownRelated: readonly RelatedObject[] | undefined;
  /** A refused (hot-loop) status: kept Degraded until the status Lockstep wants changes. */
  private hotLoop: { baseFingerprint: string; message: string } | undefined;
  private lastBaseFingerprint = "";
  private freshness: StateFreshness | undefined;

  constructor(private readonly o: SkewEnforcerOptions) {
    this.view = {
      settings: o.settings,
      bootImagesNamespace: o.bootImagesNamespace ?? "openshift-machine-config-operator",
      bootImagesName: o.bootImagesName ?? "coreos-bootimages",
    };
    this.now = o.now ?? (() => new Date());
    this.metrics = o.registry ? skewMetrics(o.registry) : undefined;
    this.writer = new ClusterOperatorWriter(o.kc, CLUSTER_OPERATOR_NAME, o.logger, {
      onConflict: () => this.metrics?.statusWrites.inc({ result: "conflict" }),
      onWrite: () => this.metrics?.statusWrites.inc({ result: "written" }),
      onCreate: () => this.metrics?.statusWrites.inc({ result: "created" }),
    });
    this.queue = new WorkQueue(() => this.reconcile(), {
      name: "skew",
      onError: (key, err, failures, retryInMs) => o.logger.warn({ err, key, failures, retryInMs }, "skew reconcile failed; retrying"),
      onTerminalError: (key, err) => o.logger.error({ err, key }, "skew reconcile failed permanently"),
      onRetriesExhausted: (key, err, failures, retryInMs) => o.logger.error({ err, key, failures, retryInMs }, "skew reconcile keeps failing; parked"),
    });
    if (o.registry) observeWorkQueue(o.registry, this.queue);
  }

  get synced(): boolean {
    return this.cache !== undefined;
  }

  /** The verdicts from the state plane as it is now. */
  evaluate(): SkewEvaluation {
    if (!this.cache) throw new NotSyncedError();
    return evaluateSkew(skewInputs(this.cache, this.view, this.tally.tally));
  }

  machineSet(namespace: string, name: string): MachineSetState | undefined {
    if (!this.cache) throw new NotSyncedError();
    return machineSetOf(this.cache, namespace, name);
  }

  bootImages(): BootImagesState | undefined {
    if (!this.cache) throw new NotSyncedError();
    return bootImagesOf(this.cache, this.view);
  }

  runnable(): Runnable {
    return { name: "skew-enforcer", start: (signal) => this.run(signal) };
  }

  private async run(signal: AbortSignal): Promise<void> {
    const { logger } = this.o;
    const ready = this.o.readiness?.flag("state-synced", false, "state plane not yet synced");
    const nc = await connectBus(this.o.bus);
    let cache: StateCache<typeof SKEW_PROJECTIONS> | undefined;
    try {
      await ensureEventStream(nc);
      const state = new StateCache(await ensureStateBucket(nc), { kinds: [...WATCHED_KINDS], logger, project: SKEW_PROJECTIONS });
      cache = state;
      const freshness = (this.freshness = new StateFreshness({ source: state, maxAgeMs: this.o.stateMaxAgeMs ?? 15_000, readiness: this.o.readiness, registry: this.o.registry, logger }));
      // Turning stale (or fresh again) changes what is written: reconcile at once.
      freshness.onChange(() => this.queue.add(CLUSTER_KEY));
      state.onHeartbeat(() => freshness.check());
      freshness.start(signal);
      const tally = (this.tally = new NodeTally());
      const relevant = new Set<StateKindName>(WATCHED_KINDS);
      state.onChange((c) => {
        if (!relevant.has(c.parsed.kind)) return;
        // The tally follows every node and pool change, so an evaluation reads counts, not nodes.
        if (c.parsed.kind === "node") {
          if (c.op === "put") tally.put(c.value as SkewNode);
          else tally.delete(c.parsed.name);
        } else if (c.parsed.kind === "pool") tally.setPools(state.list("pool"));
        if (c.parsed.kind === "clusterOperator" && c.parsed.name !== CLUSTER_OPERATOR_NAME) return;
        // A rolling update changes thousands of nodes a minute; one evaluation per window covers
        // them all (gRPC answers evaluate on demand and are never delayed by this).
        this.queue.addAfter(CLUSTER_KEY, this.o.evaluateDelayMs ?? 250);
      });
      await cache.start();
      try {
        await cache.whenSynced(signal);
      } catch (err) {
        if (signal.aborted) return;
        throw err;
      }
      this.cache = cache;
      this.facts = new FactLog(nc, this.o.source ?? "skew-enforcer");
      ready?.set(true);
      logger.info({ objects: cache.size }, "state plane synced; enforcing skew");
      this.queue.add(CLUSTER_KEY);
      await this.queue.run(signal);
    } finally {
      this.freshness?.stop();
      this.cache = undefined;
      cache?.stop();
      await closeBus(nc);
    }
  }

  /** Why the view is stale (undefined while fresh), as a point in time so the message holds still. */
  private staleness(): string | undefined {
    const f = this.freshness?.current();
    return f && !f.fresh ? describeStaleSince(f, this.now().getTime()) : undefined;
  }

  private async reconcile(): Promise<ReconcileResult> {
    const cache = this.cache;
    if (!cache) return;
    // Fail closed on a stale view (skew/stale.ts): Upgradeable=False (StateStale), every other
    // condition held, and no facts: update.completed from a view nobody vouches for could be false.
    const stale = this.staleness();
    const e = stale === undefined ? this.evaluate() : staleEvaluation(this.evaluate(), stale);
    this.observe(e);
    await this.convergeClusterOperator(e, cache, stale !== undefined);
    if (stale === undefined) await this.publishFacts(e);
    else this.o.logger.warn({ why: stale }, "state plane stale; upgrades blocked, facts held");
    return { requeueAfter: this.o.resyncMs ?? 600_000 };
  }

  private observe(e: SkewEvaluation): void {
    const m = this.metrics;
    if (!m) return;
    m.evaluations.inc();
    m.upgradeable.set(e.upgradeable.status === "True" ? 1 : 0);
    m.enforcementNone.set(e.bootImage.enforcementNoneMetric);
    m.updateComplete.set(e.completion.complete ? 1 : 0);
  }

  private desiredStatus(e: SkewEvaluation, previous: readonly Condition[], stale = false): ClusterOperatorStatus {
    const desired = this.desiredFromView(e, previous);
    return stale ? holdAllButUpgradeable(desired, previous) : desired;
  }

  private desiredFromView(e: SkewEvaluation, previous: readonly Condition[]): ClusterOperatorStatus {
    const inputs = {
      upgradeable: e.upgradeable,
      completion: e.completion,
      operatorVersion: this.o.operatorVersion,
      namespace: this.o.namespace,
      pools: e.lag.pools.map((p) => p.name),
      previous,
      now: this.now(),
    };
    const base = desiredClusterOperatorStatus(inputs);
    this.lastBaseFingerprint = statusFingerprint(base);
    // The inputs moved on since the refusal: try the new status.
    if (this.hotLoop && this.hotLoop.baseFingerprint !== this.lastBaseFingerprint) this.hotLoop = undefined;
    if (!this.hotLoop) return base;
    return desiredClusterOperatorStatus({ ...inputs, degraded: { reason: REASON_HOT_LOOP, message: this.hotLoop.message } });
  }

  private async convergeClusterOperator(e: SkewEvaluation, cache: StateCache<typeof SKEW_PROJECTIONS>, stale: boolean): Promise<void> {
    // The state plane usually proves there is nothing to write, without a request to the API server.
    const seen = cache.get("clusterOperator", CLUSTER_OPERATOR_NAME);
    if (seen && this.knownRelated) {
      const observed = { conditions: seen.conditions, versions: seen.versions, relatedObjects: this.knownRelated };
      if (!clusterOperatorStatusChanged(observed, this.desiredStatus(e, seen.conditions, stale))) return;
    }
    const outcome = await this.writer.converge((previous) => this.desiredStatus(e, previous, stale));
    if (outcome.result === "refused") {
      this.metrics?.statusWrites.inc({ result: "refused" });
      const message =
        `ClusterOperator ${CLUSTER_OPERATOR_NAME}: ${outcome.error.message}. ` +
        `Look for another writer of clusteroperator/${CLUSTER_OPERATOR_NAME} status (oc get clusteroperator ${CLUSTER_OPERATOR_NAME} -o yaml, managedFields).`;
      this.o.logger.error({ name: CLUSTER_OPERATOR_NAME, attempts: outcome.error.attempts }, "cluster operator status write refused: hot loop");
      if (!this.hotLoop) {
        this.hotLoop = { baseFingerprint: this.lastBaseFingerprint, message };
        this.queue.add(CLUSTER_KEY); // report it as Degraded=True
      }
      return;
    }
    this.knownRelated = outcome.observed.relatedObjects;
    if (outcome.result === "written") {
      this.o.logger.info({ name: CLUSTER_OPERATOR_NAME, upgradeable: e.upgradeable.status, reason: e.upgradeable.reason }, "cluster operator status written");
    }
  }

  private async publishFacts(e: SkewEvaluation): Promise<void> {
    const facts = this.facts;
    if (!facts) return;
    if (!this.factsLoaded) {
      await facts.refresh();
      this.factsLoaded = true;
    }
    if (dueFacts(facts.last, e).length === 0) return;
    // Something is due: decide against the stream itself (another replica may have published it).
    for (const fact of dueFacts(await facts.refresh(), e)) {
      const fresh = await facts.publish(fact);
      if (fresh) this.metrics?.events.inc({ type: fact.kind });
      this.o.logger.info({ fact: fact.kind, id: fact.id, duplicate: !fresh }, "fact published");
    }
  }
}

/** The skew-enforcer as a Runnable (for an in-process test or a combined process). */
export function skewEnforcerRunnable(o: SkewEnforcerOptions): Runnable {
  return new SkewEnforcer(o).runnable();
}
