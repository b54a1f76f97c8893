// Spec §9 (and the ClusterVersion insights of §11.2): the control-plane summary.
import { CONFIG_GROUP } from "./annotations.js";
import { findCondition } from "./conditions.js";
import { roundDuration } from "./duration.js";
import { baselineDuration, estimateCompletion, estimatedDuration } from "./eta.js";
import { isMultiArch, targetVersionText } from "./history.js";
import type { ControlPlaneAssessment, ControlPlaneSummary, HealthInsight } from "./model.js";
import { R_DEGR, assessOperators } from "./operators.js";
import { MINUTE, SECOND, ZERO_TIME, parseTime } from "./time.js";
import type { ClusterOperator, ClusterVersion } from "./types.js";

export const R_HIST =
  "https://docs.openshift.com/container-platform/latest/updating/troubleshooting_updates/gathering-data-cluster-update.html#gathering-clusterversion-history-cli_troubleshooting_updates";

export interface ControlPlaneAssessmentResult {
  summary: ControlPlaneSummary;
  /** ClusterVersion Failing insight, operator insights, previous-update insight, in that order. */
  insights: HealthInsight[];
}

function failingInsight(cv: ClusterVersion, now: bigint): HealthInsight | undefined {
  const cvName = cv.metadata.name;
  const resources = [{ kind: "ClusterVersion", group: CONFIG_GROUP, name: cvName }];
  const failing = findCondition(cv.status?.conditions, "Failing");
  if (!failing) {
    return {
      startedAt: now,
      scopeType: "ControlPlane",
      resources,
      level: "Warning",
      impact: "Update Stalled",
      summary: `Cluster Version ${cvName} has no Failing condition`,
      description:
        "Current status of Cluster Version reconciliation is unclear.  See 'oc -n openshift-cluster-version logs -l k8s-app=cluster-version-operator --tail -1' to debug.",
      reference: R_DEGR,
    };
  }
  if (failing.status === "False") return undefined;
  const verb = failing.status === "Unknown" ? "may be" : "is";
  return {
    startedAt: parseTime(failing.lastTransitionTime),
    scopeType: "ControlPlane",
    resources,
    level: "Warning",
    impact: "Update Stalled",
    summary: `Cluster Version ${cvName} ${verb} failing to proceed with the update (${failing.reason ?? ""})`,
    description: failing.message ?? "",
    reference: R_DEGR,
  };
}

export function assessControlPlane(
  cv: ClusterVersion,
  operators: readonly ClusterOperator[],
  mcoImage: string,
  now: bigint,
): ControlPlaneAssessmentResult {
  const history = cv.status?.history ?? [];
  const insights: HealthInsight[] = [];
  const failing = failingInsight(cv, now);
  if (failing) insights.push(failing);

  const ops = assessOperators(operators, cv.status?.desired?.version ?? "", mcoImage, now);
  insights.push(...ops.insights);
  const { summary: operatorSummary } = ops;
  const completed = operatorSummary.updated === operatorSummary.total;

  let lastObservedProgress = ops.lastObservedProgress;
  // Daemonset operators flap Progressing while nodes reboot; when MCO is the last one, trust its start.
  if (ops.mcoStartedUpdating !== ZERO_TIME && operatorSummary.total - operatorSummary.updated === 1) {
    lastObservedProgress = ops.mcoStartedUpdating;
  }

  let updatingFor = 0n;
  let toLastObservedProgress = 0n;
  let duration = 0n;
  let completionAt = ZERO_TIME;
  const h0 = history[0];
  if (h0) {
    const started = parseTime(h0.startedTime);
    if (!(lastObservedProgress > started)) lastObservedProgress = now;
    toLastObservedProgress = lastObservedProgress - started;
    completionAt = h0.state === "Completed" ? parseTime(h0.completionTime) : now;
    updatingFor = completionAt - started;
    duration = updatingFor > 10n * MINUTE ? roundDuration(updatingFor, MINUTE) : roundDuration(updatingFor, SECOND);
  }

  const multiArch = isMultiArch(history);
  const h1 = history[1];
  if (!completed && h1 && h1.state === "Partial") {
    const lastComplete = history.slice(2).find((h) => h.state === "Completed")?.version ?? "unknown";
    insights.push({
      startedAt: parseTime(h0?.startedTime),
      scopeType: "ControlPlane",
      resources: [{ kind: "ClusterVersion", group: CONFIG_GROUP, name: cv.metadata.name }],
      level: "Warning",
      impact: "None",
      summary: `Previous update to ${h1.version ?? ""} never completed, last complete update was ${lastComplete}`,
      description: `Current update to ${h0?.version ?? ""} was initiated while the previous update to version ${h1.version ?? ""} was still in progress`,
      reference: R_HIST,
    });
  }

  const fraction = operatorSummary.updated / operatorSummary.total;
  let assessment: ControlPlaneAssessment = completed ? "Completed" : "Progressing";
  let estTimeToComplete = 0n;
  let estDuration = 0n;
  if (fraction <= 1 && !completed) {
    estTimeToComplete = estimateCompletion(baselineDuration(history), toLastObservedProgress, updatingFor, fraction);
    estDuration = estimatedDuration(updatingFor, estTimeToComplete);
    if (estTimeToComplete < -10n * MINUTE) assessment = "Stalled";
    else if (estTimeToComplete < 0n) assessment = "Progressing - Slow";
  }

  return {
    insights,
    summary: {
      assessment,
      completed,
      targetVersion: h0 ? (h0.version ?? "") : "unknown",
      targetVersionText: targetVersionText(history),
      operators: operatorSummary,
      completion: fraction * 100,
      duration,
      completionAt,
      estTimeToComplete,
      estDuration,
      multiArch,
    },
  };
}
