import { BootImagePolicyState, BootImagesState, ClusterVersionState, InfrastructureState, MachineSetState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { triggerReason, type Change } from "./triggers.js";

const S = { bootImagesNamespace: "openshift-machine-config-operator", bootImagesName: "coreos-bootimages" };
const msv = (o: Parameters<typeof MachineSetState.fromPartial>[0] = {}) => MachineSetState.fromPartial({ namespace: "openshift-machine-api", name: "w", resourceVersion: "1", providerSpecJson: "{}", ...o });
const cvv = (state: string) => ClusterVersionState.fromPartial({ name: "version", history: [{ state, version: "4.22.1" }] });
const put = (kind: string, name: string, value: unknown, previous?: unknown, namespace?: string): Change => ({ kind, name, namespace, op: "put", value, previous });

describe("triggerReason (mco-behaviors.md §3.5)", () => {
  it.each([
    ["MachineSet added", put("machineSet", "w", msv()), "MAPIMachineSetAdded"],
    ["MachineSet deleted", { kind: "machineSet", name: "w", op: "delete" } as Change, "MAPIMachineSetDeleted"],
    ["providerSpec changed", put("machineSet", "w", msv({ providerSpecJson: '{"a":1}' }), msv()), "MAPIMachineSetUpdated"],
    ["labels changed", put("machineSet", "w", msv({ labels: { a: "b" } }), msv()), "MAPIMachineSetUpdated"],
    ["ownerReferences changed", put("machineSet", "w", msv({ ownerReferences: [{ group: "", version: "", kind: "MachinePool", namespace: "", name: "p", uid: "" }] }), msv()), "MAPIMachineSetUpdated"],
    ["replicas only", put("machineSet", "w", msv({ replicas: 3, resourceVersion: "2" }), msv()), undefined],
    ["ConfigMap updated", put("bootImages", "coreos-bootimages", BootImagesState.fromPartial({ resourceVersion: "2" }), BootImagesState.fromPartial({ resourceVersion: "1" }), S.bootImagesNamespace), "BootImageConfigMapUpdated"],
    ["another ConfigMap", put("bootImages", "other", BootImagesState.fromPartial({}), undefined, S.bootImagesNamespace), undefined],
    ["ClusterVersion becomes Completed", put("clusterVersion", "version", cvv("Completed"), cvv("Partial")), "ClusterVersionStable"],
    ["ClusterVersion stays Completed", put("clusterVersion", "version", cvv("Completed"), cvv("Completed")), undefined],
    ["ClusterVersion goes Partial", put("clusterVersion", "version", cvv("Partial"), cvv("Completed")), undefined],
    ["policy spec changed", put("bootImagePolicy", "cluster", BootImagePolicyState.fromPartial({ machineSetsMode: "None" }), BootImagePolicyState.fromPartial({})), "BootImageUpdateConfigurationUpdated"],
    ["policy skew record changed", put("bootImagePolicy", "cluster", BootImagePolicyState.fromPartial({ skewStatus: { mode: "Automatic", ocpVersion: "4.22.1" } }), BootImagePolicyState.fromPartial({ skewStatus: { mode: "Automatic", ocpVersion: "4.12.3" } })), "BootImageUpdateConfigurationUpdated"],
    ["only conditions changed", put("bootImagePolicy", "cluster", BootImagePolicyState.fromPartial({ conditions: [{ type: "X", status: "True" }] }), BootImagePolicyState.fromPartial({})), undefined],
    ["a policy not named cluster", put("bootImagePolicy", "other", BootImagePolicyState.fromPartial({}), undefined), undefined],
    ["Infrastructure region changed", put("infrastructure", "cluster", InfrastructureState.fromPartial({ platform: "AWS", region: "eu-west-1" }), InfrastructureState.fromPartial({ platform: "AWS", region: "us-east-1" })), "InfrastructureChanged"],
    ["a Node", put("node", "n", {}), undefined],
  ] as const)("%s", (_name, change, want) => {
    expect(triggerReason(change, S)).toBe(want);
  });
});
