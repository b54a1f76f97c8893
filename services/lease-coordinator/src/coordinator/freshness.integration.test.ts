// Fail closed on a stale state plane, through the real LeaseService: kube-sim + nats-server + the
// watcher in-process (stopped and started again) + a coordinator with a short STATE_MAX_AGE.
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListResponse, PreflightUpgradeResponse } from "@lockstep/contracts";
import { acquire, call, holdersInApi, startWorld, type World } from "../test-harness.js";

const STALE = /^StateStale: the watcher has not been heard from for \d+ s; no disruption is granted until it is$/;
let world: World;

beforeAll(async () => {
  world = await startWorld({
    nodes: ["w1", "w2", "w3", "w4"].map((name) => ({ name, pool: "worker" })),
    pools: { worker: "2" },
    heartbeatIntervalMs: 200,
    stateMaxAgeMs: 1_500,
  });
});

afterAll(async () => {
  await world?.stop();
});

const client = () => world.replicas[0]!.client;

describe("LeaseService on a stale state plane", () => {
  it("refuses new grants with StateStale while the watcher is gone, keeps renewals and releases, and grants again once it is back", async () => {
    expect(await acquire(client(), { node: "w1", holder: "a" })).toMatchObject({ granted: true });

    // A heartbeat heard live (a coordinator is fresh for its first bound before any arrives).
    const freshness = async () => (await call<object, ListResponse>(client(), "list", { operation: 0, pool: "" })).freshness;
    await waitFor(async () => (await freshness())?.heard === true, { what: "a heartbeat heard" });
    await world.stopWatcher();
    await waitFor(async () => (await freshness())?.stale === true, { what: "the view stale (1.5 s bound)" });
    const refused = await acquire(client(), { node: "w2", holder: "b" });
    expect(refused).toMatchObject({ granted: false, retryAfterSeconds: 5 });
    expect(refused.deniedReason).toMatch(STALE);
    expect((await holdersInApi(world)).has("w2")).toBe(false);

    // Answers that read the view say how old it is; the preflight leads with a StateStale warning
    // (a hold written since may be missing, so "no warnings" must not be read off it).
    const listed = await call<object, ListResponse>(client(), "list", { operation: 0, pool: "" });
    expect(listed.freshness).toMatchObject({ stale: true, heard: true, maxAgeSeconds: 1.5 });
    const preflight = await call<object, PreflightUpgradeResponse>(client(), "preflightUpgrade", { targetVersion: "4.17.0" });
    expect(preflight.freshness).toMatchObject({ stale: true });
    expect(preflight.warnings[0]).toMatchObject({ code: "StateStale", node: "" });
    expect(preflight.warnings[0]!.message).toMatch(/^Lockstep's view of the cluster is stale \(the watcher has not been heard from for \d+ s\): a node held since/);

    // The holder of w1 keeps its hold: renew, acquire-as-renewal, and release all still work.
    await call(client(), "renew", { node: "w1", holder: "a" });
    expect(await acquire(client(), { node: "w1", holder: "a" })).toMatchObject({ granted: true });

    // A waiting request keeps waiting and is granted once the watcher is heard again.
    const waiting = acquire(client(), { node: "w2", holder: "b", waitSeconds: 30 });
    await new Promise((r) => setTimeout(r, 500));
    const back = Date.now();
    world.startWatcher();
    expect(await waiting).toMatchObject({ granted: true });
    expect(Date.now() - back).toBeLessThan(10_000);

    // Fresh again: the ordinary policy decides (pool worker allows 2, w1 and w2 hold them).
    const third = await acquire(client(), { node: "w3", holder: "c" });
    expect(third.granted).toBe(false);
    expect(third.deniedReason).not.toMatch(/StateStale/);
    expect(third.deniedReason).toMatch(/worker/);
    const fresh = await call<object, PreflightUpgradeResponse>(client(), "preflightUpgrade", { targetVersion: "4.17.0" });
    expect(fresh.freshness).toMatchObject({ stale: false, heard: true });
    expect(fresh.warnings.map((w) => w.code)).not.toContain("StateStale");

    expect(await call(client(), "release", { node: "w1", holder: "a" })).toMatchObject({ released: true });
    await waitFor(async () => !(await holdersInApi(world)).has("w1"));
  });

  it("holds budget statuses as last written while the view is stale, resyncs or not, and writes them again once fresh", async () => {
    const BUDGETS = { group: "lockstep.io", version: "v1alpha1", plural: "disruptionbudgets" };
    const membersOf = async () => ((await world.custom.getClusterCustomObject({ ...BUDGETS, name: "workers" })) as { status?: { members?: number } }).status?.members;
    // How many budget keys the controller's queue has taken (held ones too): resyncs every second.
    const taken = async () => {
      const line = (await world.replicas[0]!.registry.metrics()).split("\n").find((l) => l.startsWith('lockstep_workqueue_processed_total{queue="budget-status"'));
      return line === undefined ? 0 : Number(line.slice(line.lastIndexOf(" ") + 1));
    };
    await world.custom.createClusterCustomObject({ ...BUDGETS, body: { apiVersion: "lockstep.io/v1alpha1", kind: "DisruptionBudget", metadata: { name: "workers" }, spec: { maxDisrupted: "1", pool: "worker" } } });
    await waitFor(async () => (await membersOf()) === 4, { what: "the budget's status written" });

    await world.stopWatcher();
    await waitFor(async () => (await call<object, ListResponse>(client(), "list", { operation: 0, pool: "" })).freshness?.stale, { what: "the view stale" });
    // Someone else's status: a write from the stale view would put members 4 back.
    const obj = (await world.custom.getClusterCustomObject({ ...BUDGETS, name: "workers" })) as Record<string, any>;
    await world.custom.replaceClusterCustomObjectStatus({ ...BUDGETS, name: "workers", body: { ...obj, status: { ...obj.status, members: 99 } } });
    const before = await taken();
    await waitFor(async () => (await taken()) >= before + 2, { what: "two resyncs of the budget while stale" });
    expect(await membersOf()).toBe(99);

    world.startWatcher();
    await waitFor(async () => (await membersOf()) === 4, { what: "the status written again once fresh" });
  });
});
