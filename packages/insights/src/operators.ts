// Spec §8: platform operators, their classification, and their health insights (§11.2).
import { CONFIG_GROUP } from "./annotations.js";
import { findLastCondition } from "./conditions.js";
import type { HealthInsight, OperatorSummary } from "./model.js";
import { MINUTE, ZERO_TIME, parseTime } from "./time.js";
import type { ClusterOperator, Condition } from "./types.js";

export const R_DOWN = "https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/ClusterOperatorDown.md";
export const R_DEGR = "https://github.com/openshift/runbooks/blob/master/alerts/cluster-monitoring-operator/ClusterOperatorDegraded.md";

export function isPlatformOperator(co: ClusterOperator): boolean {
  return Object.keys(co.metadata.annotations ?? {}).some(
    (k) => k.startsWith("exclude.release.openshift.io/") || k.startsWith("include.release.openshift.io/"),
  );
}

export function isOperatorUpdated(co: ClusterOperator, desiredVersion: string, mcoImage: string): boolean {
  const versions = co.status?.versions ?? [];
  if (co.metadata.name === "machine-config") {
    const imageEntry = versions.find((v) => v.name === "operator-image" && v.version !== mcoImage);
    if (imageEntry) return false;
  }
  return versions.some((v) => v.name === "operator" && v.version === desiredVersion);
}

export interface OperatorAssessment {
  summary: OperatorSummary;
  /** Latest Progressing transition over platform operators; ZERO_TIME if none. */
  lastObservedProgress: bigint;
  /** Progressing transition of machine-config while it updates; ZERO_TIME otherwise. */
  mcoStartedUpdating: bigint;
  insights: HealthInsight[];
}

const UNAVAILABLE_WARNING = 5n * MINUTE;
const UNAVAILABLE_ERROR = 20n * MINUTE;
const DEGRADED_WARNING = 5n * MINUTE;
const DEGRADED_ERROR = 40n * MINUTE;

function operatorInsights(name: string, available: Condition | undefined, degraded: Condition | undefined, now: bigint): HealthInsight[] {
  const out: HealthInsight[] = [];
  const resources = [{ kind: "ClusterOperator", group: CONFIG_GROUP, name }];
  if (available && available.status === "False") {
    const since = parseTime(available.lastTransitionTime);
    if (now > since + UNAVAILABLE_WARNING) {
      out.push({
        startedAt: since,
        scopeType: "ControlPlane",
        resources,
        level: now > since + UNAVAILABLE_ERROR ? "Error" : "Warning",
        impact: "API Availability",
        summary: `Cluster Operator ${name} is unavailable (${available.reason ?? ""})`,
        description: available.message ? available.message : "<no message>",
        reference: R_DOWN,
      });
    }
  }
  if (degraded && degraded.status === "True") {
    const since = parseTime(degraded.lastTransitionTime);
    if (now > since + DEGRADED_WARNING) {
      out.push({
        startedAt: since,
        scopeType: "ControlPlane",
        resources,
        level: now > since + DEGRADED_ERROR ? "Error" : "Warning",
        impact: "API Availability",
        summary: `Cluster Operator ${name} is degraded (${degraded.reason ?? ""})`,
        description: degraded.message ? degraded.message : "<no message>",
        reference: R_DEGR,
      });
    }
  }
  return out;
}

export function assessOperators(
  operators: readonly ClusterOperator[],
  desiredVersion: string,
  mcoImage: string,
  now: bigint,
): OperatorAssessment {
  const summary: OperatorSummary = { total: 0, updated: 0, waiting: 0, unavailable: 0, degraded: 0, updating: [] };
  let lastObservedProgress = ZERO_TIME;
  let mcoStartedUpdating = ZERO_TIME;
  const insights: HealthInsight[] = [];
  for (const co of operators) {
    if (!isPlatformOperator(co)) continue;
    const name = co.metadata.name;
    const updated = isOperatorUpdated(co, desiredVersion, mcoImage);
    if (updated) summary.updated++;
    summary.total++;
    const conditions = co.status?.conditions;
    const available = findLastCondition(conditions, "Available");
    const degraded = findLastCondition(conditions, "Degraded");
    const progressing = findLastCondition(conditions, "Progressing");
    if (progressing) {
      const since = parseTime(progressing.lastTransitionTime);
      if (since > lastObservedProgress) lastObservedProgress = since;
      if (!updated && progressing.status === "True") {
        summary.updating.push({ name, reason: progressing.reason ?? "", message: progressing.message ?? "", since });
        if (name === "machine-config") mcoStartedUpdating = since;
      }
      if (!updated && progressing.status === "False") summary.waiting++;
    }
    if (!available || available.status !== "True") summary.unavailable++;
    else if (degraded && degraded.status === "True") summary.degraded++;
    insights.push(...operatorInsights(name, available, degraded, now));
  }
  return { summary, lastObservedProgress, mcoStartedUpdating, insights };
}
