// The chart's alert rules: rendered only where PrometheusRule is served and the value is on, and
// unit-tested with the real `promtool test rules` (testdata/alerts.promtool.yaml: every alert firing
// and not firing). promtool comes from scripts/prometheus.mjs; without it this fails, saying how to
// get it (never a silent skip).
import { spawnSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensurePrometheus } from "../../../scripts/prometheus.mjs";
import { chartRuleGroups, PROMETHEUS_RULE_API, writeRulesFile } from "./alert-rules.js";
import { renderChart } from "./chart.js";
import { chartDir, repoRoot } from "./paths.js";
import { validateManifests } from "./validate.js";

const promtoolTests = join(repoRoot, "packages/chart-test/testdata/alerts.promtool.yaml");
const dir = mkdtempSync(join(tmpdir(), "lockstep-alerts-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

type Rule = { alert: string; expr: string; for: string; labels: Record<string, string>; annotations: Record<string, string> };
const rulesOf = (groups: unknown[]) => (groups as Array<{ rules: Rule[] }>).flatMap((g) => g.rules);

describe("PrometheusRule", () => {
  it("is rendered only where monitoring.coreos.com/v1 PrometheusRule is served and the value is on", () => {
    const kinds = (o: Parameters<typeof renderChart>[1]) => renderChart(chartDir, o).manifests.filter((m) => m.kind === "PrometheusRule");
    expect(kinds({})).toEqual([]);
    const on = kinds({ apiVersions: [PROMETHEUS_RULE_API] });
    expect(on).toHaveLength(1);
    expect(validateManifests(on)).toEqual([]);
    expect(kinds({ apiVersions: [PROMETHEUS_RULE_API], values: { global: { metrics: { prometheusRule: { enabled: false } } } } })).toEqual([]);
  });

  it("gives every alert a severity, a summary and a description saying what to do; runbook_url when a base is set", () => {
    const rules = rulesOf(chartRuleGroups({ global: { metrics: { prometheusRule: { runbookBaseUrl: "https://runbooks.example/lockstep" } } } }));
    expect(rules.map((r) => r.alert)).toEqual([
      "LockstepServiceDown",
      "LockstepStateStale",
      "LockstepUpdateStalled",
      "LockstepNodeDegraded",
      "LockstepReconcileFailing",
      "LockstepMinorUpgradeBlocked",
      "LockstepBootImageSkewUnchecked",
      "LockstepLeaseHeldTooLong",
      "LockstepPreemptionPending",
      "LockstepDisruptionBudgetAtLimit",
      "LockstepWebhookRefusingRequester",
      "LockstepMachineSetPatchFailing",
    ]);
    for (const r of rules) {
      expect(["critical", "warning", "info"], r.alert).toContain(r.labels.severity);
      expect(r.annotations.summary, r.alert).toMatch(/\.$/);
      expect(r.annotations.description, r.alert).toMatch(/What to do: /);
      expect(r.annotations.runbook_url, r.alert).toBe(`https://runbooks.example/lockstep/${r.alert}.md`);
    }
    expect(rulesOf(chartRuleGroups()).filter((r) => r.annotations.runbook_url !== undefined)).toEqual([]);
  });

  it("takes thresholds, hold times and the series selector from values", () => {
    const rules = rulesOf(
      chartRuleGroups({ global: { metrics: { prometheusRule: { selector: 'job=~"ls-.*"', updateStalled: { seconds: 20, for: "0s" } } } } }),
    );
    const stalled = rules.find((r) => r.alert === "LockstepUpdateStalled")!;
    expect(stalled.for).toBe("0s");
    expect(stalled.expr).toMatch(/> 20\n?\s*\)$/);
    for (const r of rules) expect(r.expr, r.alert).toContain('{job=~"ls-.*"}');
  });
});

describe("promtool", () => {
  it("passes check rules and the unit tests of every alert, firing and not firing", () => {
    const { promtool } = ensurePrometheus();
    writeRulesFile(join(dir, "rules.yaml"), chartRuleGroups());
    copyFileSync(promtoolTests, join(dir, "alerts.promtool.yaml"));
    const check = spawnSync(promtool, ["check", "rules", "rules.yaml"], { cwd: dir, encoding: "utf8" });
    expect(check.status, check.stdout + check.stderr).toBe(0);
    const test = spawnSync(promtool, ["test", "rules", "alerts.promtool.yaml"], { cwd: dir, encoding: "utf8" });
    expect(test.status, test.stdout + test.stderr).toBe(0);
    // Every alert of the chart is exercised by the unit tests.
    const tested = new Set([...readFileSync(promtoolTests, "utf8").matchAll(/alertname: (\w+)/g)].map((m) => m[1]));
    for (const r of rulesOf(chartRuleGroups())) expect(tested.has(r.alert), r.alert).toBe(true);
  });
});
