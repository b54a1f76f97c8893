// Integration: the disruptors' objects through kube-sim over real HTTP and a real nats-server become
// NodeSignalState keys, and go away with them. medik8s' CRDs are absent at start (as on most
// clusters): the watcher syncs without them and picks them up once they are installed.
import { AppsV1Api, CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from "@kubernetes/client-node";
import type { StateCache } from "@lockstep/bus";
import { nodeSignalKey, type NodeSignalState } from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { medik8sCrdManifests, startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchedState } from "../test-harness.js";

let sim: KubeSim;
let nats: NatsServer;
let kc: KubeConfig;
let cache: StateCache;
const stack = new TestStack();
const merge = () => setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const signal = (kind: string, name: string, namespace = "") => cache.getByKey(nodeSignalKey({ kind, namespace, name }))?.value as NodeSignalState | undefined;

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift" }));
  nats = await stack.nats();
  kc = kubeConfigForUrl(sim.url);
  const core = kc.makeApiClient(CoreV1Api);
  for (const n of ["worker-1", "worker-2", "worker-3"]) await core.createNode({ body: { metadata: { name: n } } });
  await core.createNamespace({ body: { metadata: { name: "kube-system" } } }).catch(() => undefined);
  cache = await startWatchedState(stack, { kc, natsUrl: nats.url, informer: { missingRetryMs: 200 } });
});

afterAll(() => stack.close());

