// Conversions from the rules' evaluation to the lockstep.status.v1 messages. Pure.
import type {
  HealthInsight as ProtoHealth,
  NodeInsight as ProtoNodeInsight,
  PoolSummary as ProtoPool,
  UpdateStatus,
} from "@lockstep/contracts";
import {
  type Evaluation,
  type HealthInsight,
  type InsightResource,
  type NodeRecord,
  type PoolSummary,
  isZeroTime,
  pct,
  shortDuration,
  toNodeStatusInsight,
} from "@lockstep/insights";

const NS_PER_MS = 1_000_000n;

/** Unix ns → Date; Go's zero time (unknown) → undefined. */
export function toDate(ns: bigint): Date | undefined {
  return isZeroTime(ns) ? undefined : new Date(Number(ns / NS_PER_MS));
}

export function nodeInsightToProto(record: NodeRecord, since: bigint): ProtoNodeInsight {
  const insight = toNodeStatusInsight(record, since);
  return {
    name: insight.name,
    pool: record.pool,
    scopeType: insight.scopeType,
    version: insight.version ?? "",
    estimatedToComplete: insight.estimatedToComplete ?? "",
    estimatedToCompletePresent: insight.estimatedToComplete !== undefined,
    message: insight.message ?? "",
    conditions: insight.conditions.map((c) => ({
      type: c.type,
      status: c.status,
      reason: c.reason,
      message: c.message,
      lastTransitionTime: new Date(c.lastTransitionTime),
    })),
    record: {
      isUpdated: record.isUpdated,
      isUpdating: record.isUpdating,
      isUnavailable: record.isUnavailable,
      isDegraded: record.isDegraded,
      isDraining: record.isDraining,
      assessment: record.assessment,
      phase: record.phase,
      versionCell: record.version || "?",
      estCell: record.estimate,
      messageCell: record.message,
    },
  };
}

export function poolToProto(p: PoolSummary): ProtoPool {
  const c = p.counters;
  return {
    name: p.name,
    scopeType: p.scopeType,
    assessment: p.empty ? "Empty" : p.assessment,
    completion: p.empty ? 0 : p.completion,
    completionText: p.empty ? "" : `${pct(p.completion)}% (${c.total - c.outdated}/${c.total})`,
    total: c.total,
    available: c.available,
    progressing: c.progressing,
    outdated: c.outdated,
    draining: c.draining,
    excluded: c.excluded,
    degraded: c.degraded,
    empty: p.empty,
    paused: p.paused,
  };
}

/** `nodes/x`, `machineconfigpools.machineconfiguration.openshift.io/worker`, `leases.coordination.k8s.io/ns/x`. */
export function resourceText(r: InsightResource): string {
  const kind = `${r.kind.toLowerCase()}s${r.group ? `.${r.group}` : ""}`;
  return `${kind}/${r.namespace ? `${r.namespace}/` : ""}${r.name}`;
}

export function healthToProto(h: HealthInsight, lockstep: boolean): ProtoHealth {
  return {
    startedAt: toDate(h.startedAt),
    scopeType: h.scopeType,
    scopeResources: h.resources.map(resourceText),
    level: h.level,
    impactType: h.impact,
    summary: h.summary,
    description: h.description,
    reference: h.reference,
    lockstep,
  };
}

export interface StatusProtoInput {
  evaluation: Evaluation;
  /** Lockstep's own insights (flagged in the answer). */
  extra: ReadonlySet<HealthInsight>;
  /** Node insights in name order; omitted when the caller asked for no nodes. */
  nodes: ProtoNodeInsight[];
  revision: number;
}

export function updateStatusToProto({ evaluation: e, extra, nodes, revision }: StatusProtoInput): UpdateStatus {
  const cp = e.controlPlane;
  const ops = cp.operators;
  const pools = [...(e.masterPool ? [e.masterPool] : []), ...e.workerPools];
  return {
    now: toDate(e.now),
    updating: !e.notUpdating,
    controlPlane: {
      assessment: cp.assessment,
      targetVersion: cp.targetVersionText,
      updatingOperators: ops.updating.map((o) => ({
        name: o.name,
        progressing: { type: "Progressing", status: "True", reason: o.reason, message: o.message, lastTransitionTime: toDate(o.since) },
      })),
      completion: cp.completion,
      updated: ops.updated,
      waiting: ops.waiting,
      total: ops.total,
      operatorsAvailable: ops.total - ops.unavailable,
      operatorsDegraded: ops.degraded,
      operatorsUnavailable: ops.unavailable,
      duration: shortDuration(cp.duration),
      completionAt: cp.completed ? toDate(cp.completionAt) : undefined,
      estTimeToComplete: cp.estTimeToComplete === 0n ? "" : shortDuration(cp.estTimeToComplete),
      estDuration: cp.estDuration === 0n ? "" : shortDuration(cp.estDuration),
      multiArch: cp.multiArch,
      completed: cp.completed,
    },
    pools: pools.map(poolToProto),
    nodes,
    health: e.health.insights.map((h) => healthToProto(h, extra.has(h))),
    healthFallback: e.health.fallback,
    revision: String(revision),
  };
}
