// The chart's alert rules as Prometheus reads them: the PrometheusRule rendered by the real helm
// (with the capability the template is gated on), its spec.groups written as a rules file. Shared
// by the promtool unit tests (alerts.test.ts) and the e2e test that runs a real Prometheus.
import { writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { renderChart, type Values } from "./chart.js";
import { chartDir } from "./paths.js";

export const PROMETHEUS_RULE_API = "monitoring.coreos.com/v1/PrometheusRule";

/** The rendered PrometheusRule's groups (throws when the chart renders none). */
export function chartRuleGroups(values: Values = {}, o: { releaseName?: string; namespace?: string } = {}): unknown[] {
  const r = renderChart(chartDir, { values, apiVersions: [PROMETHEUS_RULE_API], ...o });
  const rule = r.manifests.find((m) => m.kind === "PrometheusRule");
  if (!rule) throw new Error("the chart rendered no PrometheusRule (global.metrics.prometheusRule.enabled false?)");
  return (rule.spec as { groups: unknown[] }).groups;
}

/** Writes the groups as a Prometheus rules file (`groups:` at the top) and returns its path. */
export function writeRulesFile(file: string, groups: unknown[]): string {
  writeFileSync(file, stringify({ groups }));
  return file;
}
