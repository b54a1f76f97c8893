import { describe, expect, it } from "vitest";
import type { NodeAssessment, NodePhase, NodeRecord } from "./model.js";
import { limitMessage, rowFromInsight, toNodeStatusInsight } from "./node-insight.js";
import { ZERO_TIME, parseTime } from "./time.js";

const NOW = parseTime("2024-02-27T16:16:13Z");

function rec(assessment: NodeAssessment, phase: NodePhase, flags: Partial<NodeRecord> = {}): NodeRecord {
  return {
    name: "worker-a",
    pool: "worker",
    scopeType: "WorkerPool",
    assessment,
    phase,
    version: "4.16.0",
    estimate: "?",
    message: "",
    isUpdated: false,
    isUpdating: false,
    isUnavailable: false,
    isDegraded: false,
    isDraining: false,
    unavailableReason: "",
    unavailableSince: ZERO_TIME,
    degradedReason: "",
    ...flags,
  };
}

const status = (i: ReturnType<typeof toNodeStatusInsight>, type: string) => {
  const c = i.conditions.find((x) => x.type === type);
  return `${c?.status}/${c?.reason}`;
};

describe("toNodeStatusInsight (spec §13.6)", () => {
  it.each([
    [rec("Progressing", "Draining", { isUpdating: true }), "True/Draining", "True/AsExpected", "False/AsExpected", "10m0s"],
    [rec("Progressing", "Updating", { isUpdating: true }), "True/Updating", "True/AsExpected", "False/AsExpected", "5m0s"],
    [rec("Progressing", "Rebooting", { isUpdating: true }), "True/Rebooting", "True/AsExpected", "False/AsExpected", "5m0s"],
    [rec("Completed", "Updated", { isUpdated: true }), "False/Completed", "True/AsExpected", "False/AsExpected", "0s"],
    [rec("Excluded", "Paused"), "False/Paused", "True/AsExpected", "False/AsExpected", "0s"],
    [rec("Outdated", "Pending"), "False/Pending", "True/AsExpected", "False/AsExpected", undefined],
    [rec("Unavailable", "Pending", { isUnavailable: true, message: "Not ready" }), "False/Pending", "False/Unavailable", "False/AsExpected", undefined],
    [rec("Unavailable", "Updated", { isUnavailable: true, isUpdated: true }), "False/Completed", "False/Unavailable", "False/AsExpected", "0s"],
    [rec("Degraded", "Draining", { isDegraded: true, isUpdating: true, isUnavailable: true }), "True/Draining", "True/AsExpected", "True/MachineConfigDaemonDegraded", undefined],
    [rec("Degraded", "Pending", { isDegraded: true, isUnavailable: true }), "False/Pending", "False/Unavailable", "True/MachineConfigDaemonDegraded", undefined],
  ])("%#: %o", (record, updating, available, degraded, est) => {
    const insight = toNodeStatusInsight(record, NOW);
    expect([status(insight, "Updating"), status(insight, "Available"), status(insight, "Degraded")]).toEqual([updating, available, degraded]);
    expect(insight.estimatedToComplete).toBe(est);
    // The reverse rule gives back the table cells.
    expect(rowFromInsight(insight)).toEqual({ assessment: record.assessment, phase: record.phase, estimate: expectedEst(est) });
  });

  it("carries identity, pool reference and version, and omits unknown version", () => {
    const i = toNodeStatusInsight(rec("Outdated", "Pending", { version: "" }), NOW);
    expect(i.resource).toEqual({ resource: "nodes", name: "worker-a" });
    expect(i.poolResource).toEqual({ group: "machineconfiguration.openshift.io", resource: "machineconfigpools", name: "worker" });
    expect(i.scopeType).toBe("WorkerPool");
    expect(i.version).toBeUndefined();
    expect(toNodeStatusInsight(rec("Outdated", "Pending"), NOW).version).toBe("4.16.0");
  });

  it("uses the unavailability start as the Available transition", () => {
    const since = parseTime("2024-02-27T15:53:29Z");
    const i = toNodeStatusInsight(rec("Unavailable", "Pending", { isUnavailable: true, unavailableSince: since }), NOW);
    expect(i.conditions.find((c) => c.type === "Available")?.lastTransitionTime).toBe("2024-02-27T15:53:29Z");
  });

  it("condition reasons are valid Kubernetes reasons", () => {
    const i = toNodeStatusInsight(rec("Degraded", "Pending", { isDegraded: true, isUnavailable: true, degradedReason: "failed to drain: x y" }), NOW);
    for (const c of i.conditions) expect(c.reason).toMatch(/^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$/);
  });
});

function expectedEst(est: string | undefined): string {
  if (est === undefined) return "?";
  return est === "0s" ? "-" : `+${est.replace(/0s$/, "")}`;
}

describe("message limit (spec §13.4)", () => {
  const degraded105 = "failed to drain node: <node> after 1 hour. Please see machine-config-controller logs for more information";
  it("keeps messages up to 100 code points", () => {
    expect(limitMessage("x".repeat(100))).toBe("x".repeat(100));
  });
  it("cuts longer ones to 97 code points and ...", () => {
    expect(degraded105).toHaveLength(105);
    const limited = limitMessage(degraded105);
    expect(Array.from(limited)).toHaveLength(100);
    expect(limited).toBe(`${degraded105.slice(0, 97)}...`);
  });
  it("counts code points, not UTF-16 units", () => {
    const s = "\u{1F600}".repeat(101);
    expect(Array.from(limitMessage(s))).toHaveLength(100);
    expect(limitMessage("\u{1F600}".repeat(100))).toBe("\u{1F600}".repeat(100));
  });
  it("the insight message is limited while the record keeps the full text", () => {
    const r = rec("Degraded", "Draining", { isDegraded: true, isUpdating: true, message: degraded105 });
    expect(toNodeStatusInsight(r, NOW).message).toHaveLength(100);
    expect(r.message).toHaveLength(105);
  });
});
