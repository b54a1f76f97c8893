import { describe, expect, it } from "vitest";
import { type ClusterContext, calculatePhase, ellipsizeNames, evaluateNode, isDraining } from "./node-status.js";
import { cond, node, pool } from "./testing/builders.js";

const ctx: ClusterContext = {
  target: "4.2.0",
  migrationInProgress: false,
  mcVersions: new Map([
    ["rendered-worker-old", "4.1.0"],
    ["rendered-worker-new", "4.2.0"],
    ["rendered-worker-newer", "4.2.0"],
    ["rendered-worker-noversion", ""],
  ]),
};
const worker = pool("worker");
const paused = pool("worker", { paused: true });
const row = (n: ReturnType<typeof node>, p = worker, c = ctx) => evaluateNode(n, p, c).record;

describe("calculatePhase (spec §5.4)", () => {
  it.each([
    [true, true, false, false, "Working", "Draining"],
    [true, false, false, false, "Working", "Updating"],
    [true, false, false, false, "Rebooting", "Rebooting"],
    [true, false, false, false, "Done", "Updated"],
    [true, false, false, false, "", "Updating"],
    [true, false, false, false, "Degraded", "Updating"],
    [false, false, true, true, "Done", "Updated"],
    [false, false, false, true, "Done", "Paused"],
    [false, false, false, false, "Done", "Pending"],
  ] as const)("updating=%s draining=%s updated=%s paused=%s state=%j → %s", (updating, draining, updated, isPaused, state, phase) => {
    expect(calculatePhase(updating, draining, updated, isPaused, state)).toBe(phase);
  });
});

