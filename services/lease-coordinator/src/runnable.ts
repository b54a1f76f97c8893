// The lease-coordinator as a Runnable (the skeleton's state-plane consumer) plus its LeaseService
// implementation: once the watcher's meta.synced is seen, serve; sweep for expiry; keep budget
// status true (the leader only, with the lease adapters).
import { ensureLeaseQueueBucket, EventPublisher, type BusConnectionOptions, type StateProjections } from "@lockstep/bus";
import { Events, type LeaseServiceServer, type LeaseState } from "@lockstep/contracts";
import type { EventSink as KubeEventSink, KubeConfigLike } from "@lockstep/kube";
import { HotLoopGuard, WorkQueue, writeFingerprint } from "@lockstep/reconcile";
import { abortedPromise, describeStaleness, type Readiness, type Runnable, type StateFreshnessOptions } from "@lockstep/runtime";
import { factObserver, stateConsumer, type LeaderGate } from "@lockstep/skeleton";
import type { Logger } from "pino";
import { AdapterReconciler } from "./adapters/reconciler.js";
import type { AdapterName } from "./adapters/plan.js";
import type { LeaseAuth } from "./auth/lease-auth.js";
import { budgetScopeKey, buildView, ClusterTracker, leaseNodeOf, type ClusterChange, type PolicyConfig } from "@lockstep/lease-policy";
import { BudgetMetrics } from "./coordinator/budget-metrics.js";
import { budgetStatus, BudgetStatusWriter } from "./coordinator/budget-status.js";
import { Coordinator, type EventSink, type NodeHold } from "./coordinator/coordinator.js";
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

/** What a StateStale refusal suggests as retry_after_seconds. */
const STALE_RETRY_AFTER_SECONDS = 5;

/** How long lease and node changes are gathered before budget statuses are evaluated again. */
const STATUS_DELAY_MS = 500;

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
   * Which replica runs the lease adapters and writes DisruptionBudget status; none: this one (one
   * replica). Every replica serves the LeaseService and the webhook: each grant is a CAS on the node's
   * Lease, so replicas cannot both win.
   */
  leader?: LeaderGate;
  /** This replica's name in the shared wait queue (COORDINATOR_ID); default a random one. */
  replica?: string;
  /** The shared wait queue: its bucket's JetStream replicas (default 1) and refresh interval (default 2 s). */
  queue?: { natsReplicas?: number; refreshMs?: number };
  /** Called once the coordinator serves (tests and benchmarks observe it). */
  onStarted?(coordinator: Coordinator, index: LeaseIndex): void;
}

export interface LeaseCoordinator {
  /** Register with startGrpcServer; answers UNAVAILABLE until the state plane is synced. */
  service: LeaseServiceServer;
  runnable: Runnable;
  /** The node's current hold for the lease webhook, or why the view cannot be trusted now. */
  holdOf(node: string): NodeHold | undefined | { unavailable: string };
  /** Publishes a break-glass override of a lease (or, with `code`, another admitted disruption) as a warning event: the webhook's audit. */
  auditBreakGlass(node: string, message: string, code?: string): void;
  /** The replica is stopping: waiting calls cut from now on keep their place in the shared queue. */
  handOver(): void;
}

const STARTING = { unavailable: "the lease-coordinator is starting: the state plane is not synced yet" };

