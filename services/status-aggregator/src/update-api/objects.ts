// Desired Update Status API objects from the aggregator's view: pure functions of node records,
// pool summaries, the ClusterVersion/ClusterOperators and the evaluated health insights. The text
// (messages, reasons) is the insights package's, so `oc`'s view can be drawn back from the objects.
import { createHash } from "node:crypto";
import {
  type ClusterOperator,
  type ClusterVersion,
  type Evaluation,
  type HealthInsight,
  type NodeRecord,
  type PoolSummary,
  assessControlPlane,
  findCondition,
  formatRFC3339,
  isMultiArch,
  isZeroTime,
  limitMessage,
  pct,
  toNodeStatusInsight,
} from "@lockstep/insights";
import type {
  ApiCondition,
  ApiResourceRef,
  ClusterOperatorProgressStatus,
  ClusterVersionProgressStatus,
  HealthStatus,
  InsightKind,
  InsightStatus,
  NodeProgressStatus,
  PoolProgressStatus,
} from "@lockstep/contracts";

/** A condition whose lastTransitionTime may be left to the writer (kept while the status holds). */
export type DesiredCondition = Omit<ApiCondition, "lastTransitionTime"> & { lastTransitionTime?: string };

export interface DesiredObject {
  kind: InsightKind;
  name: string;
  status: InsightStatus;
}

/** Store key of an object: kind and name. */
export const objectKey = (kind: InsightKind, name: string): string => `${kind}/${name}`;

/** Condition reasons must match ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$ (metav1.Condition). */
const REASON = /^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/;
const reasonOr = (reason: string | undefined, fallback: string): string => (reason && REASON.test(reason) && reason.length <= 1024 ? reason : fallback);

/**
 * The node's insight: the insights package's NodeStatusInsight (PR 2012 shape) moved to PR 2233's
 * (no `.resource`), Available=False whenever the node is unavailable. Condition times are the row's transition time, or when the node became
 * unavailable, so an unchanged row gives an identical object.
 */
export function nodeObject(record: NodeRecord, since: bigint): DesiredObject {
  const insight = toNodeStatusInsight(record, since);
  const status: NodeProgressStatus = {
    name: insight.name,
    poolResource: insight.poolResource,
    scopeType: insight.scopeType,
    conditions: insight.conditions.map((c) => ({ ...c })),
  };
  // Available is the node's own availability (accepting workloads), as the API defines it, also
  // while it updates; the view's Unavailable assessment is Available=False without Updating=True.
  const available = status.conditions.find((c) => c.type === "Available");
  if (available && record.isUnavailable && available.status === "True") {
    Object.assign(available, { status: "False", reason: "Unavailable", message: record.unavailableReason, lastTransitionTime: isZeroTime(record.unavailableSince) ? formatRFC3339(since) : formatRFC3339(record.unavailableSince) });
  }
  if (insight.version !== undefined) status.version = insight.version;
  if (insight.estimatedToComplete !== undefined) status.estimatedToComplete = insight.estimatedToComplete;
  if (insight.message !== undefined) status.message = insight.message;
  return { kind: "NodeProgressInsight", name: record.name, status };
}

const SUMMARY_MAX = 2000; // the CRD's bound on one count

export function poolObject(pool: PoolSummary): DesiredObject {
  const c = pool.counters;
  const complete = c.updated === c.total;
  let updating: DesiredCondition;
  if (complete) updating = { type: "Updating", status: "False", reason: "Updated", message: "All nodes in the pool are updated" };
  else if (pool.paused) updating = { type: "Updating", status: "False", reason: "Paused", message: "The pool is paused" };
  else if (c.pending === c.total) updating = { type: "Updating", status: "False", reason: "Pending", message: "No node in the pool has started updating" };
  else updating = { type: "Updating", status: "True", reason: "Progressing", message: `${c.updated} of ${c.total} nodes updated` };
  const healthy: DesiredCondition =
    c.degraded > 0
      ? { type: "Healthy", status: "False", reason: "Degraded", message: `${c.degraded} nodes are degraded` }
      : { type: "Healthy", status: "True", reason: "AsExpected", message: "No node in the pool is degraded" };
  const count = (n: number) => Math.min(n, SUMMARY_MAX);
  const status: PoolProgressStatus = {
    name: pool.name,
    scopeType: pool.scopeType,
    assessment: pool.assessment,
    completionPercent: Number.isFinite(pool.completion) ? Number(pct(pool.completion)) : 100,
    summaries: [
      { type: "Total", count: count(c.total) },
      { type: "Available", count: count(c.available) },
      { type: "Progressing", count: count(c.progressing) },
      { type: "Outdated", count: count(c.outdated) },
      { type: "Draining", count: count(c.draining) },
      { type: "Excluded", count: count(c.excluded) },
      { type: "Degraded", count: count(c.degraded) },
    ],
    conditions: [updating as ApiCondition, healthy as ApiCondition],
  };
  return { kind: "MachineConfigPoolProgressInsight", name: pool.name, status };
}

