import { describe, expect, it } from "vitest";
import { evaluateCompletion } from "./completion.js";
import { clusterVersion, configs, node, pool } from "./fixtures.js";

const mcs = configs({
  "rendered-master-new": "4.16.2",
  "rendered-worker-old": "4.15.9",
  "rendered-worker-new": "4.16.2",
  "rendered-infra-stale": "4.15.9",
});
const cvDone = clusterVersion("4.16.2", ["4.16.2:Completed", "4.15.9:Completed"]);
const masters = [node("m1", "master", "rendered-master-new"), node("m2", "master", "rendered-master-new")];
const workersDone = [node("w1", "worker", "rendered-worker-new"), node("w2", "worker", "rendered-worker-new")];
const workersHalf = [node("w1", "worker", "rendered-worker-new"), node("w2", "worker", "rendered-worker-old")];

function run(workerSpec: Parameters<typeof pool>[1], workers = workersDone, cv = cvDone) {
  return evaluateCompletion({
    clusterVersion: cv,
    pools: [pool("master"), pool("worker", { current: "rendered-worker-old", target: "rendered-worker-new", ...workerSpec })],
    nodes: [...masters, ...workers],
    machineConfigs: mcs,
  });
}

describe("evaluateCompletion", () => {
  it("is complete only when every node of every pool runs the target", () => {
    const c = run({ current: "rendered-worker-new" });
    expect(c).toMatchObject({ complete: true, controlPlaneComplete: true, nodes: 4, incompletePools: [] });
    expect(c.message).toBe("all 4 nodes in 2 pools run 4.16.2");
  });

  it.each([
    ["paused", { paused: true }, workersHalf, "Paused", "pool worker is paused: 1 of 2 nodes at 4.16.2; unpause it to finish the update"],
    ["in progress", {}, workersHalf, "InProgress", "pool worker is in progress: 1 of 2 nodes at 4.16.2"],
    [
      "degraded (wins over paused)",
      { paused: true },
      [node("w1", "worker", "rendered-worker-new"), node("w2", "worker", "rendered-worker-old", { desired: "rendered-worker-new", state: "Degraded" })],
      "Degraded",
      "pool worker is degraded: 1 of 2 nodes at 4.16.2; resolve the degraded nodes (oc get mcp worker)",
    ],
    [
      "a node still working on the target config",
      {},
      [node("w1", "worker", "rendered-worker-new"), node("w2", "worker", "rendered-worker-old", { desired: "rendered-worker-new", state: "Working" })],
      "InProgress",
      "pool worker is in progress: 1 of 2 nodes at 4.16.2",
    ],
  ])("incomplete when a pool is %s", (_name, spec, workers, cause, message) => {
    const c = run(spec, workers);
    expect(c.complete).toBe(false);
    expect(c.incompletePools).toHaveLength(1);
    expect(c.incompletePools[0]).toMatchObject({ pool: "worker", cause, nodes: 2, nodesAtTarget: 1, message });
    expect(c.message).toBe(`update to 4.16.2 is not complete: ${message}`);
  });

  it("a pool whose target config is not rendered for the target release is in progress", () => {
    const c = evaluateCompletion({
      clusterVersion: cvDone,
      pools: [pool("master"), pool("infra", { current: "rendered-infra-stale" })],
      nodes: [...masters, node("i1", "infra", "rendered-infra-stale")],
      machineConfigs: mcs,
    });
    expect(c.incompletePools[0]).toMatchObject({
      pool: "infra",
      cause: "InProgress",
      message: "pool infra is in progress: its target config rendered-infra-stale is not yet rendered for 4.16.2",
    });
  });

  it("is not complete while the cluster version operator is still working", () => {
    const c = run({ current: "rendered-worker-new" }, workersDone, clusterVersion("4.16.2", ["4.16.2:Partial", "4.15.9:Completed"]));
    expect(c).toMatchObject({ complete: false, controlPlaneComplete: false, incompletePools: [] });
    expect(c.message).toBe("update to 4.16.2 is not complete: the cluster version operator has not completed 4.16.2");
  });

  it("cannot judge without ClusterVersion or pools", () => {
    expect(evaluateCompletion({ clusterVersion: undefined, pools: [], nodes: [], machineConfigs: mcs })).toMatchObject({
      complete: false,
      message: "ClusterVersion has no desired version",
    });
    expect(evaluateCompletion({ clusterVersion: cvDone, pools: [], nodes: [], machineConfigs: mcs })).toMatchObject({ complete: false });
  });

  it("an empty pool is vacuously complete; nodes of no pool are ignored", () => {
    const c = evaluateCompletion({
      clusterVersion: cvDone,
      pools: [pool("master"), pool("gpu", { current: "rendered-gpu-none" })],
      nodes: [...masters, node("stray", "nobody", "whatever")],
      machineConfigs: mcs,
    });
    expect(c).toMatchObject({ complete: true, nodes: 2 });
  });
});