describe("node signals on the state plane", () => {
  it("syncs while medik8s' CRDs are absent, then publishes a NodeMaintenance once they are installed", async () => {
    await waitFor(() => cache.synced, { timeoutMs: 20_000, what: "meta.synced without medik8s CRDs" });
    const custom = kc.makeApiClient(CustomObjectsApi);
    for (const crd of medik8sCrdManifests()) await custom.createClusterCustomObject({ group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions", body: crd });
    await waitFor(
      async () => {
        try {
          await custom.createClusterCustomObject({
            group: "nodemaintenance.medik8s.io",
            version: "v1beta1",
            plural: "nodemaintenances",
            body: { apiVersion: "nodemaintenance.medik8s.io/v1beta1", kind: "NodeMaintenance", metadata: { name: "nm-1" }, spec: { nodeName: "worker-1", reason: "disk" } },
          });
          return true;
        } catch {
          return false; // the new type is served a moment after its CRD
        }
      },
      { what: "NodeMaintenance served" },
    );
    await waitFor(() => signal("NodeMaintenance", "nm-1"), { timeoutMs: 10_000, what: "the NodeMaintenance signal" });
    expect(signal("NodeMaintenance", "nm-1")!.signals).toEqual([expect.objectContaining({ node: "worker-1", operation: "Maintenance", description: "NodeMaintenance nm-1: disk" })]);
    await custom.deleteClusterCustomObject({ group: "nodemaintenance.medik8s.io", version: "v1beta1", plural: "nodemaintenances", name: "nm-1" });
    await waitFor(() => !signal("NodeMaintenance", "nm-1"), { what: "the signal gone with the object" });
  });

  it("publishes a remediation CR under its namespace and kind", async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "medik8s" } } });
    await custom.createNamespacedCustomObject({
      group: "self-node-remediation.medik8s.io",
      version: "v1alpha1",
      namespace: "medik8s",
      plural: "selfnoderemediations",
      body: { apiVersion: "self-node-remediation.medik8s.io/v1alpha1", kind: "SelfNodeRemediation", metadata: { name: "worker-2" }, spec: { remediationStrategy: "Automatic" } },
    });
    await waitFor(() => signal("SelfNodeRemediation", "worker-2", "medik8s"), { what: "the SNR signal" });
    expect(signal("SelfNodeRemediation", "worker-2", "medik8s")!.signals[0]).toMatchObject({ node: "worker-2", operation: "Fence" });
  });

  it("follows kured's lock annotation on its DaemonSet", async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDaemonSet({ namespace: "kube-system", body: { metadata: { name: "kured" }, spec: { selector: { matchLabels: { name: "kured" } }, template: { metadata: { labels: { name: "kured" } } } } } });
    // Another DaemonSet with the same annotation is not kured's.
    await apps.createNamespacedDaemonSet({ namespace: "kube-system", body: { metadata: { name: "other", annotations: { "weave.works/kured-node-lock": JSON.stringify({ nodeID: "worker-2", created: new Date().toISOString(), TTL: 0 }) } }, spec: { selector: { matchLabels: { name: "o" } }, template: { metadata: { labels: { name: "o" } } } } } });
    const lock = JSON.stringify({ nodeID: "worker-3", metadata: { unschedulable: false }, created: "2026-11-25T10:00:00Z", TTL: 3600 * 1e9 });
    await apps.patchNamespacedDaemonSet({ namespace: "kube-system", name: "kured", body: { metadata: { annotations: { "weave.works/kured-node-lock": lock } } } }, merge());
    await waitFor(() => signal("DaemonSet", "kured", "kube-system"), { what: "kured's lock" });
    expect(signal("DaemonSet", "kured", "kube-system")!.signals).toEqual([expect.objectContaining({ node: "worker-3", operation: "Reboot", expires: new Date("2026-11-25T11:00:00Z") })]);
    expect(signal("DaemonSet", "other", "kube-system")).toBeUndefined();
    await apps.patchNamespacedDaemonSet({ namespace: "kube-system", name: "kured", body: { metadata: { annotations: { "weave.works/kured-node-lock": null } } } }, merge());
    await waitFor(() => !signal("DaemonSet", "kured", "kube-system"), { what: "the lock released" });
  });

  it("publishes a Machine while it is being deleted", async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "openshift-machine-api" } } }).catch(() => undefined);
    const m = { group: "machine.openshift.io", version: "v1beta1", namespace: "openshift-machine-api", plural: "machines" };
    await custom.createNamespacedCustomObject({ ...m, body: { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: "m-1", finalizers: ["machine.machine.openshift.io"] }, spec: {} } });
    await custom.patchNamespacedCustomObjectStatus({ ...m, name: "m-1", body: { status: { phase: "Running", nodeRef: { kind: "Node", name: "worker-1" } } } }, merge());
    await new Promise((r) => setTimeout(r, 300));
    expect(signal("Machine", "m-1", "openshift-machine-api")).toBeUndefined();
    await custom.deleteNamespacedCustomObject({ ...m, name: "m-1" });
    await waitFor(() => signal("Machine", "m-1", "openshift-machine-api"), { what: "the deleting Machine" });
    expect(signal("Machine", "m-1", "openshift-machine-api")!.signals[0]).toMatchObject({ node: "worker-1", operation: "Deprovision", since: expect.any(Date) });
    await custom.patchNamespacedCustomObject({ ...m, name: "m-1", body: { metadata: { finalizers: null } } }, merge());
    await waitFor(() => !signal("Machine", "m-1", "openshift-machine-api"), { what: "the Machine gone" });
  });

  it("derives the MCO's update from the node's annotations, without a second watch", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const mco = (state: string, desired: string) => ({
      metadata: { annotations: { "machineconfiguration.openshift.io/state": state, "machineconfiguration.openshift.io/currentConfig": "rendered-a", "machineconfiguration.openshift.io/desiredConfig": desired } },
    });
    await core.patchNode({ name: "worker-2", body: mco("Working", "rendered-b") }, merge());
    await waitFor(() => signal("Node", "worker-2"), { what: "the update signal" });
    expect(signal("Node", "worker-2")!.signals[0]).toMatchObject({ node: "worker-2", operation: "Update" });
    await core.patchNode({ name: "worker-2", body: mco("Done", "rendered-b") }, merge());
    await waitFor(() => !signal("Node", "worker-2"), { what: "the update done" });
    await core.patchNode({ name: "worker-3", body: mco("Working", "rendered-b") }, merge());
    await waitFor(() => signal("Node", "worker-3"));
    await core.deleteNode({ name: "worker-3" });
    await waitFor(() => !signal("Node", "worker-3"), { what: "the signal gone with its node" });
  });
});
