import { BootImagePolicyState, ClusterOperatorState, LeaseState } from "@lockstep/contracts";
import { type NodeRecord, parseTime } from "@lockstep/insights";
import { describe, expect, it } from "vitest";
import { DEFAULT_LEASE_SOURCES, nodeHolds } from "./lease-holds.js";
import { lockstepInsights } from "./lockstep-insights.js";

const NOW_MS = Date.parse("2024-03-01T12:00:00Z");
const lease = (p: Partial<LeaseState>) =>
  LeaseState.fromPartial({ namespace: "lockstep-leases", leaseDurationSeconds: 600, renewTime: new Date(NOW_MS - 60_000), acquireTime: new Date(NOW_MS - 120_000), ...p });
const record = (name: string, isUpdated: boolean) => ({ name, pool: "worker", scopeType: "WorkerPool", isUpdated }) as NodeRecord;

describe("nodeHolds", () => {
  it("finds maintenance and fencing holds in Lockstep's, KEP and medik8s namespaces", () => {
    const holds = nodeHolds(
      [
        lease({ name: "w1", holderIdentity: "admin-x", annotations: { "lockstep.io/operation": "Maintenance", "lockstep.io/reason": "disk swap" } }),
        lease({ name: "w2", holderIdentity: "updater", annotations: { "lockstep.io/operation": "Update" } }),
        lease({ namespace: "medik8s-leases", name: "node-w3", holderIdentity: "NodeHealthCheck-nhc" }),
        lease({ namespace: "kube-node-maintenance", name: "w4", holderIdentity: "kubeadm-alice", renewTime: new Date(0) }),
        lease({ namespace: "other", name: "w5", holderIdentity: "kubeadm-bob" }),
      ],
      NOW_MS,
    );
    expect([...holds.values()].map((h) => [h.node, h.operation, h.holder])).toEqual([
      ["w1", "Maintenance", "admin-x"],
      ["w3", "Fence", "NodeHealthCheck-nhc"],
      ["w4", "Maintenance", "kubeadm-alice"],
    ]);
  });

  it("ignores expired, released and malformed leases (admin kubeadm holds never expire)", () => {
    const holds = nodeHolds(
      [
        lease({ name: "expired", holderIdentity: "m", annotations: { "lockstep.io/operation": "Fence" }, renewTime: new Date(NOW_MS - 700_000) }),
        lease({ name: "released", holderIdentity: "", annotations: { "lockstep.io/operation": "Fence" } }),
        lease({ name: "no-duration", holderIdentity: "m", annotations: { "lockstep.io/operation": "Fence" }, leaseDurationSeconds: 0 }),
        lease({ name: "admin", holderIdentity: "kubeadm-x", renewTime: undefined, leaseDurationSeconds: 0 }),
      ],
      NOW_MS,
      DEFAULT_LEASE_SOURCES,
    );
    expect([...holds.keys()]).toEqual(["admin"]);
  });
});

describe("lockstepInsights", () => {
  const holds = nodeHolds([lease({ name: "w2", holderIdentity: "kubeadm-a" }), lease({ name: "w1", holderIdentity: "NodeHealthCheck-x", annotations: { "lockstep.io/operation": "Fence" } })], NOW_MS);

  it("warns about holds on nodes still to update, informs about holds on updated nodes, in node order", () => {
    const out = lockstepInsights({ holds, record: (n) => record(n, n === "w2"), bootImagePolicy: undefined, lockstepOperator: undefined });
    expect(out.map((i) => [i.summary, i.level, i.impact])).toEqual([
      ["Node w1 is held by a fencing lease (NodeHealthCheck-x)", "Warning", "Update Speed"],
      ["Node w2 is held by a maintenance lease (kubeadm-a)", "Info", "None"],
    ]);
    expect(out[0]!.startedAt).toBe(parseTime("2024-03-01T11:58:00Z"));
    expect(out.every((i) => i.reference !== "" && i.description !== "")).toBe(true);
  });

  it("reports a degraded boot image update and a blocked next minor update, and nothing when all is well", () => {
    const t = new Date("2024-03-01T11:00:00Z");
    const policy = BootImagePolicyState.fromPartial({ name: "cluster", conditions: [{ type: "BootImageUpdateDegraded", status: "True", reason: "MachineSetError", message: "1 machineset failed", lastTransitionTime: t }] });
    const co = ClusterOperatorState.fromPartial({ name: "lockstep", conditions: [{ type: "Upgradeable", status: "False", reason: "PoolsBehind", message: "pool worker is on 4.15", lastTransitionTime: t }] });
    const out = lockstepInsights({ holds: new Map(), record: () => undefined, bootImagePolicy: policy, lockstepOperator: co });
    expect(out.map((i) => [i.summary, i.level])).toEqual([
      ["Boot images are not up to date (MachineSetError)", "Warning"],
      ["The next minor update is blocked (PoolsBehind)", "Info"],
    ]);
    const fine = lockstepInsights({
      holds: new Map(),
      record: () => undefined,
      bootImagePolicy: BootImagePolicyState.fromPartial({ name: "cluster", conditions: [{ type: "BootImageUpdateDegraded", status: "False" }] }),
      lockstepOperator: ClusterOperatorState.fromPartial({ name: "lockstep", conditions: [{ type: "Upgradeable", status: "True" }] }),
    });
    expect(fine).toEqual([]);
  });
});
