// The lease age gauges as a replica's /metrics serves them, from its own lease index: kube-sim +
// nats-server + watcher + coordinator, leases acquired and preempted over gRPC.
import { OperationType } from "@lockstep/contracts";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, call, startWorld, type World } from "../test-harness.js";
import { OLDEST_HELD_METRIC, OLDEST_PREEMPTION_METRIC } from "./lease-metrics.js";

const { UPDATE, MAINTENANCE } = { UPDATE: OperationType.OPERATION_TYPE_UPDATE, MAINTENANCE: OperationType.OPERATION_TYPE_MAINTENANCE };

let world: World;

beforeAll(async () => {
  world = await startWorld({ nodes: [{ name: "m1", pool: "infra" }] });
});

afterAll(async () => {
  await world?.stop();
});

/** A sample's value on replica 0's /metrics, NaN when it has no such series. */
async function sample(metric: string, operation: string): Promise<number> {
  const text = await world.replicas[0]!.registry.getSingleMetricAsString(metric);
  const line = text.split("\n").find((l) => l.startsWith(`${metric}{operation="${operation}"} `));
  return line === undefined ? Number.NaN : Number(line.slice(line.lastIndexOf(" ") + 1));
}

describe("lease age metrics", () => {
  it("show the oldest hold and the oldest pending preemption per operation, and drop both once released", async () => {
    expect(await sample(OLDEST_HELD_METRIC, "Update")).toBe(0);
    const client = world.replicas[0]!.client;
    expect((await acquire(client, { node: "m1", holder: "mcd/m1", operation: UPDATE, durationSeconds: 600 })).granted).toBe(true);
    // Aged from its acquireTime: above 0 at once, far below its duration.
    await waitFor(async () => (await sample(OLDEST_HELD_METRIC, "Update")) > 0, { what: "the Update hold on /metrics" });
    expect(await sample(OLDEST_HELD_METRIC, "Update")).toBeLessThan(600);
    expect(await sample(OLDEST_PREEMPTION_METRIC, "Update")).toBe(0);

    // A forced Maintenance marks the Update hold preempted; its holder still holds it.
    expect((await acquire(client, { node: "m1", holder: "admin-alice", operation: MAINTENANCE, reason: "bad DIMM", force: true })).deniedCode).toBe("PreemptionPending");
    await waitFor(async () => (await sample(OLDEST_PREEMPTION_METRIC, "Update")) > 0, { what: "the pending preemption on /metrics" });
    expect(await sample(OLDEST_PREEMPTION_METRIC, "Maintenance")).toBe(0);

    await call(client, "release", { node: "m1", holder: "mcd/m1" });
    await waitFor(async () => (await sample(OLDEST_HELD_METRIC, "Update")) === 0 && (await sample(OLDEST_PREEMPTION_METRIC, "Update")) === 0, { what: "both back to 0 after the release" });
  });
});
