// The lease-coordinator as a Runnable (the skeleton's state-plane consumer) plus its LeaseService
// implementation. `wire` builds the core (coordinator, lease index, outbox, shared wait queue) and
// its controllers: budget status and the lease adapters, leader only. Once the watcher's
// meta.synced is seen the core serves (every replica: LeaseService, webhook, expiry sweep).
import { ensureLeaseQueueBucket, EventPublisher, type BusConnectionOptions, type StateProjections } from "@lockstep/bus";
import { Events, type LeaseServiceServer, type LeaseState } from "@lockstep/contracts";
import type { EventSink as KubeEventSink, KubeConfigLike } from "@lockstep/kube";
import { abortedPromise, describeStaleness, type Readiness, type Runnable, type StateFreshnessOptions } from "@lockstep/runtime";
import { factObserver, stateConsumer, type Controller, type LeaderGate, type Wired } from "@lockstep/skeleton";
import type { Logger } from "pino";
import { adaptersController } from "./adapters/controller.js";
import { AdapterReconciler } from "./adapters/reconciler.js";
import type { AdapterName } from "./adapters/plan.js";
import type { LeaseHolds } from "./admission/webhook.js";
import type { LeaseAuth } from "./auth/lease-auth.js";
import { leaseNodeOf, type PolicyConfig } from "@lockstep/lease-policy";
import { budgetStatusController } from "./coordinator/budget-status-controller.js";
import { ClusterFeed } from "./coordinator/cluster-feed.js";
import { Coordinator } from "./coordinator/coordinator.js";
import { leaseService } from "./api/lease-service.js";
import { toOutgoing } from "./coordinator/events.js";
import { EventOutbox } from "./coordinator/outbox.js";
import { observeLeaseAges } from "./coordinator/lease-metrics.js";
import { observeSharedQueue } from "./coordinator/queue-metrics.js";
import { SharedQueue } from "./coordinator/shared-queue.js";
import { KubeLeaseApi } from "./store/kube-leases.js";
import { LeaseIndex } from "./store/lease-index.js";

/**
 * Of a node only what decisions and budget statuses read is kept (LeaseNode): at 10,000 nodes the
 * whole NodeStates were most of the heap, and a change to another field no longer drops the index.
 */
const PROJECTIONS = { node: leaseNodeOf } satisfies StateProjections;
type LeaseController = Controller<typeof PROJECTIONS>;

/** What a StateStale refusal suggests as retry_after_seconds. */
const STALE_RETRY_AFTER_SECONDS = 5;

export interface LeaseCoordinatorOptions {
  /** client-node's KubeConfig also fits (tests pass theirs). */
  kc: KubeConfigLike;
  bus: BusConnectionOptions;
  policy: PolicyConfig;
  /** Who may call the LeaseService and what they may do; `new LeaseAuth({ mode: "none", … })` only for local and test runs. */
  auth: LeaseAuth;
  logger: Logger;
  readiness?: Readiness;
  /** Metrics registry for lockstep_state_age_seconds. */
  registry?: StateFreshnessOptions["registry"];
  /** How old the state plane may be before new grants are refused (STATE_MAX_AGE). Default 15 s. */
  stateMaxAgeMs?: number;
  /** How often expired leases are looked for. Default 2 s. */
  sweepIntervalMs?: number;
  /** Budget status re-evaluation without changes (schedules). Default 30 s. */
  budgetResyncMs?: number;
  clock?: () => number;
  /** Kubernetes Events for every published fact (the skeleton's serviceEventRecorder); none: no Events. */
  kubeEvents?: KubeEventSink;
  /** Lease adapters (adapters/): other disruptors' node signals recorded as leases. Absent: off. */
  adapters?: { enabled: readonly AdapterName[]; durationSeconds: number; resyncMs?: number };
  /**
   * Which replica runs the leader-only controllers (lease adapters, DisruptionBudget status); none:
   * this one (one replica). Every replica serves the LeaseService and the webhook: each grant is a
   * CAS on the node's Lease, so replicas cannot both win.
   */
  leader?: LeaderGate;
  /** This replica's name in the shared wait queue (COORDINATOR_ID); default a random one. */
  replica?: string;
  /** The shared wait queue: its bucket's JetStream replicas (default 1) and refresh interval (default 2 s). */
  queue?: { natsReplicas?: number; refreshMs?: number };
  /** Called once the coordinator serves (tests and benchmarks observe it). */
  onStarted?(coordinator: Coordinator, index: LeaseIndex): void;
}

export interface LeaseCoordinator extends LeaseHolds {
  /** Register with startGrpcServer; answers UNAVAILABLE until the state plane is synced. */
  service: LeaseServiceServer;
  runnable: Runnable;
  /** The replica is stopping: waiting calls cut from now on keep their place in the shared queue. */
  handOver(): void;
}

/** What one wiring (one connection to the state plane) builds, and serve runs. */
interface LeaseCore extends Wired<typeof PROJECTIONS>, LeaseHolds {
  coordinator: Coordinator;
  index: LeaseIndex;
  outbox: EventOutbox;
  line: SharedQueue;
  controllers: LeaseController[];
}

const STARTING = { unavailable: "the lease-coordinator is starting: the state plane is not synced yet" };