export function createLeaseCoordinator(o: LeaseCoordinatorOptions): LeaseCoordinator {
  let coordinator: Coordinator | undefined;
  let index: LeaseIndex | undefined;
  const { logger, policy } = o;
  const clock = o.clock ?? Date.now;
  const leading = () => o.leader?.isLeader() ?? true;
  const service = leaseService({ coordinator: () => coordinator, index: () => index, auth: o.auth, logger });
  let holdOf: LeaseCoordinator["holdOf"] = () => STARTING;
  let auditBreakGlass: LeaseCoordinator["auditBreakGlass"] = (node, message) => logger.warn({ node, message }, "break-glass not published: the coordinator is not serving");

  const timers: NodeJS.Timeout[] = [];
  let budgets: WorkQueue | undefined;
  let outbox: EventOutbox | undefined;
  let adapters: AdapterReconciler | undefined;
  let line: SharedQueue | undefined;
  let leaving = false;
  const replica = o.replica ?? `lease-coordinator-${Math.random().toString(36).slice(2, 10)}`;
  /** What wire() built for serve(). */
  let serving: { coordinator: Coordinator; index: LeaseIndex; events: EventSink; allBudgets: () => void } | undefined;
  async function stopServing(): Promise<void> {
    for (const t of timers.splice(0)) clearInterval(t);
    // A pass under way finishes (its writes are CAS, but an answer half-acted on is noise).
    const last = adapters?.stop();
    adapters = undefined;
    await last;
    coordinator = undefined;
    index = undefined;
    line?.stop();
    line = undefined;
    holdOf = () => STARTING;
    await budgets?.stop();
    budgets = undefined;
    serving = undefined;
  }
  const kinds = ["node", "pool", "lease", "disruptionBudget", ...(o.adapters ? (["nodeSignal"] as const) : [])] as const;
  const runnable = stateConsumer({
    name: "lease-coordinator",
    bus: o.bus,
    logger,
    kinds,
    project: PROJECTIONS,
    readiness: o.readiness,
    notSyncedReason: "state plane not yet synced",
    registry: o.registry,
    stateMaxAgeMs: o.stateMaxAgeMs,
    async wire({ nc, cache, freshness }) {
      const api = new KubeLeaseApi(o.kc);
      const ns = await api.ensureNamespace(policy.namespace);
      if (!ns.ok) logger.warn({ namespace: policy.namespace, reason: ns.reason }, "lease namespace could not be ensured");
      // Every replica records its own decisions (the recorder is not leader-gated here); an expiry
      // is noticed by every replica's sweep alike, so only the leader records that one.
      const publisher = new EventPublisher(nc, "lease-coordinator", factObserver(o.kubeEvents, (type) => type !== Events.leaseExpired || leading()));
      outbox = new EventOutbox({ logger, publish: (e) => publisher.publish(Events[e.kind] as never, e.message as never, { id: e.id }) });
      const events: EventSink = outbox;
      const idx = new LeaseIndex(policy, clock);
      line?.stop(); // a wiring before this one that never served
      const queueKv = await ensureLeaseQueueBucket(nc, { replicas: o.queue?.natsReplicas ?? 1 });
      let wake = () => {};
      const shared = (line = new SharedQueue({ kv: queueKv, replica, logger: logger.child({ component: "shared-queue" }), clock, refreshMs: o.queue?.refreshMs, onChange: () => wake() }));
      if (leaving) shared.handOver();
      if (o.registry) observeSharedQueue(o.registry, () => line);
      if (o.registry) observeLeaseAges(o.registry, () => index, policy, clock);
      const budgetMetrics = o.registry ? new BudgetMetrics(o.registry) : undefined;
      // Every decision reads nodes, pools and budgets indexed (node by name, pool and budget
      // members); the index follows the cache change by change (fed below, from the initial load
      // on), so a node change costs in proportion to the pools and budgets, not to the nodes.
      const tracker = new ClusterTracker();
      const clusterView = { cluster: () => tracker };
      const c = new Coordinator({
        policy,
        index: idx,
        api,
        events,
        logger,
        clock,
        view: clusterView,
        line: shared,
        staleness: () => {
          const f = freshness.current();
          return f.fresh ? undefined : { why: describeStaleness(f), retryAfterSeconds: STALE_RETRY_AFTER_SECONDS };
        },
        freshness: () => freshness.current(),
      });
      wake = () => c.notify();
      await shared.start();
      // Waiting acquires are decided again the moment the view turns fresh (or stale).
      freshness.onChange((f) => {
        c.notify();
        if (f.fresh && index) allBudgets();
      });
      const statusWriter = new BudgetStatusWriter(o.kc);
      const guard = new HotLoopGuard({ onHotLoop: (err) => logger.error({ err }, "budget status hot loop; not writing") });
      const queue = (budgets = new WorkQueue(
        async (name) => {
          const budget = cache.get("disruptionBudget", name);
          if (!budget || !leading()) return void budgetMetrics?.forget(name);
          // A status computed from a stale view could say a budget has room it no longer has:
          // held as last written; every budget is evaluated again once the view is fresh.
          if (!freshness.fresh) return;
          const now = clock();
          const cluster = clusterView.cluster();
          const records = idx.all().map((e) => e.rec);
          const view = buildView({ nodes: [], pools: [], budgets: [], leases: [], records, observations: idx.observations, observationsCurrent: true }, now, policy);
          const desired = budgetStatus(budget, cluster.nodes, cluster.pools, view.heldNodes, view.slots(budgetScopeKey(name)), new Date(now), policy, cluster);
          budgetMetrics?.observe(name, desired);
          if (!guard.check(name, writeFingerprint(desired))) return;
          const result = await statusWriter.write(name, desired);
          if (result === "unchanged") guard.reset(name);
          if (result === "written") logger.info({ budget: name, valid: desired.valid, disrupted: desired.disrupted }, "budget status written");
        },
        { name: "budget-status", concurrency: 2, onError: (key, err) => logger.warn({ err, budget: key }, "budget status write failed; retrying") },
      ));
      const allBudgets = () => {
        for (const b of cache.list("disruptionBudget")) queue.add(b.name);
      };
      // A burst of grants changes leases hundreds of times a second, a rollout nodes a hundred times;
      // each status evaluation reads every lease and reads and maybe writes the object, so changes
      // are folded into one evaluation per budget per delay.
      const budgetsSoon = (names: Iterable<string> = cache.list("disruptionBudget").map((b) => b.name)) => {
        for (const b of names) queue.addAfter(b, STATUS_DELAY_MS);
      };
      cache.onChange((ch) => {
        if (ch.parsed.kind === "meta") return;
        if (ch.parsed.kind === "nodeSignal") {
          if (leading()) adapters?.soon();
          return;
        }
        if (ch.parsed.kind === "lease") {
          idx.fromPlane(ch.parsed.namespace ?? "", ch.parsed.name, ch.op === "put" ? (ch.value as LeaseState) : undefined);
          if (index) budgetsSoon();
          // A refused adapted lease may be recordable now.
          if (leading()) adapters?.leaseChanged(ch.op === "put" ? (ch.value as LeaseState).holderIdentity : undefined);
          return;
        }
        const touched = tracker.apply({ kind: ch.parsed.kind, name: ch.parsed.name, value: ch.op === "put" ? ch.value : undefined } as ClusterChange);
        c.notify();
        // Only the budgets whose members or members' availability changed are evaluated again.
        if (index) budgetsSoon(touched);
      });
      serving = { coordinator: c, index: idx, events, allBudgets };
    },
    async serve({ cache, freshness }, signal) {
      const { coordinator: c, index: idx, events, allBudgets } = serving!;
      try {
        for (const l of cache.list("lease")) idx.fromPlane(l.namespace, l.name, l);
        index = idx;
        coordinator = c;
        // A stale view may miss a lease: the webhook answers 503 then and its failurePolicy decides.
        holdOf = (node) => (freshness.fresh ? c.hold(node) : { unavailable: describeStaleness(freshness.current()) });
        auditBreakGlass = (node, message, code = "BreakGlass") =>
          events.emit(toOutgoing([{ type: "warning.raised", node, message, warning: { code, node, message } }], { namespace: policy.namespace }));
        logger.info({ namespace: policy.namespace, leases: idx.size }, "lease-coordinator serving");
        o.onStarted?.(c, idx);
        budgets!.start();
        allBudgets();
        timers.push(setInterval(() => c.sweep(), o.sweepIntervalMs ?? 2_000));
        if (o.adapters) {
          const enabled = new Set(o.adapters.enabled);
          adapters = new AdapterReconciler({
            coordinator: c,
            signals: () => cache.list("nodeSignal"),
            enabled,
            events,
            namespace: policy.namespace,
            logger: logger.child({ component: "lease-adapters" }),
            durationSeconds: o.adapters.durationSeconds,
            clock,
          });
          logger.info({ adapters: [...enabled], durationSeconds: o.adapters.durationSeconds }, "lease adapters on");
          if (leading()) void adapters.trigger();
          timers.push(setInterval(() => leading() && void adapters?.trigger(), o.adapters.resyncMs ?? 10_000));
        }
        timers.push(setInterval(allBudgets, o.budgetResyncMs ?? 30_000));
        // A new leader records the disruptors' signals and budget statuses at once.
        o.leader?.onChange((now) => {
          if (!now || signal.aborted) return;
          void adapters?.trigger();
          allBudgets();
        });
        await abortedPromise(signal);
      } finally {
        await stopServing();
      }
    },
    async drain() {
      // Events of the last grants still go out (bounded), then retries stop.
      if (outbox) await Promise.race([outbox.drained(), new Promise((r) => setTimeout(r, 2_000).unref())]);
      outbox?.close();
      outbox = undefined;
    },
  });

  return {
    service,
    runnable,
    holdOf: (node) => holdOf(node),
    auditBreakGlass: (node, message, code) => auditBreakGlass(node, message, code),
    handOver: () => {
      leaving = true;
      line?.handOver();
    },
  };
}
