import { describe, expect, it } from "vitest";
import { configs, pool } from "./fixtures.js";
import { assessPools } from "./pool-lag.js";

const mcs = configs({
  "rendered-master-new": "4.16.2",
  "rendered-worker-old": "4.15.9",
  "rendered-worker-new": "4.16.2",
  "rendered-infra-old": "4.15.9",
});

describe("assessPools (§5.6 rule 1)", () => {
  it.each([
    ["all at the control plane release", { current: "rendered-worker-new" }, false, false, "4.16.2"],
    ["rollout not finished", { current: "rendered-worker-old", target: "rendered-worker-new" }, true, true, "4.15.9"],
    ["paused and behind", { current: "rendered-worker-old", target: "rendered-worker-new", paused: true }, true, true, "4.15.9"],
    ["finished but on another release (not yet re-rendered)", { current: "rendered-worker-old" }, false, true, "4.15.9"],
    ["rendered config unknown: release not guessed", { current: "rendered-worker-missing" }, false, false, ""],
    ["no target yet", { current: "rendered-worker-new", target: "" }, false, false, "4.16.2"],
  ])("%s", (_name, spec, rolloutUnfinished, lagging, version) => {
    const a = assessPools([pool("master"), pool("worker", spec)], mcs);
    const worker = a.pools.find((p) => p.name === "worker");
    expect(a.controlPlaneRelease).toBe("4.16.2");
    expect(worker).toMatchObject({ rolloutUnfinished, lagging, version });
  });

  it("never marks the master pool as differing from itself, and orders master first", () => {
    const a = assessPools([pool("worker"), pool("infra", { current: "rendered-infra-old" }), pool("master")], mcs);
    expect(a.pools.map((p) => p.name)).toEqual(["master", "infra", "worker"]);
    expect(a.pools[0]).toMatchObject({ releaseDiffers: false, lagging: false });
    expect(a.pools[1]).toMatchObject({ releaseDiffers: true, lagging: true });
  });

  it("does not use Updating=True: a pool with an unready new node is not lagging", () => {
    const p = pool("worker");
    p.conditions.push({ type: "Updating", status: "True", reason: "", message: "" });
    expect(assessPools([pool("master"), p], mcs).pools[1]?.lagging).toBe(false);
  });

  it("reads Degraded and BuildInterrupted conditions", () => {
    const a = assessPools([pool("master", { degraded: true }), pool("worker", { buildInterrupted: true })], mcs);
    expect(a.pools[0]).toMatchObject({ degraded: true, buildInterrupted: false });
    expect(a.pools[1]).toMatchObject({ degraded: false, buildInterrupted: true });
  });
});
