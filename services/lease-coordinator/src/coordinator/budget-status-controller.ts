// DisruptionBudget status as a controller of the coordinator's consumer (the skeleton's
// controller.ts): one key per budget, written by the leader only and never from a stale view (the
// skeleton holds keys while stale and reconciles every budget once fresh or leading again).
import type { StateProjections } from "@lockstep/bus";
import type { DisruptionBudgetState } from "@lockstep/contracts";
import type { KubeConfigLike } from "@lockstep/kube";
import { budgetScopeKey, buildView, type ClusterIndex, type PolicyConfig } from "@lockstep/lease-policy";
import { HotLoopGuard, writeFingerprint } from "@lockstep/reconcile";
import type { Controller } from "@lockstep/skeleton";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { LeaseIndex } from "../store/lease-index.js";
import { BudgetMetrics } from "./budget-metrics.js";
import { budgetStatus, BudgetStatusWriter } from "./budget-status.js";
import type { ClusterFeed } from "./cluster-feed.js";

/**
 * How long lease and node changes are gathered before a budget's status is evaluated again: a
 * burst of grants changes leases hundreds of times a second, a rollout nodes a hundred times, and
 * each evaluation reads every lease and reads (maybe writes) the object.
 */
export const STATUS_DELAY_MS = 500;

export interface BudgetStatusControllerOptions {
  kc: KubeConfigLike;
  policy: PolicyConfig;
  index: LeaseIndex;
  /** Nodes, pools and budgets as the coordinator decides by them. */
  cluster: ClusterFeed;
  logger: Logger;
  clock: () => number;
  /** Re-evaluation without changes (schedules open and close). Default 30 s. */
  resyncMs?: number;
  registry?: Registry;
}

export function budgetStatusController<P extends StateProjections>(o: BudgetStatusControllerOptions): Controller<P> {
  const writer = new BudgetStatusWriter(o.kc);
  const metrics = o.registry ? new BudgetMetrics(o.registry) : undefined;
  const guard = new HotLoopGuard({ onHotLoop: (err) => o.logger.error({ err }, "budget status hot loop; not writing") });
  const everyBudget = () => o.cluster.tracker.budgets.map((b) => b.name);
  return {
    name: "budget-status",
    kinds: ["node", "pool", "lease", "disruptionBudget"],
    leaderOnly: true,
    delayMs: STATUS_DELAY_MS,
    resyncMs: o.resyncMs ?? 30_000,
    concurrency: 2,
    // Any lease may fill a budget's slot; a node or pool change only the budgets it is a member of.
    keysFor: (change) => (change.parsed.kind === "lease" ? everyBudget() : o.cluster.touchedBy(change)),
    allKeys: everyBudget,
    // A non-leader has no series.
    stepDown: () => metrics?.forgetAll(),
    async reconcile(name, { cache }) {
      // Budgets are never projected (only nodes are, in this service).
      const budget = cache.get("disruptionBudget", name) as DisruptionBudgetState | undefined;
      if (!budget) return void metrics?.forget(name);
      const now = o.clock();
      const cluster: ClusterIndex = o.cluster.tracker;
      const records = o.index.all().map((e) => e.rec);
      const view = buildView({ nodes: [], pools: [], budgets: [], leases: [], records, observations: o.index.observations, observationsCurrent: true }, now, o.policy);
      const desired = budgetStatus(budget, cluster.nodes, cluster.pools, view.heldNodes, view.slots(budgetScopeKey(name)), new Date(now), o.policy, cluster);
      metrics?.observe(name, desired);
      if (!guard.check(name, writeFingerprint(desired))) return;
      const result = await writer.write(name, desired);
      if (result === "unchanged") guard.reset(name);
      if (result === "written") o.logger.info({ budget: name, valid: desired.valid, disrupted: desired.disrupted }, "budget status written");
    },
  };
}
