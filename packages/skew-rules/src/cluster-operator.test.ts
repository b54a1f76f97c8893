import { describe, expect, it } from "vitest";
import { clusterOperatorStatusChanged, conditionsChanged, desiredClusterOperatorStatus } from "./cluster-operator.js";
import type { Completion } from "./completion.js";
import type { UpgradeableVerdict } from "./upgradeable.js";

const t0 = new Date("2026-01-01T00:00:00Z");
const t1 = new Date("2026-01-01T01:00:00Z");
const blocked: UpgradeableVerdict = {
  status: "False",
  reason: "PausedPoolLagging",
  message: "paused worker",
  blockingReasons: ["PausedPoolLagging"],
  blockingPools: [{ pool: "worker", reason: "PausedPoolLagging" }],
  allowedPausedPools: [],
  judgedTarget: "4.17.0",
};
const ok: UpgradeableVerdict = { ...blocked, status: "True", reason: "AsExpected", message: "", blockingReasons: [], blockingPools: [] };
const incomplete: Completion = {
  targetVersion: "4.16.2",
  controlPlaneComplete: true,
  complete: false,
  nodes: 5,
  pools: [],
  incompletePools: [],
  message: "update to 4.16.2 is not complete: pool worker is paused",
};
const complete: Completion = { ...incomplete, complete: true, message: "all 5 nodes in 2 pools run 4.16.2" };

const base = { operatorVersion: "0.1.0", namespace: "lockstep", pools: ["worker", "master"], now: t0 };

describe("desiredClusterOperatorStatus", () => {
  it("reports the four conditions, versions and related objects", () => {
    const s = desiredClusterOperatorStatus({ ...base, upgradeable: blocked, completion: incomplete });
    expect(s.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["Available", "True", "AsExpected", "Lockstep 0.1.0 is evaluating update skew"],
      ["Progressing", "True", "UpdateIncomplete", "update to 4.16.2 is not complete: pool worker is paused"],
      ["Degraded", "False", "AsExpected", ""],
      ["Upgradeable", "False", "PausedPoolLagging", "paused worker"],
    ]);
    expect(s.conditions.every((c) => c.lastTransitionTime === t0)).toBe(true);
    expect(s.versions).toEqual([{ name: "operator", version: "0.1.0" }]);
    expect(s.relatedObjects).toEqual([
      { group: "", resource: "namespaces", name: "lockstep" },
      { group: "lockstep.io", resource: "bootimagepolicies", name: "cluster" },
      { group: "machineconfiguration.openshift.io", resource: "machineconfigpools", name: "master" },
      { group: "machineconfiguration.openshift.io", resource: "machineconfigpools", name: "worker" },
    ]);
  });

  it("skew never degrades; only a service problem does", () => {
    const s = desiredClusterOperatorStatus({ ...base, upgradeable: blocked, completion: complete, degraded: { reason: "HotLoop", message: "same write 3 times" } });
    expect(s.conditions.find((c) => c.type === "Degraded")).toMatchObject({ status: "True", reason: "HotLoop" });
    expect(s.conditions.find((c) => c.type === "Progressing")).toMatchObject({ status: "False", message: "all 5 nodes in 2 pools run 4.16.2" });
  });

  it("keeps lastTransitionTime while a status is unchanged and moves it when the status flips", () => {
    const first = desiredClusterOperatorStatus({ ...base, upgradeable: blocked, completion: incomplete });
    const again = desiredClusterOperatorStatus({ ...base, now: t1, previous: first.conditions, upgradeable: { ...blocked, message: "changed" }, completion: incomplete });
    expect(again.conditions.find((c) => c.type === "Upgradeable")?.lastTransitionTime).toBe(t0);
    const flipped = desiredClusterOperatorStatus({ ...base, now: t1, previous: first.conditions, upgradeable: ok, completion: incomplete });
    expect(flipped.conditions.find((c) => c.type === "Upgradeable")?.lastTransitionTime).toBe(t1);
    expect(flipped.conditions.find((c) => c.type === "Available")?.lastTransitionTime).toBe(t0);
  });
});

describe("conditionsChanged", () => {
  const a = desiredClusterOperatorStatus({ ...base, upgradeable: blocked, completion: incomplete });
  it("ignores lastTransitionTime and order", () => {
    const b = desiredClusterOperatorStatus({ ...base, now: t1, upgradeable: blocked, completion: incomplete });
    expect(conditionsChanged(a.conditions, b.conditions)).toBe(false);
    expect(conditionsChanged(a.conditions, [...b.conditions].reverse())).toBe(false);
  });
  it.each([
    ["status", { status: "True" }],
    ["reason", { reason: "PoolUpdating" }],
    ["message", { message: "other" }],
  ])("sees a change of %s", (_name, patch) => {
    const next = a.conditions.map((c) => (c.type === "Upgradeable" ? { ...c, ...patch } : c));
    expect(conditionsChanged(a.conditions, next)).toBe(true);
  });
  it("sees an added or removed condition", () => {
    expect(conditionsChanged(a.conditions, a.conditions.slice(1))).toBe(true);
    expect(conditionsChanged([], a.conditions)).toBe(true);
  });
  it("compares versions and related objects too", () => {
    expect(clusterOperatorStatusChanged(a, { ...a })).toBe(false);
    expect(clusterOperatorStatusChanged(a, { ...a, versions: [{ name: "operator", version: "0.2.0" }] })).toBe(true);
    expect(clusterOperatorStatusChanged(a, { ...a, relatedObjects: a.relatedObjects.slice(1) })).toBe(true);
  });
});
