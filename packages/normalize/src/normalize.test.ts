import { describe, expect, it } from "vitest";
import { encode, NodeState, PoolState } from "@lockstep/contracts";
import { normalizeClusterVersion, normalizeInfrastructure } from "./cluster.js";
import { MalformedObjectError } from "./common.js";
import { normalizeMachineSet } from "./machine-set.js";
import { normalizeNode } from "./node.js";
import { normalizeBootImagePolicy, normalizeDisruptionBudget, normalizeNodeDisruptionPolicy } from "./policy.js";
import { normalizePool } from "./pool.js";

const node = (heartbeat: string, extra: Record<string, unknown> = {}) => ({
  metadata: {
    name: "n1",
    uid: "u1",
    resourceVersion: heartbeat, // changes with every heartbeat, like the real thing
    labels: { "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": "", "kubernetes.io/arch": "amd64" },
    annotations: {
      "machineconfiguration.openshift.io/currentConfig": "rendered-worker-a",
      "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-b",
      "machineconfiguration.openshift.io/state": "Working",
      "machineconfiguration.openshift.io/desiredDrain": "drain-rendered-worker-b",
      "machineconfiguration.openshift.io/post-config-action": "Rebooting",
      "unrelated/annotation": heartbeat,
    },
  },
  spec: { unschedulable: true },
  status: {
    conditions: [
      { type: "Ready", status: "False", reason: "KubeletNotReady", message: "rebooting", lastHeartbeatTime: heartbeat, lastTransitionTime: "2026-01-01T00:00:00Z" },
      { type: "DiskPressure", status: "False", lastHeartbeatTime: heartbeat, lastTransitionTime: "2026-01-01T00:00:00Z" },
      { type: "SomethingElse", status: "True", lastHeartbeatTime: heartbeat },
    ],
    nodeInfo: { architecture: "amd64", kubeletVersion: "v1.29.1" },
  },
  ...extra,
});

describe("normalizeNode", () => {
  it("keeps roles, MCO annotations, unschedulable and conditions", () => {
    const n = normalizeNode(node("2026-01-01T00:00:10Z"));
    expect(n.roles).toEqual(["infra", "worker"]);
    expect(n.mco).toMatchObject({ currentConfig: "rendered-worker-a", desiredConfig: "rendered-worker-b", desiredConfigPresent: true, state: "Working", desiredDrain: "drain-rendered-worker-b", postConfigAction: "Rebooting", desiredImagePresent: false });
    expect(n.unschedulable).toBe(true);
    expect(n.conditions.map((c) => c.type)).toEqual(["DiskPressure", "Ready"]);
    expect(n.conditions[1]).toMatchObject({ status: "False", message: "rebooting", lastTransitionTime: new Date("2026-01-01T00:00:00Z") });
  });

  it("encodes identically across heartbeats (noise never reaches the bus)", () => {
    const a = encode(NodeState, normalizeNode(node("2026-01-01T00:00:10Z")));
    const b = encode(NodeState, normalizeNode(node("2026-01-01T00:00:50Z")));
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(true);
  });

  it("rejects an object without a name", () => {
    expect(() => normalizeNode({ metadata: {} })).toThrow(MalformedObjectError);
  });

  it("tolerates missing status and odd field types", () => {
    const n = normalizeNode({ metadata: { name: "x", annotations: { "machineconfiguration.openshift.io/state": 5 } }, status: { conditions: "nope" } });
    expect(n.mco?.state).toBe("5");
    expect(n.conditions).toEqual([]);
  });
});

describe("normalizePool", () => {
  it("reads spec, status counters, layering and an empty selector", () => {
    const p = normalizePool({
      metadata: { name: "worker", labels: { "machineconfiguration.openshift.io/layering-enabled": "" }, generation: 4 },
      spec: { paused: true, maxUnavailable: 2, nodeSelector: {}, configuration: { name: "rendered-worker-b" } },
      status: { configuration: { name: "rendered-worker-a" }, machineCount: 3, updatedMachineCount: 1, conditions: [{ type: "Updating", status: "True" }] },
    });
    expect(p).toMatchObject({ paused: true, maxUnavailable: "2", nodeSelectorPresent: true, targetConfig: "rendered-worker-b", currentConfig: "rendered-worker-a", layered: true, generation: "4" });
    expect(p.counters).toMatchObject({ machineCount: 3, updatedMachineCount: 1 });
    expect(PoolState.decode(encode(PoolState, p))).toEqual(p);
  });
});

