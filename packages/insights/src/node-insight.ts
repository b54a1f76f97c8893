// Spec §13: the node record as an upstream-shaped NodeStatusInsight (openshift/api PR #2012),
// and the reverse mapping a consumer uses to draw a table row from an insight.
import { MCO_GROUP } from "./annotations.js";
import { goDurationString, parseGoDuration, shortDuration } from "./duration.js";
import type { NodeAssessment, NodePhase, NodeRecord } from "./model.js";
import { MINUTE, formatRFC3339, isZeroTime } from "./time.js";

export interface ResourceRef {
  group?: string;
  resource: string;
  name: string;
  namespace?: string;
}

export type ConditionStatus = "True" | "False" | "Unknown";

export interface InsightCondition {
  type: "Updating" | "Available" | "Degraded";
  status: ConditionStatus;
  /** Must match ^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$; human text goes to message. */
  reason: string;
  message: string;
  /** RFC 3339, whole seconds. */
  lastTransitionTime: string;
}

export interface NodeStatusInsight {
  name: string;
  resource: ResourceRef;
  poolResource: ResourceRef;
  scopeType: "ControlPlane" | "WorkerPool";
  version?: string;
  /** Go duration text (`10m0s`, `5m0s`, `0s`); omitted = unknown. */
  estimatedToComplete?: string;
  /** At most 100 code points (§13.4). */
  message?: string;
  conditions: InsightCondition[];
}

export const MESSAGE_LIMIT = 100;

/** Longer than the limit: its first limit−3 code points and `...`. */
export function limitMessage(message: string, limit = MESSAGE_LIMIT): string {
  const cps = Array.from(message);
  return cps.length <= limit ? message : `${cps.slice(0, limit - 3).join("")}...`;
}

const UPDATING: Record<NodePhase, { status: ConditionStatus; reason: string; message: string }> = {
  Draining: { status: "True", reason: "Draining", message: "The node is draining" },
  Updating: { status: "True", reason: "Updating", message: "The node is updating" },
  Rebooting: { status: "True", reason: "Rebooting", message: "The node is rebooting" },
  Updated: { status: "False", reason: "Completed", message: "The node is updated" },
  Paused: { status: "False", reason: "Paused", message: "The update of the node is paused" },
  Pending: { status: "False", reason: "Pending", message: "The update of the node is pending" },
};

const PHASE_ESTIMATE: Record<NodePhase, bigint | undefined> = {
  Draining: 10n * MINUTE,
  Updating: 5n * MINUTE,
  Rebooting: 5n * MINUTE,
  Updated: 0n,
  Paused: 0n,
  Pending: undefined,
};

/** Available=False exactly when the table shows the node as unavailable (not masked by Degraded). */
const shownUnavailable = (r: NodeRecord): boolean => r.isUnavailable && !r.isUpdating;

/**
 * The insight for a node record. `observedAt` stands in for transition times the record does not
 * know (the aggregator tracks real transitions; a one-shot evaluation uses its "now").
 */
export function toNodeStatusInsight(record: NodeRecord, observedAt: bigint): NodeStatusInsight {
  const at = formatRFC3339(observedAt);
  const overridden = record.assessment === "Unavailable" || record.assessment === "Degraded";
  const estimate = overridden ? (record.isUpdated ? 0n : undefined) : PHASE_ESTIMATE[record.phase];
  const updating = UPDATING[record.phase];
  const unavailable = shownUnavailable(record);
  const insight: NodeStatusInsight = {
    name: record.name,
    resource: { resource: "nodes", name: record.name },
    poolResource: { group: MCO_GROUP, resource: "machineconfigpools", name: record.pool },
    scopeType: record.scopeType,
    conditions: [
      { type: "Updating", ...updating, lastTransitionTime: at },
      unavailable
        ? {
            type: "Available",
            status: "False",
            reason: "Unavailable",
            message: record.unavailableReason,
            lastTransitionTime: isZeroTime(record.unavailableSince) ? at : formatRFC3339(record.unavailableSince),
          }
        : { type: "Available", status: "True", reason: "AsExpected", message: "The node is available", lastTransitionTime: at },
      record.isDegraded
        ? { type: "Degraded", status: "True", reason: "MachineConfigDaemonDegraded", message: record.degradedReason, lastTransitionTime: at }
        : { type: "Degraded", status: "False", reason: "AsExpected", message: "The node is not degraded", lastTransitionTime: at },
    ],
  };
  if (record.version !== "") insight.version = record.version;
  if (estimate !== undefined) insight.estimatedToComplete = goDurationString(estimate);
  if (record.message !== "") insight.message = limitMessage(record.message);
  return insight;
}

export interface InsightRow {
  assessment: NodeAssessment;
  phase: NodePhase;
  estimate: string;
}

/** The table's PHASE for an Updating condition's reason (an unknown reason reads as Pending). */
export const PHASE_BY_REASON: Readonly<Record<string, NodePhase>> = {
  Draining: "Draining",
  Updating: "Updating",
  Rebooting: "Rebooting",
  Completed: "Updated",
  Paused: "Paused",
  Pending: "Pending",
};

/** Table cells from an insight: PR #1985's rule with Degraded taking precedence over Unavailable. */
export function rowFromInsight(insight: NodeStatusInsight): InsightRow {
  const cond = (t: InsightCondition["type"]) => insight.conditions.find((c) => c.type === t);
  const updating = cond("Updating");
  const phase = PHASE_BY_REASON[updating?.reason ?? ""] ?? "Pending";
  let assessment: NodeAssessment;
  if (cond("Degraded")?.status === "True") assessment = "Degraded";
  else if (cond("Available")?.status === "False") assessment = "Unavailable";
  else if (updating?.status === "True") assessment = "Progressing";
  else if (phase === "Updated") assessment = "Completed";
  else if (phase === "Paused") assessment = "Excluded";
  else assessment = "Outdated";
  let estimate = "?";
  if (insight.estimatedToComplete !== undefined) {
    const d = parseGoDuration(insight.estimatedToComplete) ?? 0n;
    estimate = d === 0n ? "-" : `+${shortDuration(d)}`;
  }
  return { assessment, phase, estimate };
}
