// The --kubeconfig source against kube-sim over real HTTP: the same forecast as the objects it was
// loaded from, and not one write to the API server.
import { applyObjects, generateCluster, KubeWriter, kubeConfigForUrl, parseClusterSpec, type KubeObject } from "@lockstep/cluster-sim";
import { kubeAccessForUrl } from "@lockstep/kube";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rehearse } from "./engine.js";
import { loadSnapshotApi } from "./load-api.js";
import { snapshotOf } from "./snapshot.js";

const START = new Date("2026-03-02T10:00:00Z");
const spec = parseClusterSpec({ name: "api", platform: "aws", version: "4.15.3", history: ["4.14.20"], masters: 3, pools: [{ name: "worker", size: 3 }], workloads: [{ name: "app", pool: "worker", replicas: 3, pdb: { maxUnavailable: 1 } }], seed: 2 });
const budget = { apiVersion: "lockstep.io/v1alpha1", kind: "DisruptionBudget", metadata: { name: "one" }, spec: { pool: "worker", maxDisrupted: "1" } } as KubeObject;

describe("loadSnapshotApi", () => {
  let ks: KubeSim;
  let objects: KubeObject[];
  beforeAll(async () => {
    ks = await startKubeSim({ crds: ["openshift", "lockstep"] });
    objects = [...generateCluster(spec, new Date(START.getTime() - 3600_000), 1).objects, budget];
    const writer = new KubeWriter(kubeConfigForUrl(ks.url), 8);
    await applyObjects(writer, objects.slice(0, -1));
    writer.close();
    await ks.load({ objects: [budget] });
  }, 30_000);
  afterAll(async () => {
    await ks?.stop();
  });

  it("reads the cluster with GETs only and forecasts as the objects themselves do", async () => {
    const rv = ks.store.resourceVersion;
    const snap = await loadSnapshotApi(kubeAccessForUrl(ks.url));
    expect(ks.store.resourceVersion).toBe(rv);
    expect(snap.budgets.map((b) => b.metadata.name)).toEqual(["one"]);
    expect(snap.pdbs.length).toBe(1);
    expect(snap.pods.length).toBe(3);
    const fromApi = rehearse(snap, { to: "4.15.4", seed: 1, start: START });
    const direct = rehearse(snapshotOf(objects), { to: "4.15.4", seed: 1, start: START });
    expect(fromApi.pools).toEqual(direct.pools);
    expect(fromApi.blockers).toEqual([]);
    expect(fromApi.finish).not.toBeNull();
  });
});