describe("cluster objects", () => {
  it("normalises ClusterVersion history newest first and the desired update", () => {
    const cv = normalizeClusterVersion({
      metadata: { name: "version" },
      spec: { desiredUpdate: { version: "4.16.3", force: true }, channel: "stable-4.16" },
      status: { desired: { version: "4.16.3" }, history: [{ state: "Partial", version: "4.16.3", startedTime: "2026-01-02T00:00:00Z" }, { state: "Completed", version: "4.15.9" }] },
    });
    expect(cv.desiredUpdate).toEqual({ version: "4.16.3", image: "", force: true });
    expect(cv.history.map((h) => h.state)).toEqual(["Partial", "Completed"]);
  });

  it("reads the platform and region of the Infrastructure", () => {
    expect(normalizeInfrastructure({ metadata: { name: "cluster" }, status: { platformStatus: { type: "AWS", aws: { region: "us-east-1" } }, controlPlaneTopology: "HighlyAvailable" } })).toMatchObject({ platform: "AWS", region: "us-east-1", controlPlaneTopology: "HighlyAvailable" });
  });

  it("carries a MachineSet providerSpec as JSON text with its kind", () => {
    const ms = normalizeMachineSet({ metadata: { name: "w-a", namespace: "openshift-machine-api", resourceVersion: "9", ownerReferences: [{ apiVersion: "x/v1", kind: "K", name: "o", uid: "u" }] }, spec: { replicas: 2, template: { spec: { providerSpec: { value: { kind: "AWSMachineProviderConfig", ami: { id: "ami-1" } } } } } } });
    expect(JSON.parse(ms.providerSpecJson)).toEqual({ kind: "AWSMachineProviderConfig", ami: { id: "ami-1" } });
    expect(ms).toMatchObject({ providerSpecKind: "AWSMachineProviderConfig", replicas: 2, resourceVersion: "9" });
    expect(ms.ownerReferences[0]).toMatchObject({ group: "x", version: "v1", kind: "K", name: "o" });
  });
});

describe("lockstep.io policy objects", () => {
  it("reads NodeDisruptionPolicy rules and the default label", () => {
    const p = normalizeNodeDisruptionPolicy({ metadata: { name: "d", labels: { "lockstep.io/default": "true" } }, spec: { files: [{ path: "/etc/a", actions: [{ type: "Restart", restart: { serviceName: "a.service" } }] }], sshkey: { actions: [{ type: "None" }] } } });
    expect(p.files[0]).toEqual({ path: "/etc/a", actions: [{ type: "Restart", serviceName: "a.service" }] });
    expect(p).toMatchObject({ default: true, sshkeyPresent: true });
  });

  it("reads BootImagePolicy spec and status with upstream field names", () => {
    const b = normalizeBootImagePolicy({
      metadata: { name: "cluster" },
      spec: {
        managedBootImages: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "Partial", partial: { machineResourceSelector: { matchLabels: { a: "b" } } } } }] },
        bootImageSkewEnforcement: { mode: "Manual", manual: { mode: "OCPVersion", ocpVersion: "4.14.0" } },
      },
      status: { managedBootImagesStatus: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }] }, bootImageSkewEnforcementStatus: { mode: "Automatic", automatic: { ocpVersion: "4.15.2" } } },
    });
    expect(b).toMatchObject({ machineSetsMode: "Partial", skewMode: "Manual", skewManualMode: "OCPVersion", skewManualOcpVersion: "4.14.0", machineSetsStatusMode: "All", skewStatus: { mode: "Automatic", ocpVersion: "4.15.2" } });
    expect(b.machineSetsSelector?.matchLabels).toEqual({ a: "b" });
  });

  it("reads DisruptionBudget schedules", () => {
    const d = normalizeDisruptionBudget({ metadata: { name: "b" }, spec: { pool: "worker", maxDisrupted: "25%", schedules: [{ cron: "0 2 * * *", duration: "2h", timeZone: "Europe/Paris" }], operations: ["Update"] } });
    expect(d).toMatchObject({ pool: "worker", maxDisrupted: "25%", operations: ["Update"] });
    expect(d.schedules[0]).toMatchObject({ cron: "0 2 * * *", duration: "2h", timeZone: "Europe/Paris", maxDisrupted: "" });
  });
});
