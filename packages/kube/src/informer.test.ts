// The informer against kube-sim over real HTTP: full objects to handlers, what `keep` keeps in the
// cache, relist after a compacted resourceVersion (deletions missed meanwhile are reported), and a
// resource that is not served.
import { CoreV1Api, type KubernetesObject } from "@kubernetes/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { kubeAccessForUrl, type KubeConfigLike } from "./access.js";
import { kubeConfigForUrl } from "./client-node.js";
import { Informer, metadataOnly } from "./informer.js";
import { Resources } from "./resources.js";

let sim: KubeSim;

const until = async (f: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms;
  while (!f()) {
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};

// Both kinds of config a caller may hold: client-node's KubeConfig (tests, tools) and the light one.
const configs: Array<[string, (url: string) => KubeConfigLike]> = [
  ["client-node KubeConfig", (url) => kubeConfigForUrl(url)],
  ["LiteKubeConfig", (url) => kubeAccessForUrl(url)],
];

describe.each(configs)("Informer with a %s", (_name, configFor) => {
  beforeAll(async () => {
    sim = await startKubeSim({ historyLimit: 50 });
  });
  afterAll(async () => sim.stop());

  it("hands whole objects to handlers, keeps only what `keep` returns, and relists after 410", async () => {
    const kc = kubeConfigForUrl(sim.url);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNode({ body: { metadata: { name: "a", labels: { x: "1" } } } });
    await core.createNode({ body: { metadata: { name: "b" } } });
    const added: KubernetesObject[] = [];
    const deleted: string[] = [];
    let lists = 0;
    const inf = new Informer(configFor(sim.url), Resources.node, { add: (o) => added.push(o), delete: (o) => deleted.push(o.metadata!.name!), listed: () => void lists++ }, { keep: metadataOnly, minBackoffMs: 20, pageSize: 1 });
    inf.start();
    await until(() => inf.synced && added.length === 2);
    expect(added.find((o) => o.metadata?.name === "a")?.metadata?.labels).toEqual({ x: "1" });
    expect(inf.get("a")).toEqual({ apiVersion: "v1", kind: "Node", metadata: { name: "a", namespace: undefined, uid: expect.any(String), resourceVersion: expect.any(String) } });

    // Delete while the watch is gone and history is compacted: the relist must report it.
    sim.compact();
    await core.deleteNode({ name: "b" });
    sim.compact();
    sim.dropWatches();
    await until(() => deleted.includes("b"));
    expect(lists).toBeGreaterThanOrEqual(1);
    expect(inf.list().map((o) => o.metadata?.name)).toEqual(["a"]);
    inf.stop();
  });

  it("is current while its watch is open, falls behind while the API is out, and catches up after", async () => {
    const inf = new Informer(configFor(sim.url), Resources.node, {}, { minBackoffMs: 20, maxBackoffMs: 100 });
    expect(inf.currentAsOf()).toBeUndefined();
    inf.start();
    await until(() => inf.currentAsOf() !== undefined);
    const now = Date.now();
    expect(inf.currentAsOf(now)).toBe(now);

    sim.faults.addSpecs(["outage=1s"]);
    sim.dropWatches();
    await until(() => (inf.currentAsOf() ?? 0) < Date.now() - 300);
    const behind = inf.currentAsOf()!;
    await new Promise((r) => setTimeout(r, 200));
    expect(inf.currentAsOf()).toBe(behind); // still behind: the watch keeps failing

    await until(() => inf.currentAsOf() === Date.now(), 5_000);
    inf.stop();
    expect(inf.currentAsOf()).toBeLessThanOrEqual(Date.now());
  });

  it("reports a resource the server does not serve and retries", async () => {
    let missing = 0;
    const inf = new Informer(configFor(sim.url), Resources.machineConfigPool, { missing: () => void missing++ }, { missingRetryMs: 50 });
    inf.start();
    await until(() => missing >= 2);
    expect(inf.synced).toBe(false);
    // Its absence is what the server says now: it does not hold back freshness.
    const now = Date.now();
    expect(inf.currentAsOf(now)).toBe(now);
    inf.stop();
  });
});
