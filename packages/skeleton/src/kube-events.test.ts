// Which Kubernetes Event each Lockstep fact becomes (the README's Event table), and that repeats of
// one fact give identical notes (so the recorder folds them).
import { Events, OperationType } from "@lockstep/contracts";
import { eventKey } from "@lockstep/kube";
import { describe, expect, it } from "vitest";
import { kubeEventsFor, webhookRefusal } from "./kube-events.js";

const lease = (node: string, holder: string, operation = OperationType.OPERATION_TYPE_MAINTENANCE) => ({ node, holder, operation, reason: "kernel patch" });

describe("kubeEventsFor", () => {
  it("lease facts go on the Node, naming holder and operation", () => {
    const [granted] = kubeEventsFor(Events.leaseGranted, { lease: lease("worker-1", "admin") });
    expect(granted).toEqual({ regarding: { apiVersion: "v1", kind: "Node", name: "worker-1", uid: "worker-1" }, type: "Normal", reason: "LeaseGranted", action: "Grant", note: "lease for MAINTENANCE granted to admin: kernel patch" });
    expect(kubeEventsFor(Events.leaseReleased, { lease: lease("worker-1", "admin") })[0]).toMatchObject({ reason: "LeaseReleased", type: "Normal" });
    expect(kubeEventsFor(Events.leaseExpired, { lease: lease("worker-1", "admin") })[0]).toMatchObject({ reason: "LeaseExpired", type: "Warning" });
    expect(kubeEventsFor(Events.leasePreempted, { previous: lease("worker-1", "admin"), lease: lease("worker-1", "fencing"), reason: "forced" })[0]!.note).toContain("admin");
    expect(kubeEventsFor(Events.leasePreemptionWithdrawn, { lease: lease("worker-1", "admin"), reason: "cancelled by fencing" })[0]).toMatchObject({ reason: "LeasePreemptionWithdrawn", regarding: { kind: "Node", name: "worker-1" } });
  });

  it("a denial by an exhausted budget also goes on the DisruptionBudget, and repeats fold", () => {
    const denied = { node: "worker-2", requester: "mco", operation: OperationType.OPERATION_TYPE_UPDATE, reason: "budget workers: 1 of 3 may be disrupted; 1 disrupted (worker-1)", current: undefined };
    const notes = kubeEventsFor(Events.leaseDenied, denied);
    expect(notes.map((n) => [n.regarding.kind, n.regarding.name, n.reason])).toEqual([
      ["Node", "worker-2", "LeaseRefused"],
      ["DisruptionBudget", "workers", "BudgetExhausted"],
    ]);
    expect(notes[1]!.regarding.apiVersion).toBe("lockstep.io/v1alpha1");
    expect(eventKey(kubeEventsFor(Events.leaseDenied, { ...denied, node: "worker-3" })[1]!)).toBe(eventKey(notes[1]!));
  });

  it("upgrade blocked / allowed go on ClusterVersion version; lagging pools on their MachineConfigPool", () => {
    expect(kubeEventsFor(Events.upgradeableChanged, { upgradeable: false, reason: "PoolLagging", message: "pool worker is on 4.15" })[0]).toMatchObject({
      regarding: { apiVersion: "config.openshift.io/v1", kind: "ClusterVersion", name: "version" },
      type: "Warning",
      reason: "UpgradeBlocked",
    });
    expect(kubeEventsFor(Events.upgradeableChanged, { upgradeable: true, reason: "", message: "" })[0]).toMatchObject({ reason: "UpgradeAllowed", type: "Normal" });
    const lag = kubeEventsFor(Events.skewEvaluated, { report: { controlPlaneVersion: "4.16.2", laggingPools: [{ pool: "infra", reason: "PausedPoolLagging", poolVersion: "4.15.9", paused: true }] } });
    expect(lag).toEqual([expect.objectContaining({ regarding: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool", name: "infra" }, reason: "PoolLagging" })]);
    expect(kubeEventsFor(Events.skewEvaluated, { report: { laggingPools: [] } })).toEqual([]);
  });

  it("boot image facts go on the MachineSet in its namespace", () => {
    const ms = { name: "worker-a", namespace: "openshift-machine-api" };
    expect(kubeEventsFor(Events.bootImageUpdated, { machineSet: ms, platform: "aws", previousImage: "ami-1", image: "ami-2" })[0]).toMatchObject({
      regarding: { kind: "MachineSet", name: "worker-a", namespace: "openshift-machine-api" },
      reason: "BootImagePatched",
    });
    expect(kubeEventsFor(Events.bootImageSkipped, { machineSet: ms, reason: "not selected" })[0]!.reason).toBe("BootImageSkipped");
    expect(kubeEventsFor(Events.bootImageUpdateFailed, { machineSet: ms, error: "conflict" })[0]).toMatchObject({ reason: "BootImageUpdateFailed", type: "Warning" });
  });

  it("facts about no single object make no Event", () => {
    expect(kubeEventsFor(Events.insightChanged, { node: "worker-1" })).toEqual([]);
    expect(kubeEventsFor(Events.warningRaised, { warning: { message: "x" } })).toEqual([]);
  });
});

describe("webhookRefusal", () => {
  it("names requester, holder and operation; the same refused update repeated is one series", () => {
    const r = () => webhookRefusal({ node: "worker-1", requester: "system:serviceaccount:openshift-machine-config-operator:machine-config-controller", what: "start an update of worker-1 (a → b)", holder: "admin", operation: OperationType.OPERATION_TYPE_MAINTENANCE });
    expect(r()).toMatchObject({ regarding: { kind: "Node", name: "worker-1" }, type: "Warning", reason: "UpdateRefused" });
    expect(r().note).toContain("admin");
    expect(r().note).toContain("MAINTENANCE");
    expect(eventKey(r())).toBe(eventKey(r()));
  });
});
