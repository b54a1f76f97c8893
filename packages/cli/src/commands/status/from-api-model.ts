// `lockstep status --from-api`, the pure part: the `oc adm upgrade status` evaluation rebuilt from
// the Update Status API objects alone (update.openshift.io/v1alpha1), for the insights package's
// renderer. Nothing else is read: whatever the view shows must be in the objects.
import {
  type ControlPlaneAssessment,
  type Evaluation,
  type HealthInsight,
  type ImpactType,
  type InsightLevel,
  type NodeAssessment,
  type NodeRecord,
  type OperatorSummary,
  type PoolSummary,
  MINUTE,
  SECOND,
  ZERO_TIME,
  ellipsizeNames,
  finalizeHealth,
  parseGoDuration,
  parseTime,
  PHASE_BY_REASON,
  poolComplete,
  roundDuration,
  shortDuration,
  summarizePool,
  truncateDuration,
} from "@lockstep/insights";
import type {
  ApiCondition,
  ClusterOperatorProgressStatus,
  ClusterVersionProgressStatus,
  HealthStatus,
  InsightObject,
  InsightObjects,
  NodeProgressStatus,
  PoolProgressStatus,
} from "@lockstep/contracts";

export class FromApiError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FromApiError";
  }
}

const MASTER_POOL = "master";

const cond = (conditions: readonly ApiCondition[] | undefined, type: string): ApiCondition | undefined => conditions?.find((c) => c.type === type);
const statuses = <S>(objects: readonly InsightObject[]): S[] => objects.flatMap((o) => (o.status ? [o.status as S] : []));
const timeOf = (t: string | undefined): bigint => (t ? parseTime(t) : ZERO_TIME);

/** A table row from a node's insight: the rules of evaluateNode read backwards. */
export function nodeRecordFromApi(s: NodeProgressStatus): NodeRecord {
  const updating = cond(s.conditions, "Updating");
  const available = cond(s.conditions, "Available");
  const degraded = cond(s.conditions, "Degraded");
  const phase = PHASE_BY_REASON[updating?.reason ?? ""] ?? "Pending";
  const isUpdating = updating?.status === "True";
  const isUnavailable = available?.status === "False";
  const isDegraded = degraded?.status === "True";
  let assessment: NodeAssessment;
  let message = s.message ?? "";
  if (isDegraded) {
    assessment = "Degraded";
    message = ellipsizeNames(degraded?.message ?? "", s.name);
  } else if (isUnavailable && !isUpdating) {
    assessment = "Unavailable";
    message = ellipsizeNames(available?.message ?? "", s.name);
  } else if (isUpdating) assessment = "Progressing";
  else if (phase === "Updated") assessment = "Completed";
  else if (phase === "Paused") assessment = "Excluded";
  else assessment = "Outdated";
  let estimate = "?";
  if (s.estimatedToComplete !== undefined) {
    const d = parseGoDuration(s.estimatedToComplete) ?? 0n;
    estimate = d === 0n ? "-" : `+${shortDuration(d)}`;
  }
  return {
    name: s.name,
    pool: s.poolResource?.name ?? "",
    scopeType: s.scopeType,
    assessment,
    phase,
    version: s.version ?? "",
    estimate,
    message,
    isUpdated: phase === "Updated",
    isUpdating,
    isUnavailable,
    isDegraded,
    isDraining: phase === "Draining",
    unavailableReason: isUnavailable ? (available?.message ?? "") : "",
    unavailableSince: isUnavailable ? timeOf(available?.lastTransitionTime) : ZERO_TIME,
    degradedReason: isDegraded ? (degraded?.message ?? "") : "",
  };
}

function operatorSummary(operators: readonly ClusterOperatorProgressStatus[]): OperatorSummary {
  const summary: OperatorSummary = { total: 0, updated: 0, waiting: 0, unavailable: 0, degraded: 0, updating: [] };
  for (const o of operators) {
    summary.total++;
    const updating = cond(o.conditions, "Updating");
    const healthy = cond(o.conditions, "Healthy");
    if (updating?.status === "False" && updating.reason === "Updated") summary.updated++;
    else if (updating?.status === "False" && updating.reason === "Pending") summary.waiting++;
    else if (updating?.status === "True") {
      // `Progressing` is the API's reason when the operator gave none (the view prints `-`).
      summary.updating.push({ name: o.name, reason: updating.reason === "Progressing" ? "" : updating.reason, message: updating.message, since: timeOf(updating.lastTransitionTime) });
    }
    if (healthy?.status !== "True" && healthy?.reason === "Unavailable") summary.unavailable++;
    else if (healthy?.status === "False" && healthy.reason === "Degraded") summary.degraded++;
  }
  return summary;
}

function targetVersionText(v: ClusterVersionProgressStatus["versions"]): string {
  const target = v.target.version ?? "";
  const has = (x: { metadata?: Array<{ key: string }> } | undefined, key: string) => x?.metadata?.some((m) => m.key === key) ?? false;
  if (has(v.target, "Installation")) return `${target} (a new install)`;
  const previous = v.previous?.version ?? "unknown";
  if (has(v.previous, "Partial")) return `${target} (from incomplete ${previous})`;
  if (has(v.target, "Architecture")) return `${target} to Multi-Architecture`;
  return `${target} (from ${previous})`;
}

