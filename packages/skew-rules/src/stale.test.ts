import type { Condition } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { desiredClusterOperatorStatus } from "./cluster-operator.js";
import type { Completion } from "./completion.js";
import { holdAllButUpgradeable, REASON_STATE_STALE, staleUpgradeable } from "./stale.js";
import type { UpgradeableVerdict } from "./upgradeable.js";

const ok: UpgradeableVerdict = { status: "True", reason: "AsExpected", message: "", blockingReasons: [], blockingPools: [], allowedPausedPools: [], judgedTarget: "4.16" };
const complete = { complete: true, message: "all pools on 4.15.14" } as Completion;
const t0 = new Date("2026-11-25T12:00:00Z");
const t1 = new Date("2026-11-25T12:05:00Z");
const base = { operatorVersion: "0.1.0", namespace: "lockstep", pools: ["worker"], now: t0 };

describe("stale view", () => {
  it("blocks minor upgrades with StateStale and a message a human can act on", () => {
    const v = staleUpgradeable("the watcher has not been heard from for 41 s");
    expect(v).toMatchObject({ status: "False", reason: REASON_STATE_STALE, blockingReasons: [REASON_STATE_STALE] });
    expect(v.message).toContain("the watcher has not been heard from for 41 s");
    expect(v.message).toMatch(/Minor upgrades are blocked until it is heard from again/);
  });

  it("holds every other condition as last written, and only flips Upgradeable", () => {
    const written = desiredClusterOperatorStatus({ ...base, upgradeable: ok, completion: complete });
    // The stale view would say the update is incomplete: that must not reach the ClusterOperator.
    const fromStale = desiredClusterOperatorStatus({ ...base, now: t1, previous: written.conditions, upgradeable: staleUpgradeable("silent 20 s"), completion: { complete: false, message: "1 of 4 on 4.15.14" } as Completion });
    const held = holdAllButUpgradeable(fromStale, written.conditions);
    const byType = (cs: readonly Condition[], t: string) => cs.find((c) => c.type === t);
    expect(byType(held.conditions, "Progressing")).toEqual(byType(written.conditions, "Progressing"));
    expect(byType(held.conditions, "Available")).toEqual(byType(written.conditions, "Available"));
    expect(byType(held.conditions, "Upgradeable")).toMatchObject({ status: "False", reason: "StateStale", lastTransitionTime: t1 });
  });

  it("writes a full status when there is nothing to hold (first write while stale)", () => {
    const fromStale = desiredClusterOperatorStatus({ ...base, upgradeable: staleUpgradeable("silent"), completion: complete });
    expect(holdAllButUpgradeable(fromStale, [])).toEqual(fromStale);
  });
});
