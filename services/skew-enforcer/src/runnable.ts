// The skew-enforcer as a Runnable (the skeleton's state-plane consumer): the view from the state
// plane, ClusterOperator `lockstep` on the API server, facts on the event stream; on every relevant
// change the single key "cluster" is reconciled by the pure core (enforcer/enforcer.ts). Every
// replica keeps the view and answers SkewService; only the leader writes and publishes.
import type { BusConnectionOptions } from "@lockstep/bus";
import type { EventSink, KubeConfigLike } from "@lockstep/kube";
import { WorkQueue } from "@lockstep/reconcile";
import { describeStaleSince, observeWorkQueue, type Readiness, type Runnable, type StateFreshness } from "@lockstep/runtime";
import { factObserver, stateConsumer, type LeaderGate } from "@lockstep/skeleton";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import { ClusterOperatorWriter } from "./enforcer/cluster-operator-writer.js";
import { CLUSTER_KEY, SkewEnforcer, type ViewFreshness } from "./enforcer/enforcer.js";
import { SKEW_PROJECTIONS, WATCHED_KINDS } from "./enforcer/view.js";
import { FactLog } from "./enforcer/fact-log.js";
import { skewMetrics } from "./metrics.js";
import { CLUSTER_OPERATOR_NAME, type SkewSettings } from "@lockstep/skew-rules";

export interface SkewEnforcerRunnableOptions {
  kc: KubeConfigLike;
  /** Kubernetes Events for the published facts (upgrade blocked/allowed, pool lag); none: no Events. */
  kubeEvents?: EventSink;
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
  /** Which replica writes the ClusterOperator and publishes facts; none: this one (one replica). */
  leader?: LeaderGate;
  now?: () => Date;
}

export interface SkewEnforcerHandle {
  runnable: Runnable;
  /** Answers SkewService (wire it into the gRPC server); NotSyncedError until the view is synced. */
  enforcer: SkewEnforcer;
  queue: WorkQueue;
}

export function skewEnforcer(o: SkewEnforcerRunnableOptions): SkewEnforcerHandle {
  const { logger } = o;
  const now = o.now ?? (() => new Date());
  const metrics = o.registry ? skewMetrics(o.registry) : undefined;
  let freshness: StateFreshness | undefined;
  const writer = new ClusterOperatorWriter(o.kc, CLUSTER_OPERATOR_NAME, logger, {
    onConflict: () => metrics?.statusWrites.inc({ result: "conflict" }),
    onWrite: () => metrics?.statusWrites.inc({ result: "written" }),
    onCreate: () => metrics?.statusWrites.inc({ result: "created" }),
  });
  const queue: WorkQueue = new WorkQueue(() => enforcer.reconcile(), {
    name: "skew",
    onError: (key, err, failures, retryInMs) => logger.warn({ err, key, failures, retryInMs }, "skew reconcile failed; retrying"),
    onTerminalError: (key, err) => logger.error({ err, key }, "skew reconcile failed permanently"),
    onRetriesExhausted: (key, err, failures, retryInMs) => logger.error({ err, key, failures, retryInMs }, "skew reconcile keeps failing; parked"),
  });
  if (o.registry) observeWorkQueue(o.registry, queue);
  // As a point in time, so the message written to the ClusterOperator holds still.
  const viewFreshness = (): ViewFreshness => {
    const f = freshness?.current();
    return { freshness: f, stale: f && !f.fresh ? describeStaleSince(f, now().getTime()) : undefined };
  };
  const enforcer = new SkewEnforcer({
    view: {
      settings: o.settings,
      bootImagesNamespace: o.bootImagesNamespace ?? "openshift-machine-config-operator",
      bootImagesName: o.bootImagesName ?? "coreos-bootimages",
    },
    writer,
    logger,
    namespace: o.namespace,
    operatorVersion: o.operatorVersion,
    ...(metrics ? { metrics } : {}),
    ...(o.resyncMs !== undefined ? { resyncMs: o.resyncMs } : {}),
    staleness: () => viewFreshness().stale,
    freshness: viewFreshness,
    requeue: () => queue.add(CLUSTER_KEY),
    leading: () => o.leader?.isLeader() ?? true,
    now,
  });
  // A new leader converges at once (its view is warm; the previous leader may have left work undone).
  o.leader?.onChange((leading) => leading && queue.add(CLUSTER_KEY));
  const runnable = stateConsumer({
    name: "skew-enforcer",
    bus: o.bus,
    logger,
    kinds: WATCHED_KINDS,
    project: SKEW_PROJECTIONS,
    readiness: o.readiness,
    notSyncedReason: "state plane not yet synced",
    registry: o.registry,
    stateMaxAgeMs: o.stateMaxAgeMs,
    wire({ cache, freshness: f }) {
      freshness = f;
      // Turning stale (or fresh again) changes what is written: reconcile at once.
      f.onChange(() => queue.add(CLUSTER_KEY));
      enforcer.beginLoad();
      cache.onChange((c) => {
        const change = { kind: c.parsed.kind, name: c.parsed.name, op: c.op, value: c.value };
        // A rolling update changes thousands of nodes a minute; one evaluation per window covers
        // them all (gRPC answers evaluate on demand and are never delayed by this).
        if (enforcer.noteChange(change, () => cache.list("pool"))) queue.addAfter(CLUSTER_KEY, o.evaluateDelayMs ?? 250);
      });
    },
    async serve({ nc, cache }, signal) {
      enforcer.markSynced(cache, new FactLog(nc, o.source ?? "skew-enforcer", factObserver(o.kubeEvents)));
      try {
        logger.info({ objects: cache.size }, "state plane synced; enforcing skew");
        queue.add(CLUSTER_KEY);
        await queue.run(signal);
      } finally {
        enforcer.markStopped();
      }
    },
  });
  return { runnable, enforcer, queue };
}
