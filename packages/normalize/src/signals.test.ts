// The disruptors' objects in their upstream shapes (see signals.ts for where each comes from).
import { encode, NodeSignalState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { MalformedObjectError } from "./common.js";
import { normalizeNode } from "./node.js";
import {
  kuredNormalizer,
  machineConfigSignal,
  normalizeFenceAgentsRemediation,
  normalizeMachineSignal,
  normalizeNodeMaintenance,
  normalizeSelfNodeRemediation,
} from "./signals.js";

const T0 = "2026-11-25T10:00:00Z";

const nodeMaintenance = {
  apiVersion: "nodemaintenance.medik8s.io/v1beta1",
  kind: "NodeMaintenance",
  metadata: { name: "nm-worker-1", uid: "u-nm", creationTimestamp: T0, finalizers: ["foregroundDeleteNodeMaintenance"] },
  spec: { nodeName: "worker-1", reason: "replace the NIC", evictionTimeout: "30s" },
  status: { phase: "Running", drainProgress: 40, totalpods: 10, evictionPods: 6, pendingPods: ["app-1"], lastUpdate: T0 },
};

const snr = (name: string, annotations?: Record<string, string>) => ({
  apiVersion: "self-node-remediation.medik8s.io/v1alpha1",
  kind: "SelfNodeRemediation",
  metadata: {
    name,
    namespace: "openshift-workload-availability",
    uid: "u-snr",
    creationTimestamp: T0,
    annotations,
    ownerReferences: [{ apiVersion: "remediation.medik8s.io/v1alpha1", kind: "NodeHealthCheck", name: "nhc-workers", uid: "u-nhc" }],
  },
  spec: { remediationStrategy: "Automatic" },
  status: { phase: "Fencing-Started", conditions: [{ type: "Processing", status: "True", reason: "RemediationStarted", lastTransitionTime: T0, message: "" }] },
});

const far = {
  apiVersion: "fence-agents-remediation.medik8s.io/v1alpha1",
  kind: "FenceAgentsRemediation",
  metadata: { name: "worker-3", namespace: "openshift-workload-availability", uid: "u-far", creationTimestamp: T0, finalizers: ["fence-agents-remediation.medik8s.io/far-finalizer"] },
  spec: { agent: "fence_ipmilan", sharedparameters: { "--username": "admin" }, nodeparameters: { "--ipport": { "worker-3": "6233" } } },
};

const kuredDs = (value: string | undefined, annotation = "weave.works/kured-node-lock") => ({
  apiVersion: "apps/v1",
  kind: "DaemonSet",
  metadata: { name: "kured", namespace: "kube-system", uid: "u-ds", annotations: value === undefined ? {} : { [annotation]: value } },
  spec: { selector: { matchLabels: { name: "kured" } } },
});

const machine = (extra: { deletionTimestamp?: string; annotations?: Record<string, string>; node?: string }) => ({
  apiVersion: "machine.openshift.io/v1beta1",
  kind: "Machine",
  metadata: {
    name: "ci-abc-worker-a-x7k2p",
    namespace: "openshift-machine-api",
    uid: "u-m",
    labels: { "machine.openshift.io/cluster-api-machineset": "ci-abc-worker-a" },
    annotations: extra.annotations,
    deletionTimestamp: extra.deletionTimestamp,
    finalizers: ["machine.machine.openshift.io"],
  },
  spec: { providerSpec: { value: { kind: "AWSMachineProviderConfig" } } },
  status: { phase: "Running", nodeRef: extra.node === undefined ? undefined : { kind: "Node", name: extra.node, uid: "u-n" } },
});

const HOUR_NS = 3600 * 1e9;

describe("node signals", () => {
  it("a NodeMaintenance puts its spec.nodeName in Maintenance, with its reason", () => {
    const s = normalizeNodeMaintenance(nodeMaintenance)!;
    expect(s.source).toEqual({ group: "nodemaintenance.medik8s.io", version: "v1beta1", kind: "NodeMaintenance", namespace: "", name: "nm-worker-1", uid: "u-nm" });
    expect(s.signals).toEqual([{ node: "worker-1", operation: "Maintenance", since: new Date(T0), expires: undefined, description: "NodeMaintenance nm-worker-1: replace the NIC" }]);
    expect(normalizeNodeMaintenance({ ...nodeMaintenance, spec: { reason: "x" } })).toBeUndefined();
    expect(() => normalizeNodeMaintenance({ spec: { nodeName: "w" } })).toThrow(MalformedObjectError);
  });

  it.each([
    ["named after the node", snr("worker-2"), "worker-2"],
    ["named otherwise, with the medik8s node-name annotation", snr("worker-2-a8f3", { "remediation.medik8s.io/node-name": "worker-2" }), "worker-2"],
  ])("a SelfNodeRemediation %s fences that node", (_what, obj, node) => {
    const s = normalizeSelfNodeRemediation(obj)!;
    expect(s.source).toMatchObject({ group: "self-node-remediation.medik8s.io", version: "v1alpha1", kind: "SelfNodeRemediation", namespace: "openshift-workload-availability" });
    expect(s.signals).toEqual([expect.objectContaining({ node, operation: "Fence", since: new Date(T0) })]);
  });

  it("a FenceAgentsRemediation fences the node it is named after", () => {
    expect(normalizeFenceAgentsRemediation(far)!.signals).toEqual([
      { node: "worker-3", operation: "Fence", since: new Date(T0), expires: undefined, description: "FenceAgentsRemediation openshift-workload-availability/worker-3 remediates worker-3" },
    ]);
  });

  describe("kured's DaemonSet lock", () => {
    const kured = kuredNormalizer("weave.works/kured-node-lock");

    it("a single lock (concurrency 1) reboots its nodeID until created + TTL", () => {
      const value = JSON.stringify({ nodeID: "worker-4", metadata: { unschedulable: false }, created: T0, TTL: HOUR_NS });
      const s = kured(kuredDs(value))!;
      expect(s.source).toMatchObject({ group: "apps", version: "v1", kind: "DaemonSet", namespace: "kube-system", name: "kured" });
      expect(s.signals).toEqual([expect.objectContaining({ node: "worker-4", operation: "Reboot", since: new Date(T0), expires: new Date("2026-11-25T11:00:00Z") })]);
    });

    it("a lock with TTL 0 does not expire", () => {
      const s = kured(kuredDs(JSON.stringify({ nodeID: "worker-4", metadata: { unschedulable: true }, created: T0, TTL: 0 })))!;
      expect(s.signals[0]!.expires).toBeUndefined();
    });

    it("a multi-owner lock (concurrency > 1) reboots every holder", () => {
      const value = JSON.stringify({
        maxOwners: 2,
        locks: [
          { nodeID: "worker-5", metadata: { unschedulable: false }, created: T0, TTL: 0 },
          { nodeID: "worker-6", metadata: { unschedulable: false }, created: "2026-11-25T10:05:00Z", TTL: 30 * 60 * 1e9 },
        ],
      });
      expect(kured(kuredDs(value))!.signals.map((s) => [s.node, s.expires?.toISOString()])).toEqual([
        ["worker-5", undefined],
        ["worker-6", "2026-11-25T10:35:00.000Z"],
      ]);
    });

    it("no annotation, or a multi lock with no holder, signals nothing", () => {
      expect(kured(kuredDs(undefined))).toBeUndefined();
      expect(kured(kuredDs(JSON.stringify({ maxOwners: 2, locks: [] })))).toBeUndefined();
      expect(kured(kuredDs(JSON.stringify({ maxOwners: 2, locks: null })))).toBeUndefined();
    });

    it("reads the configured annotation only", () => {
      const value = JSON.stringify({ nodeID: "worker-4", created: T0, TTL: 0 });
      expect(kuredNormalizer("example.com/reboot-lock")(kuredDs(value, "example.com/reboot-lock"))!.signals).toHaveLength(1);
      expect(kured(kuredDs(value, "example.com/reboot-lock"))).toBeUndefined();
    });

    it.each([
      ["not JSON", "{nodeID", /not JSON/],
      ["no nodeID", JSON.stringify({ created: T0, TTL: 0 }), /nodeID is missing/],
      ["a negative TTL", JSON.stringify({ nodeID: "w", created: T0, TTL: -1 }), /TTL -1/],
      ["locks not a list", JSON.stringify({ maxOwners: 2, locks: {} }), /locks is not a list/],
      ["a bad lock in the list", JSON.stringify({ maxOwners: 2, locks: [{ nodeID: "" }] }), /locks\[0\]\.nodeID/],
    ])("refuses a lock value with %s (clearly, as a malformed object)", (_what, value, message) => {
      expect(() => kured(kuredDs(value))).toThrow(message);
    });
  });

  describe("Machines", () => {
    it("a deleting Machine deprovisions its node since its deletionTimestamp", () => {
      const s = normalizeMachineSignal(machine({ deletionTimestamp: T0, node: "worker-7" }))!;
      expect(s.source).toMatchObject({ group: "machine.openshift.io", version: "v1beta1", kind: "Machine", namespace: "openshift-machine-api", name: "ci-abc-worker-a-x7k2p" });
      expect(s.signals).toEqual([{ node: "worker-7", operation: "Deprovision", since: new Date(T0), expires: undefined, description: "Machine openshift-machine-api/ci-abc-worker-a-x7k2p is being deleted" }]);
    });

    it("so does a Machine marked with the delete-machine annotation", () => {
      const s = normalizeMachineSignal(machine({ annotations: { "machine.openshift.io/delete-machine": "true" }, node: "worker-7" }))!;
      expect(s.signals[0]).toMatchObject({ node: "worker-7", operation: "Deprovision", since: undefined });
      expect(s.signals[0]!.description).toContain("machine.openshift.io/delete-machine");
    });

    it("a running Machine, or one without a node, signals nothing", () => {
      expect(normalizeMachineSignal(machine({ node: "worker-7" }))).toBeUndefined();
      expect(normalizeMachineSignal(machine({ deletionTimestamp: T0 }))).toBeUndefined();
    });
  });

  describe("the MCO's node state", () => {
    const node = (state: string, current: string, desired: string | undefined) =>
      normalizeNode({
        metadata: {
          name: "worker-8",
          uid: "u-8",
          annotations: {
            "machineconfiguration.openshift.io/state": state,
            "machineconfiguration.openshift.io/currentConfig": current,
            ...(desired === undefined ? {} : { "machineconfiguration.openshift.io/desiredConfig": desired }),
          },
        },
      });

    it.each([
      ["Working towards another config", "Working", "rendered-worker-a", "rendered-worker-b", true],
      ["Working on the same config", "Working", "rendered-worker-a", "rendered-worker-a", false],
      ["Done", "Done", "rendered-worker-a", "rendered-worker-b", false],
      ["Degraded", "Degraded", "rendered-worker-a", "rendered-worker-b", false],
      ["Working without a desiredConfig", "Working", "rendered-worker-a", undefined, false],
    ])("%s: update signalled = %s", (_what, state, current, desired, updating) => {
      const s = machineConfigSignal(node(state, current, desired));
      if (!updating) return expect(s).toBeUndefined();
      expect(s!.source).toEqual({ group: "", version: "v1", kind: "Node", namespace: "", name: "worker-8", uid: "u-8" });
      expect(s!.signals).toEqual([expect.objectContaining({ node: "worker-8", operation: "Update", description: "machine-config-daemon is applying rendered-worker-b to worker-8 (current rendered-worker-a)" })]);
    });
  });

  it("every snapshot fits the wire type", () => {
    const s = normalizeNodeMaintenance(nodeMaintenance)!;
    expect(NodeSignalState.decode(encode(NodeSignalState, s))).toEqual(s);
  });
});
