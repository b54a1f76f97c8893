// DisruptionBudget status kept true from changes alone (the resync is set out of reach): a cordoned
// member counts as disrupted, a relabelled node joins its new pool's budget and a matching selector's,
// a deleted node leaves; budgets a change does not touch are not re-evaluated for it, so each of
// these must reach the status through the change that made it.
import { PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorld, type World } from "../test-harness.js";
import { BUDGET_ALLOWED_METRIC, BUDGET_DISRUPTED_METRIC } from "./budget-metrics.js";

let world: World;
const merge = () => setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

beforeAll(async () => {
  world = await startWorld({
    nodes: [{ name: "w1", labels: { rack: "r1" } }, { name: "w2", labels: { rack: "r2" } }, { name: "i1", pool: "infra", labels: { rack: "r1" } }],
    pools: { worker: "1", infra: "1" },
    budgetResyncMs: 600_000,
  });
  const budget = (name: string, spec: Record<string, unknown>) =>
    world.custom.createClusterCustomObject({
      group: "lockstep.io",
      version: "v1alpha1",
      plural: "disruptionbudgets",
      body: { apiVersion: "lockstep.io/v1alpha1", kind: "DisruptionBudget", metadata: { name }, spec: { maxDisrupted: "1", ...spec } },
    });
  await budget("workers", { pool: "worker" });
  await budget("rack-r1", { nodeSelector: { matchLabels: { rack: "r1" } } });
});

afterAll(async () => {
  await world?.stop();
});

async function statusOf(name: string): Promise<{ members?: number; disruptedNodes?: string[] }> {
  const obj = (await world.custom.getClusterCustomObject({ group: "lockstep.io", version: "v1alpha1", plural: "disruptionbudgets", name })) as { status?: { members?: number; disruptedNodes?: string[] } };
  return obj.status ?? {};
}

async function expectStatus(name: string, want: { members: number; disruptedNodes: string[] }): Promise<void> {
  await waitFor(async () => {
    const s = await statusOf(name);
    return s.members === want.members && JSON.stringify(s.disruptedNodes ?? []) === JSON.stringify(want.disruptedNodes);
  }, { timeoutMs: 15_000, what: `${name} status ${JSON.stringify(want)}` });
  expect(await statusOf(name)).toMatchObject(want);
}

/** A sample's value on replica 0's /metrics, NaN when it has no such series. */
async function sample(metric: string, labels: string): Promise<number> {
  const text = await world.replicas[0]!.registry.getSingleMetricAsString(metric);
  const line = text.split("\n").find((l) => l.startsWith(`${metric}{${labels}} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("budget status from node changes", () => {
  it("follows cordons, relabels and deletions of members", async () => {
    await expectStatus("workers", { members: 2, disruptedNodes: [] });
    await expectStatus("rack-r1", { members: 2, disruptedNodes: [] });

    await world.core.patchNode({ name: "w1", body: { spec: { unschedulable: true } } }, merge());
    await expectStatus("workers", { members: 2, disruptedNodes: ["w1"] });
    await expectStatus("rack-r1", { members: 2, disruptedNodes: ["w1"] });
    // What the status says is on /metrics too: workers is at its limit (1 of 1 disrupted).
    await waitFor(async () => (await sample(BUDGET_DISRUPTED_METRIC, 'budget="workers"')) === 1, { what: "workers disrupted 1 on /metrics" });
    expect(await sample(BUDGET_ALLOWED_METRIC, 'budget="workers"')).toBe(1);
    // The skeleton reports the controller's queue and reconciles beside them.
    const text = await world.replicas[0]!.registry.metrics();
    expect(text).toMatch(/lockstep_workqueue_processed_total\{queue="budget-status"[^}]*\} [1-9]/);
    expect(text).toMatch(/lockstep_controller_reconcile_duration_seconds_count\{controller="budget-status",outcome="ok"[^}]*\} [1-9]/);

    // i1 leaves infra for worker (and stays in rack r1); w2 moves to rack r1.
    await world.core.patchNode({ name: "i1", body: { metadata: { labels: { "node-role.kubernetes.io/infra": null, "node-role.kubernetes.io/worker": "" } } } }, merge());
    await expectStatus("workers", { members: 3, disruptedNodes: ["w1"] });
    await world.core.patchNode({ name: "w2", body: { metadata: { labels: { rack: "r1" } } } }, merge());
    await expectStatus("rack-r1", { members: 3, disruptedNodes: ["w1"] });

    await world.core.deleteNode({ name: "w1" });
    await expectStatus("workers", { members: 2, disruptedNodes: [] });
    await expectStatus("rack-r1", { members: 2, disruptedNodes: [] });
  });
});
