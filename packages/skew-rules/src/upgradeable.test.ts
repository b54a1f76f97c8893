import { describe, expect, it } from "vitest";
import type { BootImageVerdict } from "./boot-image-skew.js";
import { configs, pool, type PoolSpec, settings } from "./fixtures.js";
import { MSG_DEGRADED_POOL, MSG_INTERRUPTED_BUILD, MSG_POOL_UPDATING } from "./messages.js";
import { assessPools } from "./pool-lag.js";
import { evaluateUpgradeable, nextMinor } from "./upgradeable.js";

const mcs = configs({
  "rendered-master-new": "4.16.2",
  "rendered-worker-old": "4.15.9",
  "rendered-worker-older": "4.14.3",
  "rendered-worker-new": "4.16.2",
  "rendered-infra-old": "4.15.9",
  "rendered-infra-new": "4.16.2",
});
const behind: PoolSpec = { current: "rendered-worker-old", target: "rendered-worker-new", updated: 0 };
const violation: BootImageVerdict = {
  mode: "Manual",
  ocpVersion: "4.12.0",
  rhcosVersion: "",
  limits: { ocpVersion: "4.13.0", rhelVersion: "9.2" },
  outcome: "Violation",
  message: "Upgrades have been disabled because the cluster is using OCP boot image version 4.12.0, which is below …",
  warning: "",
  enforcementNoneMetric: 0,
};
const unchecked: BootImageVerdict = { ...violation, outcome: "NoVerdict", message: "", warning: "Boot image skew was not checked: x" };

function verdict(worker: PoolSpec, opts: { master?: PoolSpec; infra?: PoolSpec; boot?: BootImageVerdict; eus?: boolean; target?: string } = {}) {
  const pools = [pool("master", opts.master), pool("worker", { current: "rendered-worker-new", ...worker })];
  if (opts.infra) pools.push(pool("infra", { current: "rendered-infra-new", ...opts.infra }));
  return evaluateUpgradeable({
    lag: assessPools(pools, mcs),
    bootImage: opts.boot,
    settings: settings(opts.eus ? { pausedPools: "AllowWithinKubeletSkew" } : {}),
    currentVersion: "4.16.2",
    targetVersion: opts.target,
  });
}

describe("evaluateUpgradeable: reasons and precedence (§5.6 rule 2)", () => {
  it.each([
    ["nothing lags", {}, {}, "True", "AsExpected", []],
    ["a degraded pool", { degraded: true }, {}, "False", "DegradedPool", ["DegradedPool"]],
    ["an interrupted build", { buildInterrupted: true }, {}, "False", "InterruptedBuild", ["InterruptedBuild"]],
    ["a rolling-out pool", behind, {}, "False", "PoolUpdating", ["PoolUpdating"]],
    ["a paused lagging pool", { ...behind, paused: true }, {}, "False", "PausedPoolLagging", ["PausedPoolLagging"]],
    ["boot image skew", {}, { boot: violation }, "False", "ClusterBootImageSkewError", ["ClusterBootImageSkewError"]],
    ["boot image unparsable → warning, still upgradeable", {}, { boot: unchecked }, "True", "ClusterBootImageSkewUnchecked", []],
    [
      "degraded beats everything",
      { ...behind, paused: true, degraded: true },
      { infra: { current: "rendered-infra-old", target: "rendered-infra-new", buildInterrupted: true }, boot: violation },
      "False",
      "DegradedPool",
      ["DegradedPool", "InterruptedBuild", "PoolUpdating", "PausedPoolLagging", "ClusterBootImageSkewError"],
    ],
    [
      "updating beats paused, paused beats boot image",
      { ...behind, paused: true },
      { infra: { current: "rendered-infra-old", target: "rendered-infra-new" }, boot: violation },
      "False",
      "PoolUpdating",
      ["PoolUpdating", "PausedPoolLagging", "ClusterBootImageSkewError"],
    ],
    ["a degraded master pool", {}, { master: { degraded: true } }, "False", "DegradedPool", ["DegradedPool"]],
  ])("%s", (_name, worker, opts, status, reason, reasons) => {
    const v = verdict(worker, opts);
    expect(v).toMatchObject({ status, reason, blockingReasons: reasons });
  });

  it("reuses upstream messages verbatim and names pools, node counts, configs and releases", () => {
    const degraded = verdict({ degraded: true, degradedMachines: 1, machines: 3, updated: 2 });
    expect(degraded.message.startsWith(`${MSG_DEGRADED_POOL}. Degraded: pool worker: 2 of 3 nodes updated, 1 degraded`)).toBe(true);
    expect(verdict({ buildInterrupted: true }).message.startsWith(`${MSG_INTERRUPTED_BUILD}. `)).toBe(true);
    expect(verdict({ ...behind, machines: 5, updated: 2 }).message).toBe(
      `${MSG_POOL_UPDATING}. Not yet at the control plane release 4.16.2: pool worker: 2 of 5 nodes updated, ` +
        "on rendered-worker-old (release 4.15.9), target rendered-worker-new (release 4.16.2). " +
        "Let the rollout finish before a minor upgrade; z-stream updates are not blocked.",
    );
  });

  it("PausedPoolLagging names the pools, their current and target configs, and what to do", () => {
    const v = verdict({ ...behind, paused: true }, { infra: { current: "rendered-infra-old", target: "rendered-infra-new", paused: true, machines: 2, updated: 0 } });
    expect(v.message).toBe(
      "One or more paused machine config pools lag behind the control plane release 4.16.2: " +
        "paused pool infra: 0 of 2 nodes updated, on rendered-infra-old (release 4.15.9), target rendered-infra-new (release 4.16.2); " +
        "paused pool worker: 0 of 3 nodes updated, on rendered-worker-old (release 4.15.9), target rendered-worker-new (release 4.16.2). " +
        `Unpause them (oc patch mcp infra --type merge -p '{"spec":{"paused":false}}'; oc patch mcp worker --type merge -p '{"spec":{"paused":false}}') ` +
        "and let them finish before a minor upgrade; z-stream updates are not blocked.",
    );
    expect(v.blockingPools).toEqual([
      { pool: "infra", reason: "PausedPoolLagging" },
      { pool: "worker", reason: "PausedPoolLagging" },
    ]);
  });

  it("a finished pool on an older release lags and says the control plane release", () => {
    const v = verdict({ current: "rendered-worker-old" });
    expect(v.reason).toBe("PoolUpdating");
    expect(v.message).toContain("pool worker: 3 of 3 nodes updated, on rendered-worker-old (release 4.15.9), control plane at 4.16.2");
  });

  it("keeps boot image messages exact even with other blockers noted elsewhere", () => {
    expect(verdict({}, { boot: violation }).message).toBe(violation.message);
    const both = verdict(behind, { boot: violation });
    expect(both.message.endsWith("Also ClusterBootImageSkewError.")).toBe(true);
  });

  it("ignores Updating when mode None / no verdict", () => {
    expect(verdict({}, { boot: { ...violation, outcome: "NoVerdict", message: "" } })).toMatchObject({ status: "True", reason: "AsExpected", message: "" });
  });
});

