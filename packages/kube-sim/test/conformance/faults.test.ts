// Fault injection through real clients: informers survive dropped watches and 410s; injected codes surface.
import * as k8s from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor, startKubeSim, type KubeSim } from "../../src/index.js";
import { call, onRealServer, SIM_ONLY, until } from "../helpers.js";

let sim: KubeSim;
let kc: k8s.KubeConfig;
let core: k8s.CoreV1Api;

beforeAll(async () => {
  sim = await startKubeSim({ historyLimit: 20 });
  kc = kubeConfigFor(sim, k8s.KubeConfig);
  core = kc.makeApiClient(k8s.CoreV1Api);
});
afterAll(() => sim.stop());

/** An informer restarted from its error handler, guarded by a stopping flag (§18.1). */
function resilientInformer() {
  const informer = k8s.makeInformer(kc, "/api/v1/configmaps", () => core.listConfigMapForAllNamespaces());
  let stopping = false;
  let restarts = 0;
  informer.on("error", () => {
    if (stopping) return;
    restarts++;
    setTimeout(() => {
      if (!stopping) void informer.start().catch(() => undefined);
    }, 20);
  });
  return {
    informer,
    restarts: () => restarts,
    stop: async () => {
      stopping = true;
      await informer.stop();
    },
    snapshot: () =>
      informer
        .list()
        .map((c) => `${c.metadata!.name}=${c.data?.v}`)
        .sort(),
  };
}

async function serverSnapshot(): Promise<string[]> {
  const l = await call(sim, "GET", "/api/v1/namespaces/default/configmaps");
  return l.json.items.map((c: any) => `${c.metadata.name}=${c.data?.v}`).sort();
}

describe("fault injection", () => {
  it("an informer survives periodic dropped watches, forced 410s and compaction, ending with the right cache", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.faults);
    const inf = resilientInformer();
    await inf.informer.start();
    sim.faults.set({ seed: 5, dropWatchesEveryMs: 30 });
    for (let i = 0; i < 60; i++) {
      const name = `cm-${i % 15}`;
      try {
        await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name }, data: { v: String(i) } } });
      } catch {
        await core.patchNamespacedConfigMap({ namespace: "default", name, body: { data: { v: String(i) } } }, k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch));
      }
      if (i % 7 === 0) await core.deleteNamespacedConfigMap({ namespace: "default", name: `cm-${(i + 3) % 15}` }).catch(() => undefined);
      if (i % 10 === 0) sim.faults.add({ goneNextWatch: 1, goneMode: i % 20 === 0 ? "event" : "http" });
      if (i % 25 === 0) sim.compact("", "configmaps");
    }
    sim.faults.clear();
    const want = await serverSnapshot();
    await until(() => JSON.stringify(inf.snapshot()) === JSON.stringify(want), "informer cache to converge");
    await inf.stop();
    expect(inf.snapshot()).toEqual(want);
  });

  it("a non-410 watch error stops a plain informer; a restarting one recovers (pitfall 13)", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.faults);
    const inf = resilientInformer();
    await inf.informer.start();
    sim.faults.set({ errors: [{ code: 500, probability: 1, verb: "watch", resource: "configmaps" }] });
    sim.dropWatches();
    await until(() => inf.restarts() > 0, "error callback");
    sim.faults.clear();
    await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: "after-500" }, data: { v: "x" } } });
    await until(() => inf.snapshot().includes("after-500=x"), "recovery after restart");
    await inf.stop();
  });

  it("injected 409/429/500/503 surface to client-node with their codes; other verbs are untouched", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.faults);
    for (const code of [409, 429, 500, 503] as const) {
      sim.faults.set({ errors: [{ code, probability: 1, verb: "create", resource: "configmaps" }] });
      try {
        await core.createNamespacedConfigMap({ namespace: "default", body: { metadata: { name: `inj-${code}` } } });
        expect.unreachable();
      } catch (e) {
        expect(e).toBeInstanceOf(k8s.ApiException);
        expect((e as k8s.ApiException<string>).code).toBe(code);
        expect(JSON.parse((e as k8s.ApiException<string>).body).code).toBe(code);
      }
      const l = await core.listNamespacedConfigMap({ namespace: "default" });
      expect(Array.isArray(l.items)).toBe(true);
    }
    sim.faults.clear();
  });

  it("the admin endpoint sets faults from --fault specs; outages answer 503 or refuse connections", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.faults);
    const set = await call(sim, "POST", "/_sim/faults", { specs: ["error=409:1:verb=update:resource=nodes", "latency=1ms"] });
    expect(set.status).toBe(200);
    expect(set.json.errors).toEqual([{ code: 409, probability: 1, verb: "update", resource: "nodes" }]);
    await call(sim, "POST", "/api/v1/nodes", { metadata: { name: "f1" } });
    const upd = await call(sim, "PUT", "/api/v1/nodes/f1", { metadata: { name: "f1", labels: { a: "b" } } });
    expect(upd.status).toBe(409);
    expect(upd.json.reason).toBe("Conflict");
    expect((await call(sim, "DELETE", "/_sim/faults")).json).toEqual({ errors: [] });

    await call(sim, "POST", "/_sim/faults", { specs: ["outage=300ms"] });
    expect((await call(sim, "GET", "/api/v1/nodes")).status).toBe(503);
    await until(async () => (await call(sim, "GET", "/api/v1/nodes")).status === 200, "end of 503 outage");

    sim.faults.set({ outage: { durationMs: 300, mode: "refuse" } });
    // A pooled keep-alive socket may die first ("socket hang up"); a fresh connection is refused.
    await expect(call(sim, "GET", "/api/v1/nodes")).rejects.toThrow(/ECONNREFUSED|socket hang up|ECONNRESET/);
    await expect(call(sim, "GET", "/api/v1/nodes")).rejects.toThrow(/ECONNREFUSED/);
    await until(async () => (await call(sim, "GET", "/api/v1/nodes").catch(() => ({ status: 0 }))).status === 200, "listener back after refuse outage");
  });
});
