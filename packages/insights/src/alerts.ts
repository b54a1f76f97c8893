// Spec §11.9: alert insights.
import { CONFIG_GROUP } from "./annotations.js";
import type { HealthInsight, InsightLevel } from "./model.js";
import { parseTime } from "./time.js";
import type { AlertsResponse } from "./types.js";

const AFFECTS_UPDATES = new Set(["PodDisruptionBudgetLimit", "PodDisruptionBudgetAtLimit"]);

export function alertInsights(alerts: AlertsResponse | undefined, updateStart: bigint): HealthInsight[] {
  const out: HealthInsight[] = [];
  for (const alert of alerts?.data?.alerts ?? []) {
    const labels = alert.labels ?? {};
    const annotations = alert.annotations ?? {};
    const name = labels.alertname ?? "";
    if (name === "") continue;
    const activeAt = parseTime(alert.activeAt);
    const duringUpdate = updateStart < activeAt;
    const affectsUpdates = AFFECTS_UPDATES.has(name);
    let description: string;
    if (affectsUpdates && duringUpdate) description = "Alert known to affect updates started firing during the update.";
    else if (affectsUpdates) description = "Alert known to affect updates has been firing since before the update started.";
    else if (duringUpdate) description = "Alert started firing during the update.";
    else continue;
    if (alert.state === "pending") continue;
    let level: InsightLevel;
    if (labels.severity === "warning") level = "Warning";
    else if (labels.severity === "critical") level = "Critical";
    else continue;
    const desc = annotations.description ?? "";
    const msg = annotations.message ?? "";
    if (desc !== "" && msg !== "") description += ` The alert description is: ${desc} | ${msg}`;
    else if (desc !== "" || msg !== "") description += ` The alert description is: ${desc || msg}`;
    else description += " The alert has no description.";
    const namespace = labels.namespace ?? "";
    out.push({
      startedAt: activeAt,
      scopeType: "Cluster",
      resources: [{ kind: "Alert", group: CONFIG_GROUP, ...(namespace ? { namespace } : {}), name }],
      level,
      impact: "Unknown",
      summary: `Alert is firing: ${annotations.summary || name}`,
      description,
      reference: annotations.runbook_url || "<alert does not have a runbook_url annotation>",
    });
  }
  return out;
}
