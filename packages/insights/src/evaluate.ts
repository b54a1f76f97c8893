// The whole evaluation (spec §14): pure function of the inputs, "now" and the wall clock.
import { alertInsights } from "./alerts.js";
import { MASTER_POOL } from "./annotations.js";
import { assignNodesToPools } from "./assign-pools.js";
import { findCondition } from "./conditions.js";
import { assessControlPlane } from "./control-plane.js";
import { roundDuration } from "./duration.js";
import { noClusterOperators, noClusterVersion, noProgressing } from "./errors.js";
import { finalizeHealth, nodeInsights, pausedPoolInsight } from "./health.js";
import type { Evaluation, HealthInsight, NodeRecord, PoolSummary } from "./model.js";
import { type ClusterContext, clusterContext, evaluateNode, machineConfigVersion } from "./node-status.js";
import { poolComplete, summarizePool } from "./pool-summary.js";
import { SECOND, parseTime } from "./time.js";
import type { AlertsResponse, ClusterOperator, ClusterVersion, Condition, EvaluateOptions, StatusInputs } from "./types.js";

export function machineConfigVersions(inputs: StatusInputs): Map<string, string> {
  const versions = new Map<string, string>();
  for (const mc of inputs.machineConfigs) {
    // First MC of a name wins, like upstream's linear search.
    if (!versions.has(mc.metadata.name)) versions.set(mc.metadata.name, machineConfigVersion(mc));
  }
  return versions;
}

/**
 * The ClusterVersion, the ClusterOperators and the Progressing condition an evaluation needs;
 * throws StatusError (§3.3) when one is missing.
 */
export function requireClusterInputs(cv: ClusterVersion | undefined, operators: readonly ClusterOperator[]): { cv: ClusterVersion; progressing: Condition } {
  if (!cv) throw noClusterVersion();
  if (operators.length === 0) throw noClusterOperators();
  const progressing = findCondition(cv.status?.conditions, "Progressing");
  if (!progressing) throw noProgressing();
  return { cv, progressing };
}

/** What the cluster-level part of an evaluation reads, once every pool is summarised. */
export interface ClusterPart {
  now: bigint;
  cv: ClusterVersion;
  progressing: Condition;
  operators: readonly ClusterOperator[];
  mcoImage: string;
  alerts: AlertsResponse | undefined;
  masterPool: PoolSummary | undefined;
  workerPools: PoolSummary[];
  /** The pools' node and paused-pool insights, in pool order; the rest are added to it. */
  collected: HealthInsight[];
  /** Insights of the caller's own, after the control plane's. */
  extra?: readonly HealthInsight[];
}

/** The evaluation from its summarised pools: whether an update is under way, alerts, the control plane, health. */
export function completeEvaluation(p: ClusterPart): Evaluation {
  const { now, cv, progressing, masterPool, workerPools, collected } = p;
  const history = cv.status?.history ?? [];
  const workerOutdated = workerPools.some((pool) => !pool.empty && !poolComplete(pool));
  const notUpdating = progressing.status !== "True" && !workerOutdated;

  const updateStart = history[0] ? parseTime(history[0].startedTime) : parseTime(progressing.lastTransitionTime);
  const updatingFor = roundDuration(now - updateStart, SECOND);
  collected.push(...alertInsights(p.alerts, updateStart));

  const controlPlane = assessControlPlane(cv, p.operators, p.mcoImage, now);
  collected.push(...controlPlane.insights, ...(p.extra ?? []));

  return {
    now,
    notUpdating,
    controlPlane: controlPlane.summary,
    masterPool,
    workerPools,
    health: finalizeHealth(collected, now, updatingFor),
  };
}

/** Throws StatusError (§3.3) for unusable inputs. */
export function evaluate(inputs: StatusInputs, options: EvaluateOptions): Evaluation {
  const { now, wallClock } = options;
  const { cv, progressing } = requireClusterInputs(inputs.clusterVersion, inputs.clusterOperators);
  const ctx: ClusterContext = clusterContext(cv, machineConfigVersions(inputs));

  const nodesPerPool = assignNodesToPools(inputs.pools, inputs.nodes);
  const collected: HealthInsight[] = [];
  let masterPool: PoolSummary | undefined;
  const workerPools: PoolSummary[] = [];
  for (const pool of inputs.pools) {
    const records: NodeRecord[] = [];
    for (const node of nodesPerPool.get(pool.metadata.name) ?? []) {
      const { record, availability } = evaluateNode(node, pool, ctx);
      records.push(record);
      collected.push(...nodeInsights(record, availability, wallClock));
    }
    const summary = summarizePool(pool, records);
    const paused = pausedPoolInsight(summary);
    if (paused) collected.push(paused);
    if (pool.metadata.name === MASTER_POOL) masterPool = summary;
    else workerPools.push(summary);
  }

  return completeEvaluation({ now, cv, progressing, operators: inputs.clusterOperators, mcoImage: inputs.mcoImage, alerts: inputs.alerts, masterPool, workerPools, collected });
}