const KIND_OF_RESOURCE: Record<string, string> = {
  nodes: "Node",
  machineconfigpools: "MachineConfigPool",
  clusterversions: "ClusterVersion",
  clusteroperators: "ClusterOperator",
};

/**
 * The order insights are collected in before the view's stable sort (level, then newest first):
 * nodes, pools, the ClusterVersion's failure, operators, the previous update, then the rest; within
 * one source, by the first resource's name (upstream's collection order for the rules' sources).
 */
function sourceRank(s: HealthStatus): number {
  const resource = s.scope.resources?.[0]?.resource ?? "";
  if (resource === "nodes") return 0;
  if (resource === "machineconfigpools") return 1;
  if (resource === "clusterversions") return s.impact.type === "None" ? 4 : 2;
  if (resource === "clusteroperators") return 3;
  return 5;
}

function healthFromApi(s: HealthStatus): HealthInsight {
  return {
    startedAt: timeOf(s.startedAt),
    scopeType: s.scope.type,
    resources: (s.scope.resources ?? []).map((r) => ({
      kind: KIND_OF_RESOURCE[r.resource] ?? r.resource.replace(/s$/, ""),
      ...(r.group ? { group: r.group } : {}),
      ...(r.namespace ? { namespace: r.namespace } : {}),
      name: r.name,
    })),
    level: s.impact.level as InsightLevel,
    impact: s.impact.type as ImpactType,
    summary: s.impact.summary,
    description: s.impact.description ?? "",
    reference: s.remediation.reference,
  };
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The evaluation the objects describe at `now`. Throws FromApiError when there is no ClusterVersion insight. */
export function evaluationFromApi(objects: InsightObjects, now: bigint): Evaluation {
  const cv = statuses<ClusterVersionProgressStatus>(objects.ClusterVersionProgressInsight)[0];
  if (!cv) throw new FromApiError("no ClusterVersionProgressInsight: is the Update Status API produced in this cluster (UPDATE_API_ENABLED on the status-aggregator)?");
  const operators = operatorSummary(statuses<ClusterOperatorProgressStatus>(objects.ClusterOperatorProgressInsight));
  if (operators.total === 0) throw new FromApiError("no ClusterOperatorProgressInsight objects");

  const started = timeOf(cv.startedAt);
  const completionAt = cv.completedAt ? parseTime(cv.completedAt) : now;
  const updatingFor = completionAt - started;
  const completed = operators.updated === operators.total;
  // The instant is written in whole seconds; the estimate is rounded back the way the rule rounds it.
  const remaining = !completed && cv.estimatedCompletedAt ? parseTime(cv.estimatedCompletedAt) - now : 0n;
  const estTimeToComplete = remaining > 10n * MINUTE ? roundDuration(remaining, MINUTE) : roundDuration(remaining, SECOND);
  const controlPlane = {
    assessment: cv.assessment as ControlPlaneAssessment,
    completed,
    targetVersion: cv.versions.target.version ?? "",
    targetVersionText: targetVersionText(cv.versions),
    operators,
    completion: (operators.updated / operators.total) * 100,
    duration: updatingFor > 10n * MINUTE ? roundDuration(updatingFor, MINUTE) : roundDuration(updatingFor, SECOND),
    completionAt,
    estTimeToComplete,
    estDuration: truncateDuration(updatingFor + estTimeToComplete, MINUTE),
    multiArch: cv.versions.target.metadata?.some((m) => m.key === "Architecture") ?? false,
  };

  const rowsByPool = new Map<string, NodeRecord[]>();
  for (const n of statuses<NodeProgressStatus>(objects.NodeProgressInsight)) {
    const r = nodeRecordFromApi(n);
    const list = rowsByPool.get(r.pool);
    if (list) list.push(r);
    else rowsByPool.set(r.pool, [r]);
  }
  let masterPool: PoolSummary | undefined;
  const workerPools: PoolSummary[] = [];
  const pools = statuses<PoolProgressStatus>(objects.MachineConfigPoolProgressInsight).sort((a, b) => byName(a.name, b.name));
  for (const p of pools) {
    const paused = cond(p.conditions, "Updating")?.reason === "Paused";
    const summary = summarizePool({ metadata: { name: p.name }, spec: { paused } }, rowsByPool.get(p.name) ?? []);
    if (p.name === MASTER_POOL) masterPool = summary;
    else workerPools.push(summary);
  }
  const workerOutdated = workerPools.some((p) => !p.empty && !poolComplete(p));
  const notUpdating = cond(cv.conditions, "Updating")?.status !== "True" && !workerOutdated;

  const health = objects.HealthInsight.flatMap((o) => (o.status ? [{ s: o.status as HealthStatus, name: o.metadata.name }] : []))
    .sort((a, b) => sourceRank(a.s) - sourceRank(b.s) || byName(a.s.scope.resources?.[0]?.name ?? "", b.s.scope.resources?.[0]?.name ?? "") || byName(a.name, b.name))
    .map(({ s }) => healthFromApi(s));
  return {
    now,
    notUpdating,
    controlPlane,
    masterPool,
    workerPools,
    health: finalizeHealth(health, now, roundDuration(now - started, SECOND)),
  };
}
