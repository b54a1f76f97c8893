// The JSON custom-objects client against kube-sim's OpenShift CRDs: the calls the services make,
// including conditional status writes that must fail with 409 on a stale resourceVersion.
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeAccessForUrl } from "./access.js";
import { CustomObjectsApi, makeJsonApiClient } from "./custom-objects.js";
import { isConflict, isNotFound } from "./errors.js";
import { KubeHttp } from "./http.js";

let sim: KubeSim;
beforeAll(async () => {
  sim = await startKubeSim({ crds: "openshift" });
});
afterAll(async () => sim.stop());

const co = { group: "config.openshift.io", version: "v1", plural: "clusteroperators" };
const ms = { group: "machine.openshift.io", version: "v1beta1", plural: "machinesets" };

describe("makeJsonApiClient(CustomObjectsApi)", () => {
  it("creates, reads, replaces status conditionally, and merge-patches cluster objects", async () => {
    const api = makeJsonApiClient(kubeAccessForUrl(sim.url), CustomObjectsApi);
    expect(isNotFound(await api.getClusterCustomObject({ ...co, name: "lockstep" }).catch((e: unknown) => e))).toBe(true);
    const created = await api.createClusterCustomObject({ ...co, body: { apiVersion: "config.openshift.io/v1", kind: "ClusterOperator", metadata: { name: "lockstep" } } });
    const rv = created.metadata.resourceVersion;
    const written = await api.replaceClusterCustomObjectStatus({ ...co, name: "lockstep", body: { ...created, status: { versions: [{ name: "operator", version: "1" }] } } });
    expect(written.status.versions).toEqual([{ name: "operator", version: "1" }]);
    const stale = await api.replaceClusterCustomObjectStatus({ ...co, name: "lockstep", body: { ...created, metadata: { ...created.metadata, resourceVersion: rv }, status: {} } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    await api.patchClusterCustomObject({ ...co, name: "lockstep", body: { metadata: { annotations: { a: "1" } } } });
    await api.patchClusterCustomObjectStatus({ ...co, name: "lockstep", body: { status: { extension: { x: 1 } } } });
    const read = await api.getClusterCustomObject({ ...co, name: "lockstep" });
    expect([read.metadata.annotations, read.status.versions, read.status.extension]).toEqual([{ a: "1" }, [{ name: "operator", version: "1" }], { x: 1 }]);
  });

  it("merge-patches a namespaced object, conditional on the resourceVersion in the patch", async () => {
    await new KubeHttp(kubeAccessForUrl(sim.url)).request("POST", "/api/v1/namespaces", { body: { metadata: { name: "openshift-machine-api" } } });
    const api = makeJsonApiClient(kubeAccessForUrl(sim.url), CustomObjectsApi);
    const created = await api.createNamespacedCustomObject({ ...ms, namespace: "openshift-machine-api", body: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", metadata: { name: "w", namespace: "openshift-machine-api" }, spec: { replicas: 1 } } });
    const patched = await api.patchNamespacedCustomObject({ ...ms, namespace: "openshift-machine-api", name: "w", body: { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { replicas: 2 } } });
    expect(patched.spec.replicas).toBe(2);
    const stale = await api.patchNamespacedCustomObject({ ...ms, namespace: "openshift-machine-api", name: "w", body: { metadata: { resourceVersion: created.metadata.resourceVersion }, spec: { replicas: 3 } } }).catch((e: unknown) => e);
    expect(isConflict(stale)).toBe(true);
    expect((await api.getNamespacedCustomObject({ ...ms, namespace: "openshift-machine-api", name: "w" })).spec.replicas).toBe(2);
  });

  it("refuses other API classes", () => {
    expect(() => makeJsonApiClient(kubeAccessForUrl(sim.url), "CoreV1Api" as never)).toThrow(/not supported/);
  });
});
