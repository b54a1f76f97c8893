// Budget status is the leader's (a leader-only controller of the skeleton), with two replicas on
// one state plane: a replica that does not lead writes nothing and keeps no budget series; a new
// leader writes every budget at once (the resync is out of reach), and forgets the series when its
// term ends.
import type { BaseConfig } from "@lockstep/runtime";
import { silentLogger } from "@lockstep/runtime";
import { leaderElection, type LeaderElection } from "@lockstep/skeleton";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "../test-harness.js";
import { BUDGET_DISRUPTED_METRIC } from "./budget-metrics.js";

const BUDGETS = { group: "lockstep.io", version: "v1alpha1", plural: "disruptionbudgets" };
let world: World;
// The election switched off: a replica leads exactly while its election's Runnable runs.
const elections: LeaderElection[] = [0, 1].map(() => leaderElection({ service: "test", config: { LEADER_ELECTION: false } as BaseConfig, logger: silentLogger() }));

beforeAll(async () => {
  world = await startWorld({ nodes: ["w1", "w2"].map((name) => ({ name, pool: "worker" })), pools: { worker: "1" }, replicas: 2, budgetResyncMs: 600_000, leader: (i) => elections[i]!.gate });
});

afterAll(async () => {
  await world?.stop();
});

const statusOf = async () => ((await world.custom.getClusterCustomObject({ ...BUDGETS, name: "workers" })) as { status?: { members?: number } }).status;
/** Budget keys replica i's controller has taken (skipped ones too). */
const taken = async (i: number) => {
  const line = (await world.replicas[i]!.registry.metrics()).split("\n").find((l) => l.startsWith('lockstep_workqueue_processed_total{queue="budget-status"'));
  return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
};
const series = async (i: number) => (await world.replicas[i]!.registry.getSingleMetricAsString(BUDGET_DISRUPTED_METRIC)).includes('budget="workers"');

describe("budget status with two replicas", () => {
  it("is written by the leader only: at once when a term begins, the series forgotten when it ends", async () => {
    const before = [await taken(0), await taken(1)];
    await world.custom.createClusterCustomObject({ ...BUDGETS, body: { apiVersion: "lockstep.io/v1alpha1", kind: "DisruptionBudget", metadata: { name: "workers" }, spec: { maxDisrupted: "1", pool: "worker" } } });
    await waitFor(async () => (await taken(0)) > before[0]! && (await taken(1)) > before[1]!, { what: "the new budget through both replicas' queues" });
    expect(await statusOf()).toBeUndefined();
    expect(await series(0)).toBe(false);

    const term = new AbortController();
    const leading = elections[1]!.runnable.start(term.signal);
    try {
      await waitFor(async () => (await statusOf())?.members === 2, { what: "the new leader's status write" });
      expect(await series(1)).toBe(true);
      expect(await series(0)).toBe(false);
    } finally {
      term.abort();
      await leading;
    }
    await waitFor(async () => !(await series(1)), { what: "the series forgotten when the term ended" });
  });
});
