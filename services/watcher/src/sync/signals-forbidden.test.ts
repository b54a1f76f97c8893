// Integration: a watcher whose RBAC does not (yet) let it list a disruptor's objects (kube-sim with
// --authorization-mode=RBAC semantics) still syncs and keeps its heartbeat current; once permitted,
// the signals arrive. Everything else it needs is granted.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, RbacAuthorizationV1Api, setHeaderOptions, type V1PolicyRule } from "@kubernetes/client-node";
import type { StateCache } from "@lockstep/bus";
import { nodeSignalKey } from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchedState } from "../test-harness.js";

const ADMIN = "admin-token";
const WATCHER = "watcher-token";
let sim: KubeSim;
let nats: NatsServer;
let cache: StateCache;
const stack = new TestStack();

const read = ["get", "list", "watch"];
const rules = (machines: boolean): V1PolicyRule[] => [
  { apiGroups: ["", "apps", "coordination.k8s.io", "policy", "machineconfiguration.openshift.io", "config.openshift.io", "lockstep.io", "nodemaintenance.medik8s.io", "self-node-remediation.medik8s.io", "fence-agents-remediation.medik8s.io"], resources: ["*"], verbs: read },
  { apiGroups: ["machine.openshift.io"], resources: machines ? ["machinesets", "machines"] : ["machinesets"], verbs: read },
];

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift", token: ADMIN, users: [{ token: WATCHER, name: "watcher" }], authorization: "RBAC" }));
  nats = await stack.nats();
  const admin = kubeConfigForUrl(sim.url, ADMIN);
  const rbac = admin.makeApiClient(RbacAuthorizationV1Api);
  await rbac.createClusterRole({ body: { metadata: { name: "watcher" }, rules: rules(false) } });
  await rbac.createClusterRoleBinding({ body: { metadata: { name: "watcher" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "watcher" }, subjects: [{ kind: "User", name: "watcher", apiGroup: "rbac.authorization.k8s.io" }] } });
  const custom = admin.makeApiClient(CustomObjectsApi);
  await admin.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: "openshift-machine-api" } } });
  const m = { group: "machine.openshift.io", version: "v1beta1", namespace: "openshift-machine-api", plural: "machines" };
  await custom.createNamespacedCustomObject({ ...m, body: { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: "m-1", annotations: { "machine.openshift.io/delete-machine": "true" } }, spec: {} } });
  await custom.patchNamespacedCustomObjectStatus({ ...m, name: "m-1", body: { status: { nodeRef: { kind: "Node", name: "worker-1" } } } }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
  cache = await startWatchedState(stack, { kc: kubeConfigForUrl(sim.url, WATCHER), natsUrl: nats.url, informer: { maxBackoffMs: 300, missingRetryMs: 200 } });
});

afterAll(() => stack.close());

describe("a disruptor's objects the watcher may not list", () => {
  it("hold back neither meta.synced nor the heartbeat, and are published once permitted", async () => {
    await waitFor(() => cache.synced, { timeoutMs: 20_000, what: "meta.synced while machines are forbidden" });
    let beats = 0;
    const off = cache.onHeartbeat(() => void beats++);
    await waitFor(() => beats >= 2, { what: "heartbeats while machines are forbidden" });
    off();
    const key = nodeSignalKey({ kind: "Machine", namespace: "openshift-machine-api", name: "m-1" });
    expect(cache.getByKey(key)).toBeUndefined();
    await kubeConfigForUrl(sim.url, ADMIN).makeApiClient(RbacAuthorizationV1Api).replaceClusterRole({ name: "watcher", body: { metadata: { name: "watcher" }, rules: rules(true) } });
    await waitFor(() => cache.getByKey(key), { timeoutMs: 10_000, what: "the Machine's signal once permitted" });
    expect((cache.getByKey(key)!.value as any).signals[0]).toMatchObject({ node: "worker-1", operation: "Deprovision" });
  });
});
