// Whole-system fault tests: nats-server restarted mid-upgrade, each service SIGKILLed and
// restarted mid-upgrade, and API faults — each must end in the same, right state.
import { describe, expect, it } from "vitest";
import { allUpdated, heldNodeLeases, nodeRecords, startTestSystem, trackConcurrentUpdates, until, type TestSystem } from "./system.js";
import { SERVICE_NAMES } from "@lockstep/launcher";

const TARGET = "4.15.14";
const TOTAL = 7; // 3 masters + 4 workers

async function expectRightEndState(t: TestSystem, maxConcurrent: () => number): Promise<void> {
  await until("every node updated in the aggregator's view", () => allUpdated(t, TOTAL, TARGET), 300_000);
  await until("update.completed for the target", () => t.events.count("update.completed", (m) => m.version === TARGET) > 0, 120_000);
  expect(t.events.count("update.completed", (m) => m.version === TARGET)).toBe(1);
  // No lease left behind, and never more Update holds at once than the pools allow (2 workers + 1 master).
  await until("all update leases released", () => heldNodeLeases(t.env).length === 0, 60_000);
  expect(maxConcurrent()).toBeLessThanOrEqual(3);
  // The enforcer fails closed while its view is stale (a watch dropped and not yet re-opened stops
  // the heartbeat): the report says upgradeable once the view is fresh again.
  const skew = await until("an upgradeable skew report from a fresh view", async () => {
    const r = await t.clients.call(t.clients.skew, t.clients.skew.getSkewReport, {});
    return r.freshness?.stale === false && r;
  }, 60_000);
  expect(skew.report).toMatchObject({ upgradeable: true, updateComplete: true });
}

async function midUpgrade(t: TestSystem): Promise<void> {
  await until("the initial state", async () => (await nodeRecords(t)).length === TOTAL);
  await t.env.sim.upgrade(TARGET);
  await until("some node to be updating", async () => (await nodeRecords(t)).some((r) => r.phase !== "Updated"));
}

describe("whole system under faults", () => {
  it("converges when nats-server is killed and restarted mid-upgrade", async () => {
    const t = await startTestSystem();
    try {
      const maxConcurrent = trackConcurrentUpdates(t.env);
      await midUpgrade(t);
      await t.env.nats!.kill();
      await new Promise((r) => setTimeout(r, 3_000));
      await t.env.nats!.restart();
      await expectRightEndState(t, maxConcurrent);
    } finally {
      await t.stop();
    }
  });

  it("recovers when each service is SIGKILLed and restarted mid-upgrade", async () => {
    const t = await startTestSystem();
    try {
      const maxConcurrent = trackConcurrentUpdates(t.env);
      await midUpgrade(t);
      for (const name of SERVICE_NAMES) {
        const p = t.env.system.processes.get(name)!;
        await p.stop("SIGKILL");
        await new Promise((r) => setTimeout(r, 500));
        p.start();
        await p.waitReady(60_000);
      }
      await expectRightEndState(t, maxConcurrent);
    } finally {
      await t.stop();
    }
  });

  it("reaches the same end state with 5% API errors and watches dropped every 10 s", async () => {
    const t = await startTestSystem();
    try {
      const maxConcurrent = trackConcurrentUpdates(t.env);
      await midUpgrade(t);
      // From the start of the rollout on (the admin's own request is not what is under test).
      t.env.kube.faults.addSpecs(["error=409:0.05", "error=500:0.05", "drop-watches=10s"]);
      await expectRightEndState(t, maxConcurrent);
    } finally {
      await t.stop();
    }
  });
});
