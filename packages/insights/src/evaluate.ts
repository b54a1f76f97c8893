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
import type { EvaluateOptions, StatusInputs } from "./types.js";

export function machineConfigVersions(inputs: StatusInputs): Map<string, string> {
  const versions = new Map<string, string>();
  for (const mc of inputs.machineConfigs) {
    // First MC of a name wins, like upstream's linear search.
    if (!versions.has(mc.metadata.name)) versions.set(mc.metadata.name, machineConfigVersion(mc));
  }
  return versions;
}

/** Throws StatusError (§3.3) for unusable inputs. */
export function evaluate(inputs: StatusInputs, options: EvaluateOptions): Evaluation {
  const { now, wallClock } = options;
  const cv = inputs.clusterVersion;
  if (!cv) throw noClusterVersion();
  if (inputs.clusterOperators.length === 0) throw noClusterOperators();
  const progressing = findCondition(cv.status?.conditions, "Progressing");
  if (!progressing) throw noProgressing();

  const history = cv.status?.history ?? [];
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

  const workerOutdated = workerPools.some((p) => !p.empty && !poolComplete(p));
  const notUpdating = progressing.status !== "True" && !workerOutdated;

  const updateStart = history[0] ? parseTime(history[0].startedTime) : parseTime(progressing.lastTransitionTime);
  const updatingFor = roundDuration(now - updateStart, SECOND);
  collected.push(...alertInsights(inputs.alerts, updateStart));

  const controlPlane = assessControlPlane(cv, inputs.clusterOperators, inputs.mcoImage, now);
  collected.push(...controlPlane.insights);

  return {
    now,
    notUpdating,
    controlPlane: controlPlane.summary,
    masterPool,
    workerPools,
    health: finalizeHealth(collected, now, updatingFor),
  };
}
