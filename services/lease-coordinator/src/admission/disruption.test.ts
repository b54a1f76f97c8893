import { describe, expect, it } from "vitest";
import { classify, DEFAULT_CLASSIFY, DELETE_MACHINE, DESIRED_CONFIG } from "./disruption.js";
import type { AdmissionRequest } from "./review.js";

const base: AdmissionRequest = {
  uid: "u1", group: "", resource: "nodes", subResource: "", name: "w1", namespace: "", operation: "UPDATE",
  userInfo: { username: "x", uid: "", groups: [] }, object: undefined, oldObject: undefined, dryRun: false,
};
const node = (annotations: Record<string, string> = {}, unschedulable?: boolean) => ({ metadata: { name: "w1", annotations }, spec: unschedulable === undefined ? {} : { unschedulable } });
const machine = (annotations: Record<string, string> = {}, nodeName = "w1") => ({ metadata: { name: "m1", annotations }, status: { nodeRef: { kind: "Node", name: nodeName } } });

describe("classify", () => {
  it.each<[string, Partial<AdmissionRequest>, object]>([
    ["the MCO starting an update", { object: node({ [DESIRED_CONFIG]: "rendered-worker-b" }), oldObject: node({ [DESIRED_CONFIG]: "rendered-worker-a" }) }, { kind: "node", node: "w1", operation: "Update" }],
    ["a first desiredConfig", { object: node({ [DESIRED_CONFIG]: "rendered-worker-a" }), oldObject: node() }, { kind: "node", operation: "Update" }],
    ["a cordon", { object: node({}, true), oldObject: node({}, false) }, { kind: "node", node: "w1", operation: "Drain", what: "cordon w1" }],
    ["a node deletion", { operation: "DELETE", oldObject: node() }, { kind: "node", node: "w1", operation: "Deprovision" }],
    ["an eviction", { resource: "pods", subResource: "eviction", operation: "CREATE", namespace: "apps", name: "web-1" }, { kind: "pod", namespace: "apps", pod: "web-1", operation: "Drain" }],
    ["a machine deletion", { group: "machine.openshift.io", resource: "machines", operation: "DELETE", namespace: "openshift-machine-api", name: "m1", oldObject: machine() }, { kind: "node", node: "w1", operation: "Deprovision" }],
    ["a machine marked for deletion", { group: "machine.openshift.io", resource: "machines", namespace: "openshift-machine-api", name: "m1", object: machine({ [DELETE_MACHINE]: "true" }), oldObject: machine() }, { kind: "node", node: "w1", operation: "Deprovision" }],
    ["a NoExecute taint", { object: { spec: { taints: [{ key: "example.com/drain", effect: "NoExecute" }] } }, oldObject: node() }, { kind: "node", node: "w1", operation: "Drain", what: "taint w1 example.com/drain:NoExecute" }],
    ["an out-of-service taint", { object: { spec: { taints: [{ key: "node.kubernetes.io/out-of-service", value: "nodeshutdown", effect: "NoExecute" }] } }, oldObject: node() }, { kind: "node", operation: "Fence" }],
    ["a pod deletion on a node", { resource: "pods", operation: "DELETE", namespace: "apps", name: "web-1", oldObject: { spec: { nodeName: "w1" } } }, { kind: "node", node: "w1", operation: "Drain", what: "delete pod apps/web-1", podDelete: true }],
    ["a SelfNodeRemediation created", { group: "self-node-remediation.medik8s.io", resource: "selfnoderemediations", operation: "CREATE", namespace: "openshift-workload-availability", name: "w1" }, { kind: "node", node: "w1", operation: "Fence", onlyWhileHeldFor: ["Maintenance"] }],
    ["a FenceAgentsRemediation created", { group: "fence-agents-remediation.medik8s.io", resource: "fenceagentsremediations", operation: "CREATE", namespace: "openshift-workload-availability", name: "w2" }, { kind: "node", node: "w2", operation: "Fence" }],
    [
      "a bare-metal host powered on",
      { group: "metal3.io", resource: "baremetalhosts", namespace: "openshift-machine-api", name: "h1", object: { spec: { online: true, consumerRef: { kind: "Machine", name: "m1" } } }, oldObject: { spec: { online: false } } },
      { kind: "machine", namespace: "openshift-machine-api", machine: "m1", operation: "PowerOff", what: "power on bare-metal host openshift-machine-api/h1", onlyWhileHeldFor: ["PowerOff", "Maintenance"] },
    ],
    [
      "a bare-metal host powered off",
      { group: "metal3.io", resource: "baremetalhosts", namespace: "openshift-machine-api", name: "h1", object: { spec: { online: false, consumerRef: { kind: "Machine", name: "m1", namespace: "openshift-machine-api" } } }, oldObject: { spec: { online: true } } },
      { kind: "machine", namespace: "openshift-machine-api", machine: "m1", operation: "PowerOff" },
    ],
  ])("%s", (_name, fields, want) => {
    expect(classify({ ...base, ...fields })).toMatchObject(want);
  });

  it.each<[string, Partial<AdmissionRequest>]>([
    ["an unchanged desiredConfig (another annotation moved)", { object: node({ [DESIRED_CONFIG]: "a", other: "2" }), oldObject: node({ [DESIRED_CONFIG]: "a", other: "1" }) }],
    ["an uncordon", { object: node({}, false), oldObject: node({}, true) }],
    ["a node status write", { subResource: "status", object: node({ [DESIRED_CONFIG]: "b" }), oldObject: node() }],
    ["a node creation", { operation: "CREATE", object: node() }],
    ["a deletion of a pod bound to no node", { resource: "pods", operation: "DELETE", oldObject: { spec: {} } }],
    ["a deletion of a terminating pod", { resource: "pods", operation: "DELETE", oldObject: { metadata: { deletionTimestamp: "2026-11-27T12:00:00Z" }, spec: { nodeName: "w1" } } }],
    ["an exempt NoExecute taint (the lifecycle controller's)", { object: { spec: { taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }] } }, oldObject: node() }],
    ["a remediation updated", { group: "self-node-remediation.medik8s.io", resource: "selfnoderemediations", operation: "UPDATE", name: "w1" }],
    ["a machine without a node", { group: "machine.openshift.io", resource: "machines", operation: "DELETE", oldObject: { metadata: {} } }],
    ["a host powered on with no consumer", { group: "metal3.io", resource: "baremetalhosts", object: { spec: { online: true } }, oldObject: { spec: { online: false } } }],
    ["a host already on", { group: "metal3.io", resource: "baremetalhosts", object: { spec: { online: true, consumerRef: { kind: "Machine", name: "m1" } } }, oldObject: { spec: { online: true } } }],
    ["a host already off", { group: "metal3.io", resource: "baremetalhosts", object: { spec: { online: false, consumerRef: { kind: "Machine", name: "m1" } } }, oldObject: { spec: { online: false } } }],
    ["a host with no consumer", { group: "metal3.io", resource: "baremetalhosts", object: { spec: { online: false } }, oldObject: { spec: { online: true } } }],
    ["a ConfigMap", { resource: "configmaps" }],
  ])("none for %s", (_name, fields) => {
    expect(classify({ ...base, ...fields })).toEqual({ kind: "none" });
  });

  it("takes its settings: exempt taint keys, pod deletions ignored", () => {
    const tainted = { object: { spec: { taints: [{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }] } }, oldObject: node() };
    expect(classify({ ...base, ...tainted }, { ...DEFAULT_CLASSIFY, taintExemptKeys: [] })).toMatchObject({ kind: "node", operation: "Drain" });
    const podDelete = { resource: "pods", operation: "DELETE" as const, oldObject: { spec: { nodeName: "w1" } } };
    expect(classify({ ...base, ...podDelete }, { ...DEFAULT_CLASSIFY, podDelete: "Ignore" })).toEqual({ kind: "none" });
  });
});