const time = (t: string | null | undefined): string | undefined => (t ? t : undefined);

/**
 * The control plane's insight. Times are the ClusterVersion's own (history, Progressing); the
 * estimate is an instant (now + remaining), so it stays put while the update runs as estimated.
 */
export function clusterVersionObject(cv: ClusterVersion, evaluation: Evaluation): DesiredObject {
  const cp = evaluation.controlPlane;
  const history = cv.status?.history ?? [];
  const [h0, h1] = history;
  const progressing = findCondition(cv.status?.conditions, "Progressing");
  const failing = findCondition(cv.status?.conditions, "Failing");
  const target: ClusterVersionProgressStatus["versions"]["target"] = { version: h0?.version ?? "" };
  if (history.length === 1) target.metadata = [{ key: "Installation" }];
  else if (isMultiArch(history)) target.metadata = [{ key: "Architecture", value: "multi" }];
  const versions: ClusterVersionProgressStatus["versions"] = { target };
  if (history.length > 1) {
    versions.previous = { version: h1?.version ?? "" };
    if (h1?.state === "Partial") versions.previous.metadata = [{ key: "Partial" }];
  }
  const pStatus = progressing?.status === "True" ? "True" : progressing?.status === "False" ? "False" : "Unknown";
  const updating: DesiredCondition = {
    type: "Updating",
    status: pStatus,
    reason: pStatus === "True" ? "Progressing" : pStatus === "False" ? "NotProgressing" : "CannotDetermineUpdating",
    message: `ClusterVersion has Progressing=${progressing?.status ?? "Unknown"}(Reason=${progressing?.reason ?? ""}) | Message='${progressing?.message ?? ""}'`,
    lastTransitionTime: time(progressing?.lastTransitionTime),
  };
  const healthy: DesiredCondition =
    failing?.status === "False"
      ? { type: "Healthy", status: "True", reason: "AsExpected", message: "The update proceeds without observed failures", lastTransitionTime: time(failing.lastTransitionTime) }
      : {
          type: "Healthy",
          status: failing ? "False" : "Unknown",
          reason: failing ? reasonOr(failing.reason, "Failing") : "CannotDetermine",
          message: failing?.message ?? "ClusterVersion has no Failing condition",
          lastTransitionTime: time(failing?.lastTransitionTime),
        };
  const startedAt = time(h0?.startedTime) ?? time(progressing?.lastTransitionTime) ?? formatRFC3339(evaluation.now);
  const status: ClusterVersionProgressStatus = {
    name: cv.metadata.name,
    assessment: cp.completed ? "Completed" : cp.assessment,
    versions,
    completionPercent: Math.max(0, Math.min(100, Number.isFinite(cp.completion) ? Math.floor(cp.completion) : 0)),
    startedAt,
    conditions: [updating as ApiCondition, healthy as ApiCondition],
  };
  if (h0?.state === "Completed" && h0.completionTime) status.completedAt = h0.completionTime;
  if (!cp.completed && cp.estTimeToComplete !== 0n) status.estimatedCompletedAt = formatRFC3339(evaluation.now + cp.estTimeToComplete);
  return { kind: "ClusterVersionProgressInsight", name: cv.metadata.name, status };
}

/**
 * One operator's insight, classified by the insights package's own rules (assessControlPlane on the
 * single operator). Updating=True carries the operator's Progressing reason (the view's REASON
 * column); `Progressing` stands for "no reason given".
 */
