// Every deleted pod is finished by someone (issue 33): the kubelet of a Ready node, the kubelet of a
// rebooting node once it is back, the pod GC for a pod whose node is gone. A pod that stayed
// Terminating kept its PDB at zero disruptions and deadlocked drains. Real kube-sim over HTTP.
import { CoreV1Api, type V1Node } from "@kubernetes/client-node";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, expect, it } from "vitest";
import { startSimulation, type Simulation } from "../simulation.js";
import { parseClusterSpec } from "../spec.js";
import { DEFAULT_TIMING, mergeTiming } from "../timing.js";
import type { KubeObject } from "../types.js";

let ks: KubeSim;
let sim: Simulation;
let core: CoreV1Api;

beforeAll(async () => {
  ks = await startKubeSim({ crds: "openshift" });
  const kc = kubeConfigForUrl(ks.url);
  core = kc.makeApiClient(CoreV1Api);
  const spec = parseClusterSpec({ version: "4.15.3", masters: 1, pools: [{ name: "worker", size: 3 }], workloads: [{ name: "app", pool: "worker", replicas: 6, pdb: { maxUnavailable: 1 } }] });
  // Pods take ten simulated hours to start: every pod stays Pending with its start still due,
  // the state in which a deletion used to be lost.
  const timing = mergeTiming(DEFAULT_TIMING, { podReady: { duration: 36_000, jitter: 0 } });
  sim = await startSimulation({ kc, spec, timeScale: 60, timing });
});

afterAll(async () => {
  await sim?.stop();
  await ks?.stop();
});

const appPods = (node?: string): KubeObject[] =>
  sim.world.list("pod").filter((p) => p.metadata.namespace === "sim-workloads" && (node === undefined || p.spec?.nodeName === node));

const gone = (p: KubeObject) => () => !sim.world.get("pod", p.metadata.name, p.metadata.namespace);

async function setReady(name: string, ready: boolean): Promise<void> {
  const node: V1Node = await core.readNode({ name });
  const now = new Date();
  node.status!.conditions = (node.status!.conditions ?? []).map((c) =>
    c.type === "Ready" ? { ...c, status: ready ? "True" : "False", reason: ready ? "KubeletReady" : "KubeletNotReady", lastTransitionTime: now } : c,
  );
  await core.replaceNodeStatus({ name, body: node });
}

it("a Pending pod deleted with its start still due is removed at once, not left Terminating", async () => {
  await sim.waitFor(() => appPods().length === 6, 30_000, "the six app pods");
  const pod = appPods()[0]!;
  expect(pod.status?.phase ?? "Pending").toBe("Pending");
  await core.deleteNamespacedPod({ name: pod.metadata.name, namespace: pod.metadata.namespace!, gracePeriodSeconds: 30 });
  await sim.waitFor(() => !!sim.world.get("pod", pod.metadata.name, pod.metadata.namespace)?.metadata.deletionTimestamp || gone(pod)(), 10_000, "kube-sim marks the bound pod Terminating");
  // 30 s of grace are 0.5 real s at 60x; a pod that never started does not even wait for that.
  await sim.waitFor(gone(pod), 10_000, `pod ${pod.metadata.name} removed by its node's kubelet`);
});

it("a pod deleted while its node is down stays Terminating until the node is back, then goes", async () => {
  const node = sim.world.list("node").find((n) => n.metadata.labels?.["node-role.kubernetes.io/worker"] !== undefined && appPods(n.metadata.name).length)!;
  await setReady(node.metadata.name, false);
  await sim.waitFor(() => sim.world.get("node", node.metadata.name)?.status?.conditions?.some((c: { type: string; status: string }) => c.type === "Ready" && c.status === "False") ?? false, 10_000, "the node reads NotReady");
  const pod = appPods(node.metadata.name)[0]!;
  await core.deleteNamespacedPod({ name: pod.metadata.name, namespace: pod.metadata.namespace!, gracePeriodSeconds: 0 + 30 });
  await sim.waitFor(() => !!sim.world.get("pod", pod.metadata.name, pod.metadata.namespace)?.metadata.deletionTimestamp, 10_000, "the pod is Terminating");
  // Nothing can finish it while the kubelet is down: a replacement pod (the ReplicaSet's answer to
  // the deletion) is the change we wait on, so this is not a fixed sleep.
  await sim.waitFor(() => appPods().filter((p) => !p.metadata.deletionTimestamp).length === 6, 30_000, "the replacement pod");
  expect(sim.world.get("pod", pod.metadata.name, pod.metadata.namespace)?.metadata.deletionTimestamp).toBeTruthy();
  await setReady(node.metadata.name, true);
  await sim.waitFor(gone(pod), 10_000, `pod ${pod.metadata.name} finished by the kubelet of the node back from its reboot`);
});

it("the pod GC removes the pods of a deleted node", async () => {
  const node = sim.world.list("node").find((n) => n.metadata.labels?.["node-role.kubernetes.io/worker"] !== undefined && appPods(n.metadata.name).length)!;
  const pods = appPods(node.metadata.name);
  expect(pods.length).toBeGreaterThan(0);
  await core.deleteNode({ name: node.metadata.name });
  await sim.waitFor(() => pods.every((p) => gone(p)()), 10_000, `pods ${pods.map((p) => p.metadata.name).join(", ")} of deleted node ${node.metadata.name} garbage collected`);
});
