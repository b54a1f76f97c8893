import { describe, expect, it } from "vitest";
import { alertInsights } from "./alerts.js";
import { compareInsights, finalizeHealth } from "./health.js";
import type { HealthInsight, InsightLevel } from "./model.js";
import { SECOND, ZERO_TIME, parseTime } from "./time.js";

const insight = (summary: string, level: InsightLevel, startedAt: bigint, extra: Partial<HealthInsight> = {}): HealthInsight => ({
  startedAt,
  scopeType: "ControlPlane",
  resources: [],
  level,
  impact: "None",
  summary,
  description: "d",
  reference: "r",
  ...extra,
});

describe("finalizeHealth (spec §11.4, §11.6)", () => {
  const now = parseTime("2024-01-01T12:00:00Z");
  it("sorts by level, then newest first with zero times last, keeping collection order on ties", () => {
    const t = (s: number) => now - BigInt(s) * SECOND;
    const { insights, fallback } = finalizeHealth(
      [
        insight("w-zero-1", "Warning", ZERO_TIME),
        insight("w-old", "Warning", t(100)),
        insight("e", "Error", ZERO_TIME),
        insight("w-new", "Warning", t(10)),
        insight("w-zero-2", "Warning", ZERO_TIME),
        insight("c", "Critical", t(1000)),
        insight("w-new-2", "Warning", t(10)),
      ],
      now,
      0n,
    );
    expect(fallback).toBe(false);
    expect(insights.map((i) => i.summary)).toEqual(["c", "e", "w-new", "w-new-2", "w-old", "w-zero-1", "w-zero-2"]);
  });

  it("drops insights with an empty summary, description or reference", () => {
    const { insights } = finalizeHealth(
      [insight("", "Warning", ZERO_TIME), insight("a", "Warning", ZERO_TIME, { description: "" }), insight("b", "Warning", ZERO_TIME, { reference: "" }), insight("ok", "Info", ZERO_TIME)],
      now,
      0n,
    );
    expect(insights.map((i) => i.summary)).toEqual(["ok"]);
  });

  it("falls back to the Info insight dated at the update start", () => {
    const h = finalizeHealth([insight("", "Error", ZERO_TIME)], now, 90n * SECOND);
    expect(h.fallback).toBe(true);
    expect(h.insights).toHaveLength(1);
    expect(h.insights[0]).toMatchObject({ level: "Info", impact: "None", summary: "Update is proceeding well", startedAt: now - 90n * SECOND });
  });

  it("compareInsights is antisymmetric", () => {
    const a = insight("a", "Warning", 5n);
    const b = insight("b", "Warning", 7n);
    expect(compareInsights(a, b)).toBeGreaterThan(0);
    expect(compareInsights(b, a)).toBeLessThan(0);
  });
});

describe("alertInsights (spec §11.9)", () => {
  const start = parseTime("2024-01-01T00:00:00Z");
  const alert = (name: string, o: { severity?: string; state?: string; activeAt?: string; annotations?: Record<string, string>; namespace?: string } = {}) => ({
    labels: { alertname: name, severity: o.severity ?? "warning", ...(o.namespace ? { namespace: o.namespace } : {}) },
    annotations: o.annotations ?? {},
    state: o.state ?? "firing",
    activeAt: o.activeAt ?? "2024-01-01T00:05:00.123456789Z",
  });
  const run = (...alerts: ReturnType<typeof alert>[]) => alertInsights({ status: "success", data: { alerts } }, start);

  it("keeps alerts firing during the update and PDB alerts, with their descriptions", () => {
    const out = run(
      alert("KubePodCrashLooping", { namespace: "ns", annotations: { summary: "Pod crash", description: "d1", message: "m1", runbook_url: "https://rb" } }),
      alert("PodDisruptionBudgetAtLimit", { severity: "critical", activeAt: "2023-12-31T00:00:00Z", annotations: { message: "only message" } }),
      alert("PodDisruptionBudgetLimit", {}),
    );
    expect(out.map((i) => [i.level, i.summary, i.description, i.reference])).toEqual([
      ["Warning", "Alert is firing: Pod crash", "Alert started firing during the update. The alert description is: d1 | m1", "https://rb"],
      [
        "Critical",
        "Alert is firing: PodDisruptionBudgetAtLimit",
        "Alert known to affect updates has been firing since before the update started. The alert description is: only message",
        "<alert does not have a runbook_url annotation>",
      ],
      ["Warning", "Alert is firing: PodDisruptionBudgetLimit", "Alert known to affect updates started firing during the update. The alert has no description.", "<alert does not have a runbook_url annotation>"],
    ]);
    expect(out[0]?.startedAt).toBe(parseTime("2024-01-01T00:05:00.123456789Z"));
    expect(out[0]?.resources).toEqual([{ kind: "Alert", group: "config.openshift.io", namespace: "ns", name: "KubePodCrashLooping" }]);
    expect(out[0]?.scopeType).toBe("Cluster");
  });

  it("skips nameless, old unrelated, pending and non-warning alerts", () => {
    expect(
      run(
        alert(""),
        alert("Old", { activeAt: "2023-01-01T00:00:00Z" }),
        alert("Same", { activeAt: "2024-01-01T00:00:00Z" }),
        alert("Pending", { state: "pending" }),
        alert("InfoOnly", { severity: "info" }),
      ),
    ).toEqual([]);
    expect(alertInsights(undefined, start)).toEqual([]);
  });
});