export function createLeaseCoordinator(o: LeaseCoordinatorOptions): LeaseCoordinator {
  const { logger, policy } = o;
  const clock = o.clock ?? Date.now;
  const leading = () => o.leader?.isLeader() ?? true;
  const replica = o.replica ?? `lease-coordinator-${Math.random().toString(36).slice(2, 10)}`;
  /** The core serving now: what the LeaseService, the webhook and handOver reach. */
  let live: LeaseCore | undefined;
  let leaving = false;
  const service = leaseService({ coordinator: () => live?.coordinator, index: () => live?.index, auth: o.auth, logger });

  const runnable = stateConsumer({
    name: "lease-coordinator",
    bus: o.bus,
    logger,
    kinds: ["node", "pool", "lease", "disruptionBudget", ...(o.adapters ? (["nodeSignal"] as const) : [])],
    project: PROJECTIONS,
    readiness: o.readiness,
    notSyncedReason: "state plane not yet synced",
    registry: o.registry,
    stateMaxAgeMs: o.stateMaxAgeMs,
    leader: o.leader,
    async wire({ nc, cache, freshness }): Promise<LeaseCore> {
      const api = new KubeLeaseApi(o.kc);
      const ns = await api.ensureNamespace(policy.namespace);
      if (!ns.ok) logger.warn({ namespace: policy.namespace, reason: ns.reason }, "lease namespace could not be ensured");
      // Every replica records its own decisions (the recorder is not leader-gated here); an expiry
      // is noticed by every replica's sweep alike, so only the leader records that one.
      const publisher = new EventPublisher(nc, "lease-coordinator", factObserver(o.kubeEvents, (type) => type !== Events.leaseExpired || leading()));
      const outbox = new EventOutbox({ logger, publish: (e) => publisher.publish(Events[e.kind] as never, e.message as never, { id: e.id }) });
      const index = new LeaseIndex(policy, clock);
      const queueKv = await ensureLeaseQueueBucket(nc, { replicas: o.queue?.natsReplicas ?? 1 });
      let wake = () => {};
      const line = new SharedQueue({ kv: queueKv, replica, logger: logger.child({ component: "shared-queue" }), clock, refreshMs: o.queue?.refreshMs, onChange: () => wake() });
      if (leaving) line.handOver();
      if (o.registry) observeSharedQueue(o.registry, () => line);
      if (o.registry) observeLeaseAges(o.registry, () => index, policy, clock);
      // Every decision reads nodes, pools and budgets indexed (node by name, pool and budget
      // members); the index follows the cache change by change (fed below, from the initial load
      // on), so a node change costs in proportion to the pools and budgets, not to the nodes.
      const cluster = new ClusterFeed();
      const coordinator = new Coordinator({
        policy,
        index,
        api,
        events: outbox,
        logger,
        clock,
        view: { cluster: () => cluster.tracker },
        line,
        staleness: () => {
          const f = freshness.current();
          return f.fresh ? undefined : { why: describeStaleness(f), retryAfterSeconds: STALE_RETRY_AFTER_SECONDS };
        },
        freshness: () => freshness.current(),
      });
      wake = () => coordinator.notify();
      await line.start();
      // Waiting acquires are decided again the moment the view turns fresh (or stale).
      freshness.onChange(() => coordinator.notify());
      cache.onChange((ch) => {
        if (ch.parsed.kind === "lease") index.fromPlane(ch.parsed.namespace ?? "", ch.parsed.name, ch.op === "put" ? (ch.value as LeaseState) : undefined);
        else if (cluster.apply(ch)) coordinator.notify();
      });
      const controllers: LeaseController[] = [budgetStatusController({ kc: o.kc, policy, index, cluster, logger, clock, resyncMs: o.budgetResyncMs, registry: o.registry })];
      if (o.adapters) {
        const enabled = new Set(o.adapters.enabled);
        const adapters = new AdapterReconciler({
          coordinator,
          signals: () => cache.list("nodeSignal"),
          enabled,
          events: outbox,
          namespace: policy.namespace,
          logger: logger.child({ component: "lease-adapters" }),
          durationSeconds: o.adapters.durationSeconds,
          clock,
        });
        controllers.push(adaptersController(adapters, { resyncMs: o.adapters.resyncMs }));
        logger.info({ adapters: [...enabled], durationSeconds: o.adapters.durationSeconds }, "lease adapters on");
      }
      return {
        coordinator,
        index,
        outbox,
        line,
        controllers,
        // A stale view may miss a lease: the webhook answers 503 then and its failurePolicy decides.
        holdOf: (node) => (freshness.fresh ? coordinator.hold(node) : { unavailable: describeStaleness(freshness.current()) }),
        auditBreakGlass: (node, message, code = "BreakGlass") =>
          outbox.emit(toOutgoing([{ type: "warning.raised", node, message, warning: { code, node, message } }], { namespace: policy.namespace })),
      };
    },
    async serve({ cache }, signal, core) {
      for (const l of cache.list("lease")) core.index.fromPlane(l.namespace, l.name, l);
      if (leaving) core.line.handOver();
      live = core;
      logger.info({ namespace: policy.namespace, leases: core.index.size }, "lease-coordinator serving");
      o.onStarted?.(core.coordinator, core.index);
      const sweep = setInterval(() => core.coordinator.sweep(), o.sweepIntervalMs ?? 2_000);
      try {
        await abortedPromise(signal);
      } finally {
        clearInterval(sweep);
        live = undefined;
      }
    },
    async drain(core) {
      if (!core) return;
      core.line.stop();
      // Events of the last grants still go out (bounded), then retries stop.
      await Promise.race([core.outbox.drained(), new Promise((r) => setTimeout(r, 2_000).unref())]);
      core.outbox.close();
    },
  });

  return {
    service,
    runnable,
    holdOf: (node) => (live ? live.holdOf(node) : STARTING),
    auditBreakGlass: (node, message, code) => {
      if (live) live.auditBreakGlass(node, message, code);
      else logger.warn({ node, message }, "break-glass not published: the coordinator is not serving");
    },
    handOver: () => {
      leaving = true;
      live?.line.handOver();
    },
  };
}
