import { describe, expect, it } from "vitest";
import { checkUpgrade } from "./check-upgrade.js";
import { evaluateSkew, type SkewInputs } from "./evaluate.js";
import { clusterVersion, configs, infrastructure, pool, type PoolSpec, policy, settings } from "./fixtures.js";
import { parseSkewSettings } from "./settings.js";
import { staleUpgradeable } from "./stale.js";

const mcs = configs({ "rendered-master-new": "4.16.2", "rendered-worker-old": "4.15.9", "rendered-worker-new": "4.16.2" });
const pausedBehind: PoolSpec = { current: "rendered-worker-old", target: "rendered-worker-new", paused: true, updated: 0 };
const manualOk = policy({ skewMode: "Manual", skewManualMode: "OCPVersion", skewManualOcpVersion: "4.15.0" });

function report(worker: PoolSpec = { current: "rendered-worker-new" }, extra: Partial<SkewInputs> = {}) {
  return evaluateSkew({
    clusterVersion: clusterVersion("4.16.2", ["4.16.2:Completed", "4.15.9:Completed"]),
    infrastructure: infrastructure("AWS"),
    pools: [pool("master"), pool("worker", worker)],
    nodes: [],
    machineConfigs: mcs,
    bootImagePolicy: manualOk,
    settings: settings(),
    ...extra,
  });
}

describe("checkUpgrade", () => {
  it.each([
    ["z-stream passes over a lagging paused pool", pausedBehind, "4.16.5", false, true, "ZStream", [], false],
    ["minor is blocked by a lagging paused pool", pausedBehind, "4.17.0", false, false, "Minor", ["PausedPoolLagging"], false],
    ["major is blocked like a minor", pausedBehind, "5.0.0", false, false, "Major", ["PausedPoolLagging"], false],
    ["force bypasses the block and is recorded", pausedBehind, "4.17.0", true, true, "Minor", ["PausedPoolLagging"], true],
    ["minor passes when nothing lags", { current: "rendered-worker-new" }, "4.17.0", false, true, "Minor", [], false],
    ["the running update is never stopped", pausedBehind, "4.16.2", false, true, "Same", [], false],
    ["a downgrade is not blocked", pausedBehind, "4.15.9", false, true, "Downgrade", [], false],
    ["a minor pre-release target is a minor", pausedBehind, "4.17.0-rc.1", false, false, "Minor", ["PausedPoolLagging"], false],
  ])("%s", (_name, worker, target, force, allowed, kind, reasons, forced) => {
    const r = checkUpgrade(report(worker), target, force);
    expect(r).toMatchObject({ allowed, kind, reasons, forced });
  });

  it("fails closed while the view is stale: a minor or major is refused with StateStale and the ClusterOperator's message", () => {
    const why = "the watcher has not been heard from since 2026-11-25T12:00:41Z";
    const clean = report(); // nothing lags: a fresh view allows the minor
    expect(checkUpgrade(clean, "4.17.0", false)).toMatchObject({ allowed: true });
    const minor = checkUpgrade(clean, "4.17.0", false, why);
    expect(minor).toEqual({ allowed: false, kind: "Minor", reasons: ["StateStale"], message: staleUpgradeable(why).message, forced: false, warnings: [] });
    expect(checkUpgrade(clean, "5.0.0", false, why)).toMatchObject({ allowed: false, kind: "Major", reasons: ["StateStale"] });
    expect(checkUpgrade(clean, "4.17.0", true, why)).toMatchObject({ allowed: true, forced: true, reasons: ["StateStale"] });
    // The CVO consults Upgradeable only for minor updates: a z-stream passes, and says so.
    expect(checkUpgrade(clean, "4.16.5", false, why)).toMatchObject({ allowed: true, kind: "ZStream", reasons: [], message: "z-stream update from 4.16.2 to 4.16.5 is not blocked by StateStale" });
    expect(checkUpgrade(clean, "4.16.2", false, why)).toMatchObject({ allowed: true, kind: "Same" });
  });

  it("explains each outcome", () => {
    const rep = report(pausedBehind);
    expect(checkUpgrade(rep, "4.16.5", false).message).toBe("z-stream update from 4.16.2 to 4.16.5 is not blocked by PausedPoolLagging");
    expect(checkUpgrade(rep, "4.17.0", false).message).toBe(rep.upgradeable.message);
    expect(checkUpgrade(rep, "4.17.0", true).message).toBe(`Forced through blocking failures: PausedPoolLagging: ${rep.upgradeable.message}`);
    expect(checkUpgrade(rep, "4.16.2", false).message).toContain("an update already under way is never stopped");
    expect(checkUpgrade(rep, "4.15.9", false).warnings).toEqual([
      "Downgrade from 4.16.2 to 4.15.9: downgrades are not supported and are not checked for skew",
    ]);
  });

  it("judges the EUS allowance against the requested target", () => {
    const rep = report(pausedBehind, { settings: settings({ pausedPools: "AllowWithinKubeletSkew" }) });
    expect(checkUpgrade(rep, "4.17.0", false)).toMatchObject({ allowed: true, kind: "Minor" });
    expect(checkUpgrade(rep, "4.17.0", false).message).toContain("within the supported kubelet skew of 2");
    expect(checkUpgrade(rep, "4.18.0", false)).toMatchObject({ allowed: false, reasons: ["PausedPoolLagging"] });
  });

  it("blocks a minor on boot image skew but lets a z-stream through", () => {
    const old = policy({ skewMode: "Manual", skewManualMode: "OCPVersion", skewManualOcpVersion: "4.12.0" });
    const rep = report(undefined, { bootImagePolicy: old });
    expect(checkUpgrade(rep, "4.17.0", false)).toMatchObject({ allowed: false, reasons: ["ClusterBootImageSkewError"] });
    expect(checkUpgrade(rep, "4.16.3", false)).toMatchObject({ allowed: true, kind: "ZStream" });
  });

  it("warns when the target release's boot image limit would be violated", () => {
    const strict = parseSkewSettings({ bootImageLimits: { byMinor: { "4.17": { ocpVersion: "4.16.0", rhelVersion: "9.4" } } } });
    const r = checkUpgrade(report(undefined, { settings: strict }), "4.17.0", false);
    expect(r.allowed).toBe(true);
    expect(r.warnings).toEqual([expect.stringContaining("below the limit 4.16.0 of the target release 4.17")]);
  });

  it("passes on the unparsable-record warning", () => {
    const bad = policy({ skewMode: "Manual", skewManualMode: "RHCOSVersion", skewManualRhcosVersion: "9.6.2025102-0" });
    const r = checkUpgrade(report(undefined, { bootImagePolicy: bad }), "4.17.0", false);
    expect(r.allowed).toBe(true);
    expect(r.warnings[0]).toContain("cannot be parsed");
  });

  it("refuses an unparsable target with the CVO's reason", () => {
    const r = checkUpgrade(report(), "4.17", false);
    expect(r).toMatchObject({ allowed: false, kind: "", reasons: ["InvalidDesiredVersion"] });
    expect(r.message).toContain('invalid OCP version "4.17"');
  });

  it("does not block when the current version is unknown (non-blocking InvalidCurrentVersion)", () => {
    const r = checkUpgrade(report(pausedBehind, { clusterVersion: undefined }), "4.17.0", false);
    expect(r).toMatchObject({ allowed: true, kind: "" });
    expect(r.warnings.some((w) => w.startsWith("InvalidCurrentVersion"))).toBe(true);
  });
});
