import { validatePolicy, type LeaseRecord, type Observation } from "@lockstep/lease-policy";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { leaseAges, observeLeaseAges, OLDEST_HELD_METRIC, OLDEST_PREEMPTION_METRIC } from "./lease-metrics.js";

const { policy } = validatePolicy();
const NOW = Date.parse("2026-01-01T12:00:00Z");
const ago = (s: number) => new Date(NOW - s * 1000);

function rec(name: string, over: Partial<LeaseRecord>): LeaseRecord {
  return {
    namespace: "lockstep",
    name,
    resourceVersion: "1",
    kind: "node",
    node: name,
    owned: true,
    holder: "mco",
    durationSeconds: 60,
    acquireTime: ago(10),
    renewTime: ago(5),
    renewTimeRaw: "",
    transitions: 0,
    operation: "Update",
    reason: "",
    preemptionRequestedBy: "",
    preemptedBy: "",
    preemptorHolder: "",
    preemptedAt: undefined,
    preemptedReason: "",
    preemptionWithdrawnBy: "",
    preemptionWithdrawnAt: undefined,
    releasedAt: undefined,
    scope: "",
    slotIndex: 0,
    corrupt: undefined,
    annotations: {},
    ...over,
  };
}

/** Every record first seen `seenAgo` seconds ago (so within its duration: held). */
function fixture(recs: LeaseRecord[], seenAgo = 5) {
  const observations = new Map<string, Observation>(recs.map((r) => [r.name, { fingerprint: r.name, firstSeenMs: NOW - seenAgo * 1000 }]));
  return { all: () => recs.map((r) => ({ key: r.name, rec: r })), observations };
}

describe("leaseAges", () => {
  it("gives the oldest valid hold per operation, leaving out free, expired, admin and slot leases", () => {
    const idx = fixture([
      rec("a", { acquireTime: ago(3600) }),
      rec("b", { acquireTime: ago(120) }),
      rec("c", { operation: "Reboot", acquireTime: ago(30) }),
      rec("free", { holder: "", acquireTime: ago(9000) }),
      rec("admin", { holder: `${policy.adminHolderPrefix}alice`, acquireTime: ago(9000) }),
      rec("slot", { kind: "slot", operation: "Drain", acquireTime: ago(9000) }),
      rec("unknown-op", { operation: undefined, acquireTime: ago(50) }),
    ]);
    const a = leaseAges(idx.all(), idx.observations, NOW, policy);
    expect(Object.fromEntries(a.held)).toEqual({ Update: 3600, Reboot: 30, unknown: 50 });
    expect(a.preemptionPending.size).toBe(0);
  });

  it("drops a hold that expired on this replica's clock, whatever its acquireTime", () => {
    const idx = fixture([rec("a", { acquireTime: ago(3600) })], 3600);
    expect(leaseAges(idx.all(), idx.observations, NOW, policy).held.size).toBe(0);
  });

  it("gives the oldest pending preemption per operation of the preempted hold, and ages from first sight without timestamps", () => {
    const idx = fixture([
      rec("a", { operation: "Maintenance", preemptedBy: "mco (Update)", preemptorHolder: "mco", preemptedAt: ago(400) }),
      rec("b", { operation: "Maintenance", preemptedBy: "mco (Update)", preemptorHolder: "mco", preemptedAt: ago(40) }),
      rec("c", { operation: "Drain", acquireTime: undefined, preemptedBy: "x (Fence)", preemptorHolder: "x", preemptedAt: undefined }),
    ]);
    const a = leaseAges(idx.all(), idx.observations, NOW, policy);
    expect(Object.fromEntries(a.preemptionPending)).toEqual({ Maintenance: 400, Drain: 5 });
    expect(a.held.get("Drain")).toBe(5);
  });
});

describe("observeLeaseAges", () => {
  it("exports both gauges per operation at scrape time, 0 for operations with nothing held or no index yet", async () => {
    const registry = new Registry();
    let idx: ReturnType<typeof fixture> | undefined;
    observeLeaseAges(registry, () => idx, policy, () => NOW);
    expect(await registry.getSingleMetricAsString(OLDEST_HELD_METRIC)).toContain(`${OLDEST_HELD_METRIC}{operation="Update"} 0`);
    idx = fixture([rec("a", { acquireTime: ago(700), preemptedBy: "x (Fence)", preemptorHolder: "x", preemptedAt: ago(90) })]);
    const held = await registry.getSingleMetricAsString(OLDEST_HELD_METRIC);
    expect(held).toContain(`${OLDEST_HELD_METRIC}{operation="Update"} 700`);
    expect(held).toContain(`${OLDEST_HELD_METRIC}{operation="Reboot"} 0`);
    expect(await registry.getSingleMetricAsString(OLDEST_PREEMPTION_METRIC)).toContain(`${OLDEST_PREEMPTION_METRIC}{operation="Update"} 90`);
    // A rewiring replaces the source instead of registering twice.
    observeLeaseAges(registry, () => undefined, policy, () => NOW);
    expect(await registry.getSingleMetricAsString(OLDEST_HELD_METRIC)).toContain(`${OLDEST_HELD_METRIC}{operation="Update"} 0`);
  });
});
