// Integration: the writer against kube-sim over real HTTP, fed by the real watcher → nats-server →
// aggregator chain on a golden case. Checks that objects are written once, a node change costs one
// status write of its object, nothing is rewritten without a change, gone subjects lose their
// objects, the write cap holds, and foreign or missing CRDs make the writer stand back.
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { ocUpgradeStatusDir, startNatsServer, TEST_WATCHER_OPTIONS, waitFor, type NatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { afterEach, describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { Aggregator } from "../aggregator/aggregator.js";
import { aggregatorRunnable } from "../runnable.js";
import { insightApi, listAll } from "./client.js";
import { updateApiRunnable } from "./runnable.js";
import { type InsightKind, MANAGED_BY, MANAGED_BY_LABEL } from "@lockstep/contracts";
import { UpdateApiWriter, type WriteVerb } from "./writer.js";

const CRDS_DIR = fileURLToPath(new URL("../../../../deploy/helm/lockstep/crds/", import.meta.url));
const CASE = "4.14.1-workers-started-updating-multiple-pools";

async function crdObjects(): Promise<Array<Record<string, any>>> {
  const files = (await readdir(CRDS_DIR)).filter((f) => f.endsWith(".update.openshift.io.yaml"));
  return Promise.all(files.map(async (f) => parseAllDocuments(await readFile(join(CRDS_DIR, f), "utf8"))[0]!.toJS() as Record<string, any>));
}

interface Harness {
  sim: KubeSim;
  aggregator: Aggregator;
  writer: UpdateApiWriter;
  writes: Array<{ kind: InsightKind; verb: WriteVerb; name?: string; at: number }>;
  stop(): Promise<void>;
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function start(o: { crds: "lockstep" | "foreign" | "none"; writesPerSecond?: number; writeBurst?: number; refreshMs?: number }): Promise<Harness> {
  const sim = await startKubeSim({ crds: "openshift" });
  const nats: NatsServer = await startNatsServer();
  const crds = await crdObjects();
  if (o.crds === "foreign") {
    // As OpenShift's cluster-version operator installs them: no Lockstep ownership annotation.
    for (const c of crds) c.metadata.annotations = { "release.openshift.io/feature-set": "TechPreviewNoUpgrade" };
  }
  if (o.crds !== "none") await sim.load({ objects: crds as any });
  await sim.load({ files: ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml"].map((s) => join(ocUpgradeStatusDir(), `${CASE}${s}`)) });
  const stop = new AbortController();
  const kc = kubeConfigForUrl(sim.url);
  const logger = silentLogger();
  const running: Promise<void>[] = [];
  running.push(
    watcherRunnable({
      kc,
      bus: { servers: nats.url },
      logger,
      ...TEST_WATCHER_OPTIONS,
    }).start(stop.signal),
  );
  const aggregator = new Aggregator({ logger, debounceMs: 10 });
  running.push(aggregatorRunnable({ aggregator, bus: { servers: nats.url }, logger, watchRefreshMs: 60_000 }).start(stop.signal));
  await waitFor(() => aggregator.synced && aggregator.view.nodeCount === 7, { timeoutMs: 90_000, what: "aggregator synced" });
  const writes: Harness["writes"] = [];
  let writer: UpdateApiWriter | undefined;
  running.push(
    updateApiRunnable({
      aggregator,
      kc,
      logger,
      writesPerSecond: o.writesPerSecond ?? 1_000,
      writeBurst: o.writeBurst ?? 1_000,
      refreshMs: o.refreshMs ?? 60_000,
      resyncMs: 600_000,
      hooks: { onWrite: (kind, verb, name) => writes.push({ kind, verb, name, at: Date.now() }) },
      onWriter: (w) => (writer = w),
    }).start(stop.signal),
  );
  const h: Harness = {
    sim,
    aggregator,
    writer: writer!,
    writes,
    async stop() {
      stop.abort();
      await Promise.allSettled(running);
      await nats.stop();
      await sim.stop();
    },
  };
  cleanups.push(() => h.stop());
  return h;
}

/** Waits until the writer has nothing pending and made no write for 500 ms. */
async function settled(h: Harness): Promise<void> {
  let last = -1;
  await waitFor(
    () => {
      const n = h.writes.length;
      const ok = h.writer.pending === 0 && h.writer.stats.passes > 0 && n === last;
      last = n;
      return ok;
    },
    { timeoutMs: 20_000, intervalMs: 500, what: "writer settled" },
  );
}

const kinds = (h: Harness) => insightApi(kubeConfigForUrl(h.sim.url)).kinds;

describe("UpdateApiWriter", () => {
  it("creates each object once, then writes a changed node once and nothing else of the nodes", async () => {
    const h = await start({ crds: "lockstep", refreshMs: 1_500 });
    await settled(h);
    const nodes = await listAll(kinds(h).NodeProgressInsight);
    expect(nodes.map((n) => n.metadata.name).sort()).toHaveLength(7);
    expect(nodes.every((n) => n.metadata.labels?.[MANAGED_BY_LABEL] === MANAGED_BY)).toBe(true);
    // One create and one status write per object: status is a subresource, dropped on create.
    const created = h.writes.filter((w) => w.verb === "create").length;
    expect(created).toBeGreaterThan(7 + 3 + 1 + 30);
    expect(h.writes.filter((w) => w.verb === "status").length).toBe(created);

    // Refreshes (every 1.5 s) recompute the cluster-level objects but write nothing unchanged.
    const before = h.writes.length;
    const passes = h.writer.stats.passes;
    await new Promise((r) => setTimeout(r, 3_500));
    expect(h.writer.stats.passes).toBeGreaterThan(passes);
    expect(h.writes.length).toBe(before);

    // One node state change: the master node becomes unschedulable (Unavailable).
    await fetch(`${h.sim.url}/api/v1/nodes/ip-10-0-30-217.us-east-2.compute.internal`, {
      method: "PATCH",
      headers: { "content-type": "application/merge-patch+json" },
      body: JSON.stringify({ spec: { unschedulable: true } }),
    });
    await waitFor(async () => {
      const o = (await listAll(kinds(h).NodeProgressInsight)).find((n) => n.metadata.name === "ip-10-0-30-217.us-east-2.compute.internal");
      return (o?.status as any)?.conditions?.find((c: any) => c.type === "Available")?.status === "False";
    });
    await settled(h);
    const after = h.writes.slice(before);
    const nodeWrites = after.filter((w) => w.kind === "NodeProgressInsight");
    expect(nodeWrites).toEqual([expect.objectContaining({ verb: "status", name: "ip-10-0-30-217.us-east-2.compute.internal" })]);
  }, 150_000);

  it("deletes the object of a node that goes away", async () => {
    const h = await start({ crds: "lockstep" });
    await settled(h);
    await fetch(`${h.sim.url}/api/v1/nodes/ip-10-0-99-40.us-east-2.compute.internal`, { method: "DELETE" });
    await waitFor(async () => !(await listAll(kinds(h).NodeProgressInsight)).some((n) => n.metadata.name === "ip-10-0-99-40.us-east-2.compute.internal"), {
      what: "node insight deleted",
    });
    expect(h.writes.filter((w) => w.verb === "delete")).toEqual([expect.objectContaining({ kind: "NodeProgressInsight", name: "ip-10-0-99-40.us-east-2.compute.internal" })]);
  }, 150_000);

  it("keeps to the write cap", async () => {
    const h = await start({ crds: "lockstep", writesPerSecond: 20, writeBurst: 5 });
    await waitFor(() => h.writes.length >= 40, { timeoutMs: 20_000, what: "40 writes" });
    const first = h.writes[0]!.at;
    const span = h.writes[39]!.at - first;
    // 40 writes: 5 at once, then 35 at 20 per second, at least 1.75 s.
    expect(span).toBeGreaterThanOrEqual(1_700);
  }, 150_000);

  it("stands back, writing nothing, when the CRDs are not Lockstep's", async () => {
    const h = await start({ crds: "foreign", refreshMs: 200 });
    await waitFor(() => h.writer.mode.mode === "standing-back", { what: "standing back" });
    await new Promise((r) => setTimeout(r, 1_000));
    expect(h.writes).toEqual([]);
    expect(await listAll(kinds(h).NodeProgressInsight)).toEqual([]);
    expect(h.writer.mode.detail).toContain("TechPreviewNoUpgrade");
    // `lockstep status` says so (the fixture's cluster is updating: inside Update Health).
    expect(h.aggregator.current()!.render("none")).toContain("Lockstep stands back from the Update Status API");
  }, 150_000);

  it("writes nothing while the CRDs are missing", async () => {
    const h = await start({ crds: "none", refreshMs: 200 });
    await waitFor(() => h.writer.mode.mode === "crds-missing" && h.writer.stats.failures === 0, { what: "crds-missing" });
    await new Promise((r) => setTimeout(r, 500));
    expect(h.writes).toEqual([]);
    expect(h.aggregator.current()!.render("none")).toContain("Lockstep cannot publish the Update Status API");
  }, 150_000);
});