describe("EUS allowance (§5.6 rule 3)", () => {
  const paused = { ...behind, paused: true };
  it.each([
    ["Block (default) blocks a paused pool", paused, false, undefined, "False", []],
    ["within skew of the next minor: 4.15 → 4.17 is 2", paused, true, undefined, "True", ["worker"]],
    ["beyond skew: 4.14 → 4.17 is 3", { ...paused, current: "rendered-worker-older" }, true, undefined, "False", []],
    ["explicit target within skew: 4.15 → 4.17", paused, true, "4.17.1", "True", ["worker"]],
    ["explicit target beyond skew: 4.15 → 4.18", paused, true, "4.18.0", "False", []],
    ["across a major is never within skew", paused, true, "5.0.0", "False", []],
    ["unknown pool release blocks", { ...paused, current: "rendered-worker-unknown" }, true, undefined, "False", []],
    ["never excuses a non-paused pool", behind, true, undefined, "False", []],
  ])("%s", (_name, worker, eus, target, status, allowed) => {
    const v = verdict(worker, { eus, target });
    expect(v.status).toBe(status);
    expect(v.allowedPausedPools).toEqual(allowed);
  });

  it("shows the allowance in the message, whether it passes or not", () => {
    const pass = verdict(paused, { eus: true });
    expect(pass).toMatchObject({ reason: "AsExpected", judgedTarget: "4.17.0" });
    expect(pass.message).toBe(
      "pausedPools=AllowWithinKubeletSkew, judged against 4.17.0: worker at 4.15 is 2 minor(s) behind 4.17, within the supported kubelet skew of 2.",
    );
    const fail = verdict(paused, { eus: true, target: "4.18.0" });
    expect(fail.reason).toBe("PausedPoolLagging");
    expect(fail.message).toContain("worker at 4.15 is 3 minor(s) behind 4.18, beyond the supported kubelet skew of 2");
  });

  it("uses the target release's configured kubelet skew", () => {
    const v = evaluateUpgradeable({
      lag: assessPools([pool("master"), pool("worker", paused)], mcs),
      bootImage: undefined,
      settings: settings({ pausedPools: "AllowWithinKubeletSkew", kubeletSkew: { default: 2, byMinor: { "4.18": 3 } } }),
      currentVersion: "4.16.2",
      targetVersion: "4.18.0",
    });
    expect(v.status).toBe("True");
  });
});

describe("nextMinor", () => {
  it.each([
    ["4.16.3", "4.17.0"],
    ["4.16.0-rc.1", "4.17.0"],
    ["", ""],
  ])("%s → %s", (v, n) => expect(nextMinor(v)).toBe(n));
});