export function clusterOperatorObject(cv: ClusterVersion, co: ClusterOperator, now: bigint): DesiredObject | undefined {
  const ops = assessControlPlane(cv, [co], "", now).summary.operators;
  if (ops.total === 0) return undefined; // not a platform operator: not part of the update
  const progressing = findCondition(co.status?.conditions, "Progressing");
  const available = findCondition(co.status?.conditions, "Available");
  const degraded = findCondition(co.status?.conditions, "Degraded");
  const since = time(progressing?.lastTransitionTime);
  let updating: DesiredCondition;
  const u = ops.updating[0];
  if (ops.updated === 1) updating = { type: "Updating", status: "False", reason: "Updated", message: progressing?.message ?? "", lastTransitionTime: since };
  else if (u) updating = { type: "Updating", status: "True", reason: reasonOr(u.reason, "Progressing"), message: u.message, lastTransitionTime: formatRFC3339(u.since) };
  else if (ops.waiting === 1) updating = { type: "Updating", status: "False", reason: "Pending", message: progressing?.message ?? "", lastTransitionTime: since };
  else updating = { type: "Updating", status: "Unknown", reason: "CannotDetermine", message: "The operator has no Progressing condition" };
  let healthy: DesiredCondition;
  if (ops.unavailable === 1)
    healthy = { type: "Healthy", status: "False", reason: "Unavailable", message: available?.message ?? "The operator has no Available condition", lastTransitionTime: time(available?.lastTransitionTime) };
  else if (ops.degraded === 1) healthy = { type: "Healthy", status: "False", reason: "Degraded", message: degraded?.message ?? "", lastTransitionTime: time(degraded?.lastTransitionTime) };
  else healthy = { type: "Healthy", status: "True", reason: "AsExpected", message: "" };
  const status: ClusterOperatorProgressStatus = { name: co.metadata.name, conditions: [updating as ApiCondition, healthy as ApiCondition] };
  return { kind: "ClusterOperatorProgressInsight", name: co.metadata.name, status };
}

const PLURAL_OF_KIND: Record<string, string> = {
  Node: "nodes",
  MachineConfigPool: "machineconfigpools",
  ClusterVersion: "clusterversions",
  ClusterOperator: "clusteroperators",
};

/** Kind → resource: the view prints `<kind lowercased>s`, which is the resource for every kind used. */
export const resourceOfKind = (kind: string): string => PLURAL_OF_KIND[kind] ?? `${kind.toLowerCase()}s`;

const DNS = /[^a-z0-9.-]+/g;

/**
 * A health insight's name: stable for as long as the same condition on the same objects lasts
 * (resources, impact type and reference identify it; level, text and times may change), readable
 * (kind and first resource), at most 253 characters.
 */
export function healthInsightName(i: HealthInsight): string {
  const identity = [i.scopeType, i.impact, i.reference, ...i.resources.map((r) => `${r.group ?? ""}/${r.kind}/${r.namespace ?? ""}/${r.name}`)].join("\u0000");
  const hash = createHash("sha256").update(identity).digest("hex").slice(0, 10);
  const first = i.resources[0];
  const readable = (first ? `${first.kind}-${first.name}` : "cluster").toLowerCase().replace(DNS, "-").replace(/^[^a-z0-9]+/, "").slice(0, 200);
  return `${readable.replace(/[^a-z0-9]+$/, "")}-${hash}`;
}

export function healthObject(i: HealthInsight): DesiredObject {
  const resources: ApiResourceRef[] = i.resources.map((r) => {
    const ref: ApiResourceRef = { resource: resourceOfKind(r.kind), name: r.name };
    if (r.group) ref.group = r.group;
    if (r.namespace) ref.namespace = r.namespace;
    return ref;
  });
  const status: HealthStatus = {
    // Go's zero time for "unknown", as upstream's metav1.Time would serialise it.
    startedAt: formatRFC3339(i.startedAt),
    // The API knows two scopes; Lockstep's cluster-wide insights are the control plane's business.
    scope: { type: i.scopeType === "WorkerPool" ? "WorkerPool" : "ControlPlane", resources },
    impact: { level: i.level, type: i.impact, summary: limitMessage(i.summary, 256) },
    remediation: { reference: i.reference },
  };
  if (i.description) status.impact.description = limitMessage(i.description, 4096);
  return { kind: "HealthInsight", name: healthInsightName(i), status };
}

/** Health insights that become objects: the evaluated ones (not oc's "proceeding well" fallback). */
export function healthObjects(evaluation: Evaluation): DesiredObject[] {
  if (evaluation.health.fallback) return [];
  const out = new Map<string, DesiredObject>();
  for (const i of evaluation.health.insights) {
    const o = healthObject(i);
    // Two insights of one identity (never seen in the rules) keep the first, like a map would.
    if (!out.has(o.name)) out.set(o.name, o);
  }
  return [...out.values()];
}

