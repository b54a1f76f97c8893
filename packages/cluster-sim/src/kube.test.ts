// KubeWriter against a real kube-sim: paths, content types and the status codes callers branch on.
import { statusCode } from "@lockstep/kube";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeWriter } from "./kube.js";

describe("KubeWriter", () => {
  let ks: KubeSim;
  let w: KubeWriter;

  beforeAll(async () => {
    ks = await startKubeSim({ crds: "openshift" });
    // client-node's KubeConfig, as the simulation is given.
    w = new KubeWriter(kubeConfigForUrl(ks.url), 4);
  });
  afterAll(async () => {
    w.close();
    await ks.stop();
  });

  it("creates core and custom objects, writing a custom object's status after the create", async () => {
    const node = await w.create({ apiVersion: "v1", kind: "Node", metadata: { name: "n1" }, status: { conditions: [{ type: "Ready", status: "True" }] } });
    expect(node.metadata.resourceVersion).toBeTruthy();
    const status = { observedGeneration: 1, machineCount: 3 };
    const pool = await w.create({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool", metadata: { name: "worker" }, spec: {}, status });
    expect(pool.status).toMatchObject(status);
    const ms = await w.create({ apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", metadata: { name: "ms", namespace: "default" }, spec: { replicas: 1 } });
    expect(ms.metadata.namespace).toBe("default");
    const again = await w.create({ apiVersion: "v1", kind: "Node", metadata: { name: "n1" } }).catch((e: unknown) => e);
    expect(statusCode(again)).toBe(409);
  });

  it("merge-patches with a resourceVersion precondition (409 when stale) and patches status subresources", async () => {
    const fresh = await w.mergePatch("Node", "n1", { metadata: { annotations: { a: "1" } } });
    expect(fresh.metadata.annotations).toMatchObject({ a: "1" });
    const stale = await w.mergePatch("Node", "n1", { metadata: { resourceVersion: "1", annotations: { a: "2" } } }).catch((e: unknown) => e);
    expect(statusCode(stale)).toBe(409);
    const pool = await w.mergePatch("MachineConfigPool", "worker", { status: { machineCount: 5 } }, { status: true });
    expect(pool.status.machineCount).toBe(5);
    await expect(w.mergePatch("Namespace", "default", {})).rejects.toThrow("patch of Namespace not supported");
  });

  it("strategic-merge-patches node status: conditions merge by type", async () => {
    await w.patchNodeStatusStrategic("n1", { status: { conditions: [{ type: "DiskPressure", status: "False" }] } });
    const n = await w.patchNodeStatusStrategic("n1", { status: { conditions: [{ type: "Ready", status: "False" }] } });
    expect(n.status.conditions.map((c: { type: string; status: string }) => `${c.type}=${c.status}`).sort()).toEqual(["DiskPressure=False", "Ready=False"]);
  });

  it("evicts (evicted, blocked by a PDB, gone) and deletes treating 404 as done", async () => {
    const pod = (name: string, app: string) => ({ apiVersion: "v1", kind: "Pod", metadata: { name, namespace: "default", labels: { app } }, spec: { nodeName: "n1", containers: [{ name: "c", image: "i" }] } });
    for (const name of ["free", "held"]) {
      await w.create(pod(name, name));
      // Pending pods are evicted without asking their budget: make them running and ready.
      await w.mergePatch("Pod", name, { status: { phase: "Running", conditions: [{ type: "Ready", status: "True" }] } }, { namespace: "default", status: true });
    }
    await w.create({ apiVersion: "policy/v1", kind: "PodDisruptionBudget", metadata: { name: "hold", namespace: "default" }, spec: { maxUnavailable: 0, selector: { matchLabels: { app: "held" } } } });
    expect(await w.evict("default", "free")).toBe("evicted");
    expect(await w.evict("default", "held")).toBe("blocked");
    expect(await w.evict("default", "missing")).toBe("gone");
    await w.deletePod("default", "held", 0);
    await w.deletePod("default", "held", 0);
    await w.deletePdb("default", "hold");
    await w.deletePdb("default", "hold");
    const left = await w.evict("default", "held");
    expect(left).toBe("gone");
  });

  it("counts writes by verb, conflicts, and only unexpected answers as errors", () => {
    const s = w.stats;
    expect(s.byVerb).toMatchObject({ "create nodes": 2, "patch nodes/status": 2, "create pods/eviction": 4, "delete pods": 2, "delete poddisruptionbudgets": 2, "patch machineconfigpools/status": 2, "patch pods/status": 2 });
    expect(s.conflicts).toBe(2);
    // Only the unsupported patch: 404s of deletes and evictions and the 429 are outcomes.
    expect(s.errors).toBe(1);
    expect(s.errorSamples).toEqual([expect.stringContaining("patch namespaces: no status")]);
    expect(s.writes).toBe(Object.values(s.byVerb).reduce((a, b) => a + b, 0));
  });
});
