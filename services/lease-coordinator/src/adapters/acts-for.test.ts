// The webhook treats a disruptor as the holder of the lease adapted from its own object, so its
// own cordon, drain or deletion on that node is admitted; everyone else's is refused as before.
import { OperationType, type NodeLease } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { DEFAULT_ACTS_FOR, requesterOf, verdict } from "../admission/verdict.js";
import { DEFAULT_POLICY } from "@lockstep/lease-policy";
import { adapterHolderPrefix } from "./plan.js";

const NOW = Date.parse("2026-11-25T12:00:00Z");
const hold = (holder: string, operation: OperationType) => ({
  lease: {
    node: "w1", namespace: "lockstep-leases", leaseName: "w1", holder, operation, reason: "", acquireTime: new Date(NOW), renewTime: new Date(NOW),
    durationSeconds: 120, transitions: 0, foreign: false, resourceVersion: "1", preemptedBy: "", preemptTime: undefined, preemptionRequestedBy: "",
  } satisfies NodeLease,
  expiresInSeconds: 100,
  adminHold: false,
});
const as = (username: string) => requesterOf({ username, uid: "", groups: [] }, DEFAULT_ACTS_FOR, []);
const cordon = { node: "w1", operation: "Drain" as const, what: "cordon w1" };

describe("acts-for of adapted leases", () => {
  it.each([
    ["system:serviceaccount:openshift-workload-availability:node-maintenance-operator-controller-manager", "adapter:nodemaintenance/nm-1", OperationType.OPERATION_TYPE_MAINTENANCE],
    ["system:serviceaccount:node-maintenance-operator-system:node-maintenance-operator-controller-manager", "adapter:nodemaintenance/nm-1", OperationType.OPERATION_TYPE_MAINTENANCE],
    ["system:serviceaccount:openshift-workload-availability:self-node-remediation-controller-manager", "adapter:selfnoderemediation/openshift-workload-availability/w1", OperationType.OPERATION_TYPE_FENCE],
    ["system:serviceaccount:openshift-workload-availability:fence-agents-remediation-controller-manager", "adapter:fenceagentsremediation/openshift-workload-availability/w1", OperationType.OPERATION_TYPE_FENCE],
    ["system:serviceaccount:kube-system:kured", "adapter:kured/w1", OperationType.OPERATION_TYPE_REBOOT],
    ["system:serviceaccount:openshift-machine-api:machine-api-controllers", "adapter:machine/openshift-machine-api/m-1", OperationType.OPERATION_TYPE_DEPROVISION],
    ["system:serviceaccount:openshift-machine-config-operator:machine-config-daemon", "adapter:machineconfig/w1", OperationType.OPERATION_TYPE_UPDATE],
  ])("%s may act on the node it holds as %s", (user, holder, op) => {
    expect(verdict(cordon, hold(holder, op), as(user), NOW, DEFAULT_POLICY)).toEqual({ allowed: true });
    expect(verdict(cordon, hold(holder, op), as("system:serviceaccount:default:someone"), NOW, DEFAULT_POLICY)).toMatchObject({ allowed: false });
  });

  it("one disruptor does not act for another's adapted lease", () => {
    const kured = as("system:serviceaccount:kube-system:kured");
    expect(verdict(cordon, hold("adapter:nodemaintenance/nm-1", OperationType.OPERATION_TYPE_MAINTENANCE), kured, NOW, DEFAULT_POLICY)).toMatchObject({ allowed: false, message: expect.stringContaining("[MaintenanceFlagged]") });
  });

  it("names every adapter's holder prefix", () => {
    const holders = new Set(DEFAULT_ACTS_FOR.flatMap((a) => a.holders));
    for (const kind of ["NodeMaintenance", "SelfNodeRemediation", "FenceAgentsRemediation", "DaemonSet", "Machine", "Node"] as const) expect(holders).toContain(adapterHolderPrefix(kind));
  });
});