describe("evaluateNode: assessment, phase, EST and MESSAGE (spec §5.5)", () => {
  it("updated node", () => {
    const r = row(node("worker-a", { current: "rendered-worker-new", desired: "rendered-worker-new", state: "Done" }));
    expect([r.assessment, r.phase, r.version, r.estimate, r.message]).toEqual(["Completed", "Updated", "4.2.0", "-", ""]);
  });

  it("updated by version alone while another MC with the same version rolls out", () => {
    const r = row(node("worker-a", { current: "rendered-worker-new", desired: "rendered-worker-newer", state: "Working" }));
    expect(r.isUpdated).toBe(true);
    expect(r.isUpdating).toBe(false);
    expect(r.phase).toBe("Updated");
  });

  it("pending and paused nodes", () => {
    const n = node("worker-a", { current: "rendered-worker-old", desired: "rendered-worker-old", state: "Done" });
    expect([row(n).assessment, row(n).phase, row(n).estimate]).toEqual(["Outdated", "Pending", "?"]);
    expect([row(n, paused).assessment, row(n, paused).phase, row(n, paused).estimate]).toEqual(["Excluded", "Paused", "-"]);
  });

  it("updating, rebooting and draining nodes", () => {
    const base = { current: "rendered-worker-old", desired: "rendered-worker-new" };
    expect(row(node("worker-a", { ...base, state: "Working" }))).toMatchObject({ assessment: "Progressing", phase: "Updating", estimate: "+5m" });
    expect(row(node("worker-a", { ...base, state: "Rebooting" }))).toMatchObject({ assessment: "Progressing", phase: "Rebooting", estimate: "+5m" });
    const draining = node("worker-a", { ...base, state: "Working", desiredDrain: "drain-rendered-worker-new", lastAppliedDrain: "uncordon-rendered-worker-old", unschedulable: true });
    expect(row(draining)).toMatchObject({ assessment: "Progressing", phase: "Draining", estimate: "+10m", message: "", isUnavailable: true });
  });

  it("desired config that is not the pool target is not updating", () => {
    const r = row(node("worker-a", { current: "rendered-worker-old", desired: "rendered-worker-newer", state: "Working" }));
    expect(r.isUpdating).toBe(false);
    expect(r.phase).toBe("Pending");
  });

  it("unavailable (not updating) shows the reason string; EST is - when updated", () => {
    const notReady = node("worker-a", {
      current: "rendered-worker-old",
      desired: "rendered-worker-old",
      state: "Done",
      unschedulable: true,
      conditions: [cond("Ready", "False", "2024-01-01T00:00:00Z", { message: "kubelet down" })],
    });
    expect(row(notReady)).toMatchObject({ assessment: "Unavailable", phase: "Pending", estimate: "?", message: "Not ready | Node is marked unschedulable" });
    const cordonedUpdated = node("worker-a", { current: "rendered-worker-new", desired: "rendered-worker-new", state: "Done", unschedulable: true });
    expect(row(cordonedUpdated)).toMatchObject({ assessment: "Unavailable", phase: "Updated", estimate: "-", message: "Node is marked unschedulable" });
  });

  it("degraded beats unavailable, keeps the phase, and substitutes the node name", () => {
    const name = "build0-worker-b-9lztv";
    const r = row(
      node(name, {
        current: "rendered-worker-old",
        desired: "rendered-worker-new",
        state: "Degraded",
        reason: `failed to drain node: ${name} after 1 hour`,
        desiredDrain: "drain-rendered-worker-new",
        lastAppliedDrain: "uncordon-rendered-worker-old",
        unschedulable: true,
        conditions: [cond("Ready", "False")],
      }),
    );
    expect(r).toMatchObject({ assessment: "Degraded", phase: "Draining", estimate: "?", message: "failed to drain node: <node> after 1 hour", isDegraded: true });
    expect(r.degradedReason).toContain(name);
  });

  it("unknown versions print as empty (rendered `?`) and are neither updated nor updating", () => {
    const r = row(node("worker-a", { desired: "rendered-worker-old", state: "Done" }));
    expect([r.version, r.isUpdated, r.isUpdating, r.assessment]).toEqual(["", false, false, "Unavailable"]);
    expect(r.message).toBe("Machine Config Daemon is processing the node");
    expect(row(node("worker-a", { current: "rendered-worker-noversion", desired: "rendered-worker-noversion", state: "Done" })).version).toBe("");
  });

  it("during a multi-arch migration the desired config must match too", () => {
    const migrating: ClusterContext = { ...ctx, migrationInProgress: true };
    const n = node("worker-a", { current: "rendered-worker-newer", desired: "rendered-worker-new", state: "Working" });
    expect(row(n, worker, migrating).isUpdated).toBe(false);
    expect(row(n, worker, migrating).isUpdating).toBe(true);
    expect(row(n).isUpdated).toBe(true);
  });

  it("with an empty history nothing is updated", () => {
    const r = row(node("worker-a", { current: "rendered-worker-new", desired: "rendered-worker-new", state: "Done" }), worker, { ...ctx, target: undefined });
    expect(r.isUpdated).toBe(false);
    expect(r.phase).toBe("Pending");
  });
});

describe("isDraining", () => {
  const MCO = "machineconfiguration.openshift.io/";
  it("drain requested and not applied", () => {
    expect(isDraining({ [`${MCO}desiredDrain`]: "drain-x", [`${MCO}lastAppliedDrain`]: "uncordon-y" }, false)).toBe(true);
    expect(isDraining({ [`${MCO}desiredDrain`]: "uncordon-x", [`${MCO}lastAppliedDrain`]: "drain-x" }, false)).toBe(false);
    expect(isDraining({ [`${MCO}desiredDrain`]: "drain-x" }, true)).toBe(false);
  });
  it("updating node whose MCD still says Done", () => {
    const ann = { [`${MCO}desiredDrain`]: "uncordon-x", [`${MCO}lastAppliedDrain`]: "uncordon-x", [`${MCO}state`]: "Done" };
    expect(isDraining(ann, true)).toBe(true);
    expect(isDraining(ann, false)).toBe(false);
  });
});

describe("ellipsizeNames", () => {
  it("replaces every occurrence of names of at least 8 characters", () => {
    expect(ellipsizeNames("a node-1234 b node-1234", "node-1234")).toBe("a <node> b <node>");
    expect(ellipsizeNames("a node-1 b", "node-1")).toBe("a node-1 b");
  });
});
