// Spec §11: node and pool health insights, the completeness filter, the sort and the fallback.
import { MCO_GROUP } from "./annotations.js";
import type { HealthInsight, HealthSection, InsightLevel, NodeRecord, PoolSummary } from "./model.js";
import { type NodeAvailability, descriptionString, messageString, seriouslyUnavailable } from "./node-availability.js";
import { ZERO_TIME } from "./time.js";

export const R_MCO =
  "https://docs.openshift.com/container-platform/latest/post_installation_configuration/machine-configuration-tasks.html#understanding-the-machine-config-operator";
export const R_PAUSE =
  "https://docs.openshift.com/container-platform/latest/support/troubleshooting/troubleshooting-operator-issues.html#troubleshooting-disabling-autoreboot-mco_troubleshooting-operator-issues";

/** Node insights: unavailable (when seriously so and not updating), then degraded. */
export function nodeInsights(record: NodeRecord, availability: NodeAvailability, wallClock: bigint): HealthInsight[] {
  const out: HealthInsight[] = [];
  const resources = [{ kind: "Node", name: record.name }];
  const summary = availability.isUnavailable && !record.isUpdating ? messageString(record.name, availability.reasons) : "";
  if (seriouslyUnavailable(availability.reasons, wallClock) && !record.isUpdating) {
    out.push({
      startedAt: record.unavailableSince,
      scopeType: record.scopeType,
      resources,
      level: "Warning",
      impact: "Update Speed",
      summary,
      // Quirk kept: a degraded node's description is its MCD reason.
      description: record.isDegraded ? record.degradedReason : descriptionString(availability.reasons),
      reference: R_MCO,
    });
  }
  if (record.isDegraded) {
    out.push({
      startedAt: ZERO_TIME,
      scopeType: record.scopeType,
      resources,
      level: "Error",
      impact: "Update Stalled",
      summary: `Node ${record.name} is degraded`,
      description: record.degradedReason,
      reference: R_MCO,
    });
  }
  return out;
}

export function pausedPoolInsight(pool: PoolSummary): HealthInsight | undefined {
  if (pool.counters.excluded === 0 || !pool.paused) return undefined;
  return {
    startedAt: ZERO_TIME,
    scopeType: "WorkerPool",
    resources: [{ kind: "MachineConfigPool", group: MCO_GROUP, name: pool.name }],
    level: "Warning",
    impact: "Update Stalled",
    summary: `Outdated nodes in a paused pool '${pool.name}' will not be updated`,
    description:
      "Pool is paused, which stops all changes to the nodes in the pool, including updates. The nodes will not be updated until the pool is unpaused by the administrator.",
    reference: R_PAUSE,
  };
}

const LEVEL_RANK: Record<InsightLevel, number> = { Info: 0, Warning: 1, Error: 2, Critical: 3 };

const isComplete = (i: HealthInsight): boolean => i.summary !== "" && i.description !== "" && i.reference !== "";

/** Level first (highest first), then newest startedAt, zero times last; ties keep collection order. */
export function compareInsights(a: HealthInsight, b: HealthInsight): number {
  const byLevel = LEVEL_RANK[b.level] - LEVEL_RANK[a.level];
  if (byLevel !== 0) return byLevel;
  // Go's zero time is the smallest instant, so "newest first" puts it last naturally.
  return a.startedAt > b.startedAt ? -1 : a.startedAt < b.startedAt ? 1 : 0;
}

/** Filter, sort, and fall back to the single Info insight when nothing remains. */
export function finalizeHealth(collected: readonly HealthInsight[], now: bigint, updatingFor: bigint): HealthSection {
  const insights = collected.filter(isComplete).sort(compareInsights);
  if (insights.length > 0) return { insights, fallback: false };
  return {
    fallback: true,
    insights: [
      {
        startedAt: now - updatingFor,
        scopeType: "Cluster",
        resources: [],
        level: "Info",
        impact: "None",
        summary: "Update is proceeding well",
        description: "",
        reference: "",
      },
    ],
  };
}
