// Issue 33: a rehearsal agrees with the status of the same snapshot. For every golden case (cases
// added to the folder are picked up): every Error-level insight the status prints is a blocker of
// the forecast (matched by the insight's own summary), a Stalled status never forecasts "done", and
// no duration is negative or longer than the case's history and the horizon allow.
import { evaluate, fixtureNow, inputsFromDocuments, type ClusterOperator, type ClusterVersion } from "@lockstep/insights";
import { ocUpgradeStatusCases, ocUpgradeStatusDir } from "@lockstep/testing";
import { describe, expect, it } from "vitest";
import { rehearse } from "./engine.js";
import { loadSnapshotDir } from "./load-dir.js";

const HORIZON_H = 72;
const cases = ocUpgradeStatusCases();

/** The status exactly as `lockstep status --from-dir` evaluates the case (insights' golden test). */
function statusOf(name: string) {
  const snap = loadSnapshotDir(ocUpgradeStatusDir(), name);
  const list = (items: unknown[]) => ({ kind: "List", items });
  const inputs = inputsFromDocuments({
    clusterVersion: snap.clusterVersion,
    clusterOperators: list(snap.clusterOperators),
    machineConfigPools: list(snap.pools),
    machineConfigs: list(snap.machineConfigs),
    nodes: list(snap.nodes),
    ...(snap.alerts !== undefined ? { alerts: snap.alerts } : {}),
  });
  const now = fixtureNow(inputs.clusterVersion as ClusterVersion, inputs.clusterOperators as ClusterOperator[]);
  return { snap, evaluation: evaluate(inputs, { now, wallClock: now }) };
}

/** The update in progress, or the next z-stream of a settled cluster. */
function targetOf(cv: { status?: { desired?: { version?: string }; history?: Array<{ state?: string }> } }): string {
  const v = cv.status?.desired?.version ?? "";
  if (cv.status?.history?.[0]?.state === "Partial") return v;
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(v)!;
  return `${m[1]}.${m[2]}.${Number(m[3]) + 1}`;
}

describe("rehearsal ↔ status agreement over the golden cases", () => {
  it("finds the cases", () => expect(cases.length).toBeGreaterThanOrEqual(10));

  describe.each(cases)("%s", (name) => {
    const { snap, evaluation } = statusOf(name);
    const f = rehearse(snap, { to: targetOf(snap.clusterVersion), seed: 5, horizonHours: HORIZON_H });

    it("every Error-level status insight is a blocker of the forecast", () => {
      const errors = evaluation.notUpdating ? [] : evaluation.health.insights.filter((i) => i.level === "Error" || i.level === "Critical");
      const named = new Set(f.blockers.map((b) => b.insight).filter(Boolean));
      expect(errors.map((i) => i.summary).filter((s) => !named.has(s)), `forecast blockers: ${f.blockers.map((b) => `${b.kind} ${b.subject}`).join(", ")}`).toEqual([]);
      // Blockers from the status name their objects and since-when (null only when the status does not know).
      for (const b of f.blockers.filter((x) => x.insight)) {
        expect(b.objects?.length).toBeGreaterThan(0);
        expect(b.since === null || Number.isFinite(Date.parse(b.since!))).toBe(true);
      }
      // Nothing but a risk (an alert) lets a forecast with status blockers finish.
      if (f.blockers.some((b) => b.insight && b.kind !== "alert")) expect(f.finish).toBeNull();
    });

    it("a Stalled status is never forecast done", () => {
      expect(f.statusAssessment).toBe(evaluation.notUpdating ? "" : evaluation.controlPlane.assessment);
      if (f.statusAssessment === "Stalled") {
        expect(f.finish).toBeNull();
        expect(f.blockers.map((b) => b.kind)).toContain("stalled");
      }
    });

    it("starts at the dump's own instant, and no duration is negative or longer than its history allows", () => {
      const history: Array<{ startedTime?: string }> = snap.clusterVersion.status?.history ?? [];
      const first = Math.min(...history.map((h) => Date.parse(h.startedTime ?? "")).filter(Number.isFinite));
      const start = Date.parse(f.start);
      const updateTimes = (history as Array<{ startedTime?: string; completionTime?: string }>).flatMap((h) => [h.startedTime, h.completionTime]).map((t) => Date.parse(t ?? "")).filter(Number.isFinite);
      expect(start).toBe(Math.max(Number(evaluation.now / 1_000_000n), ...updateTimes));
      const longest = (start - first) / 1000 + HORIZON_H * 3600;
      for (const p of f.pools) {
        if (p.durationSeconds === null) continue;
        expect(p.durationSeconds, p.pool).toBeGreaterThanOrEqual(0);
        expect(p.durationSeconds, p.pool).toBeLessThanOrEqual(longest);
        expect(Date.parse(p.start!)).toBeGreaterThanOrEqual(first);
      }
      if (f.finish) expect(Date.parse(f.finish)).toBeGreaterThanOrEqual(start);
      // Upstream's own dumps carry pool conditions months ahead of the rest: reported, never the start.
      for (const x of f.suspectTimestamps) expect(Date.parse(x.value), `${x.object} ${x.field}`).toBeGreaterThan(start + 24 * 3600_000);
      expect(f.warnings.length > 0).toBe(f.suspectTimestamps.length > 0);
    });
  });
});
