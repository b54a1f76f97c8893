// §18.1: @kubernetes/client-node 1.4.0 against kube-sim — informers, Lease CAS, custom-object patches.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor, type KubeSim } from "../../src/index.js";
import { call, conformanceServer, onRealServer, SIM_ONLY, until } from "../helpers.js";

let sim: KubeSim;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;

beforeAll(async () => {
  sim = await conformanceServer({ token: "secret-token", crds: "openshift" });
  kc = kubeConfigFor(sim, k8s.KubeConfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
});
afterAll(() => sim.stop());

function nodeInformer(labelSelector?: string) {
  const informer = k8s.makeInformer(kc, "/api/v1/nodes", () => core.listNode(labelSelector ? { labelSelector } : {}), labelSelector);
  const errors: unknown[] = [];
  const seen: string[] = [];
  informer.on("add", (n) => seen.push(`add ${n.metadata?.name}`));
  informer.on("update", (n) => seen.push(`update ${n.metadata?.name}`));
  informer.on("delete", (n) => seen.push(`delete ${n.metadata?.name}`));
  informer.on("error", (e) => errors.push(e));
  const names = () =>
    informer
      .list()
      .map((n) => n.metadata!.name!)
      .sort();
  return { informer, errors, seen, names };
}

const labelsOf = (i: ReturnType<typeof nodeInformer>, name: string) => i.informer.get(name)?.metadata?.labels ?? {};

describe("client-node 1.4.0", () => {
  it("rejects requests without the bearer token (401 Status)", async () => {
    const res = await call({ url: sim.url }, "GET", "/api/v1/nodes");
    expect(res.status).toBe(401);
    expect(res.json).toEqual({ kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message: "Unauthorized", reason: "Unauthorized", code: 401 });
  });

  it("informer: initial list, updates, deletes, reconnect after a dropped watch, relist after 410 (event and HTTP)", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.faults);
    await core.createNode({ body: { metadata: { name: "inf-a", labels: { role: "w" } } } });
    const inf = nodeInformer();
    await inf.informer.start();
    expect(inf.names()).toContain("inf-a");
    await core.patchNode({ name: "inf-a", body: { metadata: { labels: { role: "x" } } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
    await until(() => labelsOf(inf, "inf-a").role === "x", "update");

    // Dropped watch: client-node reconnects from its last RV; nothing is lost in between.
    expect(sim.dropWatches()).toBeGreaterThan(0);
    await core.createNode({ body: { metadata: { name: "inf-b" } } });
    await until(() => inf.names().includes("inf-b"), "add after drop");

    // 410 as an ERROR event on the next watch, while a deletion happens: relist brings the cache back.
    sim.faults.set({ goneNextWatch: 1, goneMode: "event" });
    sim.dropWatches();
    await core.deleteNode({ name: "inf-a" });
    await until(() => !inf.names().includes("inf-a"), "delete seen after 410 relist");

    // 410 as an HTTP status.
    sim.faults.set({ goneNextWatch: 1, goneMode: "http" });
    sim.dropWatches();
    await core.createNode({ body: { metadata: { name: "inf-c" } } });
    await until(() => inf.names().includes("inf-c"), "add after HTTP 410");

    // A compacted history also means 410 → relist.
    await inf.informer.stop();
    expect(inf.errors.filter((e) => !String(e).includes("aborted"))).toEqual([]);
    expect(inf.seen).toContain("delete inf-a");
  });

  it("informer with a label selector sees objects leave and enter it", async () => {
    await core.createNode({ body: { metadata: { name: "sel-1", labels: { pool: "blue" } } } });
    const inf = nodeInformer("pool=blue");
    await inf.informer.start();
    expect(inf.names()).toEqual(["sel-1"]);
    await core.patchNode({ name: "sel-1", body: { metadata: { labels: { pool: "green" } } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
    await until(() => inf.names().length === 0, "leave");
    await core.patchNode({ name: "sel-1", body: { metadata: { labels: { pool: "blue" } } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
    await until(() => inf.names().length === 1, "enter");
    await inf.informer.stop();
  });

  it("Lease replace with a stale RV → ApiException 409 Conflict; MicroTime needs six digits", async () => {
    const coord = kc.makeApiClient(k8s.CoordinationV1Api);
    const created = await coord.createNamespacedLease({
      namespace: "default",
      body: { metadata: { name: "lock" }, spec: { holderIdentity: "a", leaseDurationSeconds: 15, renewTime: new k8s.V1MicroTime() } },
    });
    const renewed = await coord.replaceNamespacedLease({
      name: "lock",
      namespace: "default",
      body: { ...created, spec: { ...created.spec, holderIdentity: "a", renewTime: new k8s.V1MicroTime() } },
    });
    expect(Number(renewed.metadata!.resourceVersion)).toBeGreaterThan(Number(created.metadata!.resourceVersion));
    expect(typeof renewed.spec!.renewTime).toBe("string");
    try {
      await coord.replaceNamespacedLease({ name: "lock", namespace: "default", body: { ...created, spec: { ...created.spec, holderIdentity: "b" } } });
      expect.unreachable("stale replace succeeded");
    } catch (e) {
      expect(e).toBeInstanceOf(k8s.ApiException);
      const err = e as k8s.ApiException<string>;
      expect(err.code).toBe(409);
      expect(JSON.parse(err.body).reason).toBe("Conflict");
    }
    const res = await call(sim, "POST", "/apis/coordination.k8s.io/v1/namespaces/default/leases", { metadata: { name: "ms" }, spec: { renewTime: new Date().toISOString() } });
    expect(res.status).toBe(400);
    expect(res.json.message).toMatch(/cannot parse ".\d{3}Z" as ".000000"/);
  });

  it("custom object merge patch with setHeaderOptions; the default JSON Patch content type is honoured, not guessed", async () => {
    const custom = kc.makeApiClient(k8s.CustomObjectsApi);
    const group = "machineconfiguration.openshift.io";
    await custom.createClusterCustomObject({ group, version: "v1", plural: "machineconfigpools", body: { apiVersion: `${group}/v1`, kind: "MachineConfigPool", metadata: { name: "cn-worker" }, spec: { paused: false } } });
    const patched = await custom.patchClusterCustomObject(
      { group, version: "v1", plural: "machineconfigpools", name: "cn-worker", body: { spec: { paused: true } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect(patched.spec).toEqual({ paused: true });
    expect(patched.metadata.generation).toBe(2);
    const st = await custom.patchClusterCustomObjectStatus(
      { group, version: "v1", plural: "machineconfigpools", name: "cn-worker", body: { status: { machineCount: 3 }, spec: { paused: false } } },
      k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
    );
    expect(st.status).toEqual({ machineCount: 3 });
    expect(st.spec).toEqual({ paused: true });
    try {
      await custom.patchClusterCustomObject({ group, version: "v1", plural: "machineconfigpools", name: "cn-worker", body: { spec: { paused: false } } });
      expect.unreachable("object body accepted as JSON Patch");
    } catch (e) {
      expect((e as k8s.ApiException<string>).code).toBe(400);
    }
    try {
      await custom.patchClusterCustomObject(
        { group, version: "v1", plural: "machineconfigpools", name: "cn-worker", body: { metadata: { resourceVersion: "1" }, spec: { paused: false } } },
        k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch),
      );
      expect.unreachable("stale precondition accepted");
    } catch (e) {
      expect((e as k8s.ApiException<string>).code).toBe(409);
    }
  });

  it("KubernetesObjectApi resolves plurals through discovery and applies a strategic merge patch", async () => {
    const objects = k8s.KubernetesObjectApi.makeApiClient(kc);
    await objects.create({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "obj", namespace: "default" }, data: { a: "1" } } as k8s.KubernetesObject);
    const out = (await objects.patch({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "obj", namespace: "default" }, data: { b: "2" } } as k8s.KubernetesObject)) as k8s.V1ConfigMap;
    expect(out.data).toEqual({ a: "1", b: "2" });
    const mcp = (await objects.read({ apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool", metadata: { name: "cn-worker" } })) as k8s.KubernetesObject;
    expect(mcp.metadata?.name).toBe("cn-worker");
  });
});
