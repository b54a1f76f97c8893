import { describe, expect, it } from "vitest";
import { evaluateSkew, skewReportChanged, toSkewReport } from "./evaluate.js";
import { clusterVersion, configs, infrastructure, node, pool, policy, settings } from "./fixtures.js";

const mcs = configs({ "rendered-master-new": "4.16.2", "rendered-worker-old": "4.15.9", "rendered-worker-new": "4.16.2" });

describe("evaluateSkew and toSkewReport", () => {
  it("ties lag, boot image skew and completion into one report", () => {
    const e = evaluateSkew({
      clusterVersion: clusterVersion("4.16.2", ["4.16.2:Completed", "4.15.9:Completed"], true),
      infrastructure: infrastructure("AWS"),
      pools: [pool("master", { machines: 1 }), pool("worker", { current: "rendered-worker-old", target: "rendered-worker-new", paused: true, machines: 1, updated: 0 })],
      nodes: [node("m1", "master", "rendered-master-new"), node("w1", "worker", "rendered-worker-old")],
      machineConfigs: mcs,
      bootImagePolicy: policy({ skewMode: "Manual", skewManualMode: "OCPVersion", skewManualOcpVersion: "4.12.0" }),
      settings: settings(),
    });
    expect(e.forcedUpdate).toBe("4.16.2");
    expect(toSkewReport(e)).toEqual({
      controlPlaneVersion: "4.16.2",
      targetVersion: "4.16.2",
      upgradeable: false,
      reason: "PausedPoolLagging",
      message: e.upgradeable.message,
      laggingPools: [
        { pool: "worker", reason: "PausedPoolLagging", poolVersion: "4.15.9", machineCount: 1, updatedMachineCount: 0, degradedMachineCount: 0, paused: true },
      ],
      bootImage: { mode: "Manual", ocpVersion: "4.12.0", rhcosVersion: "", ocpLimit: "4.13.0", rhcosLimit: "9.2", violated: true, warning: "" },
      updateComplete: false,
      incompletePools: ["worker"],
      completionMessage: "update to 4.16.2 is not complete: pool worker is paused: 0 of 1 nodes at 4.16.2; unpause it to finish the update",
    });
    expect(e.upgradeable.blockingReasons).toEqual(["PausedPoolLagging", "ClusterBootImageSkewError"]);
  });

  it("reports a clean, complete cluster as upgradeable", () => {
    const e = evaluateSkew({
      clusterVersion: clusterVersion("4.16.2"),
      infrastructure: infrastructure("OpenStack"),
      pools: [pool("master"), pool("worker")],
      nodes: [node("m1", "master", "rendered-master-new"), node("w1", "worker", "rendered-worker-new")],
      machineConfigs: mcs,
      bootImagePolicy: undefined,
      settings: settings(),
    });
    const r = toSkewReport(e);
    expect(r).toMatchObject({ upgradeable: true, reason: "AsExpected", laggingPools: [], updateComplete: true, incompletePools: [] });
    // Row 6: unsupported platform → Manual with the install version, which is within the limit.
    expect(r.bootImage).toMatchObject({ mode: "Manual", ocpVersion: "4.16.2", violated: false });
    expect(e.forcedUpdate).toBeUndefined();
  });
});

describe("skewReportChanged", () => {
  const e = evaluateSkew({
    clusterVersion: clusterVersion("4.16.2"),
    infrastructure: infrastructure("OpenStack"),
    pools: [pool("master"), pool("worker")],
    nodes: [],
    machineConfigs: mcs,
    bootImagePolicy: undefined,
    settings: settings(),
  });
  it("is true for the first report and for any difference, false for an equal one", () => {
    const r = toSkewReport(e);
    expect(skewReportChanged(undefined, r)).toBe(true);
    expect(skewReportChanged(r, toSkewReport(e))).toBe(false);
    expect(skewReportChanged(r, { ...r, message: "x" })).toBe(true);
  });
});
