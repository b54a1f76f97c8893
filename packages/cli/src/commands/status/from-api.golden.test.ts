// The Update Status API carries the whole `oc adm upgrade status` view: for every golden case, the
// objects are loaded into kube-sim, the watcher, the status-aggregator and its Update Status API
// writer run in-process against a real nats-server, the published objects are read back with
// kubectl, and `--from-api` rendering of them must equal the golden output byte for byte.
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { render } from "@lockstep/insights";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, writeKubeconfig, type KubeSim } from "@lockstep/kube-sim";
import { INSIGHT_KINDS, type InsightKind, type InsightObject, type InsightObjects, PLURALS } from "@lockstep/contracts";
import { Aggregator, aggregatorRunnable, updateApiRunnable, type UpdateApiWriter } from "@lockstep/status-aggregator";
import { ocUpgradeStatusCases, ocUpgradeStatusDir, startNatsServer, TEST_WATCHER_OPTIONS, waitFor, type NatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { runFromApi } from "./from-api.js";
import { evaluationFromApi } from "./from-api-model.js";

const run = promisify(execFile);
const CRDS_DIR = fileURLToPath(new URL("../../../../../deploy/helm/lockstep/crds/", import.meta.url));
type Logger = Parameters<typeof watcherRunnable>[0]["logger"];
const quiet = (): Logger => {
  const l: Record<string, unknown> = {};
  for (const m of ["trace", "debug", "info", "warn", "error", "fatal"]) l[m] = () => {};
  l.child = () => l;
  l.level = "silent";
  l.isLevelEnabled = () => false;
  return l as unknown as Logger;
};

/** The case's "now": the fixture's clock (the same rule the offline golden test uses). */
async function fixtureNowOf(sim: KubeSim): Promise<bigint> {
  const { fixtureNow, inputsFromDocuments } = await import("@lockstep/insights");
  const get = async (path: string) => (await fetch(`${sim.url}${path}`)).json();
  const inputs = inputsFromDocuments({
    clusterVersion: await get("/apis/config.openshift.io/v1/clusterversions"),
    clusterOperators: await get("/apis/config.openshift.io/v1/clusteroperators"),
    machineConfigPools: await get("/apis/machineconfiguration.openshift.io/v1/machineconfigpools"),
    machineConfigs: await get("/apis/machineconfiguration.openshift.io/v1/machineconfigs"),
    nodes: await get("/api/v1/nodes"),
  });
  return fixtureNow(inputs.clusterVersion, inputs.clusterOperators);
}

interface Published {
  objects: InsightObjects;
  /** `kubectl get <kind> -o custom-columns=…` from each CRD's printer columns (kube-sim serves no Table). */
  columns: Record<InsightKind, string>;
  /** `lockstep status --from-api`'s own reading (readInsightObjects through the kubeconfig) and rendering. */
  viaCommand: string;
  now: bigint;
  writer: UpdateApiWriter;
}

/** Runs the services on one case and reads the published objects back with kubectl. */
async function publish(name: string, dir: string): Promise<Published> {
  const sim = await startKubeSim({ crds: "openshift" });
  const nats: NatsServer = await startNatsServer();
  const stop = new AbortController();
  const running: Promise<void>[] = [];
  try {
    const crdFiles = (await readdir(CRDS_DIR)).filter((f) => f.endsWith(".update.openshift.io.yaml")).map((f) => join(CRDS_DIR, f));
    await sim.load({ files: crdFiles });
    await sim.load({ files: ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml"].map((s) => join(ocUpgradeStatusDir(), `${name}${s}`)) });
    const now = await fixtureNowOf(sim);
    const kc = kubeConfigForUrl(sim.url);
    const logger = quiet();
    running.push(
      watcherRunnable({
        kc,
        bus: { servers: nats.url },
        logger,
        ...TEST_WATCHER_OPTIONS,
      }).start(stop.signal),
    );
    const aggregator = new Aggregator({ logger, clock: () => now, debounceMs: 10 });
    running.push(aggregatorRunnable({ aggregator, bus: { servers: nats.url }, logger, watchRefreshMs: 60_000 }).start(stop.signal));
    let writer: UpdateApiWriter | undefined;
    running.push(
      updateApiRunnable({
        aggregator,
        kc: kubeConfigForUrl(sim.url),
        logger,
        writesPerSecond: 1_000,
        writeBurst: 1_000,
        refreshMs: 60_000,
        resyncMs: 600_000,
        onWriter: (w) => (writer = w),
      }).start(stop.signal),
    );
    const nodes = ((await (await fetch(`${sim.url}/api/v1/nodes`)).json()) as { items: unknown[] }).items.length;
    // Settled: synced, every node row written, nothing pending, and no write for a while.
    let last = -1;
    await waitFor(
      () => {
        const w = writer;
        if (!w || !aggregator.synced || aggregator.view.nodeCount !== nodes || w.pending > 0 || w.stats.passes === 0) return false;
        const writes = w.stats.creates + w.stats.statusWrites + w.stats.deletes;
        const settled = writes === last;
        last = writes;
        return settled;
      },
      { timeoutMs: 30_000, intervalMs: 300, what: `${name}: the writer settled` },
    );
    const kubeconfig = join(dir, `${name}.kubeconfig`);
    await writeKubeconfig(sim, kubeconfig);
    const { stdout } = await run("kubectl", ["--kubeconfig", kubeconfig, "get", INSIGHT_KINDS.map((k) => `${PLURALS[k]}.update.openshift.io`).join(","), "-o", "json"], {
      maxBuffer: 64 * 1024 * 1024,
    });
    const objects = Object.fromEntries(INSIGHT_KINDS.map((k) => [k, [] as InsightObject[]])) as InsightObjects;
    for (const item of (JSON.parse(stdout) as { items: Array<InsightObject & { kind: InsightKind }> }).items) objects[item.kind].push(item);
    const columns = {} as Record<InsightKind, string>;
    for (const kind of INSIGHT_KINDS) {
      const crd = parse(await readFile(join(CRDS_DIR, `${PLURALS[kind]}.update.openshift.io.yaml`), "utf8")) as {
        spec: { versions: Array<{ additionalPrinterColumns: Array<{ name: string; jsonPath: string }> }> };
      };
      const spec = ["NAME:.metadata.name", ...crd.spec.versions[0]!.additionalPrinterColumns.map((c) => `${c.name.toUpperCase()}:${c.jsonPath}`)].join(",");
      columns[kind] = (await run("kubectl", ["--kubeconfig", kubeconfig, "get", `${PLURALS[kind]}.update.openshift.io`, "-o", `custom-columns=${spec}`])).stdout;
    }
    const viaCommand = await runFromApi({ kubeconfig, details: "all", now });
    return { objects, columns, viaCommand, now, writer: writer! };
  } finally {
    stop.abort();
    await Promise.allSettled(running);
    await nats.stop();
    await sim.stop();
  }
}

// A case with an `-alerts.json` input is left out: the API path reads no Prometheus, so its alert
// insights cannot appear there (the --from-dir and insights golden tests cover those cases).
const cases = ocUpgradeStatusCases().filter((c) => !existsSync(join(ocUpgradeStatusDir(), `${c}-alerts.json`)));
const golden = async (name: string, suffix: string) => inApiOrder(await readFile(join(ocUpgradeStatusDir(), `${name}${suffix}`), "utf8"));

/**
 * The golden text with its worker pools in API order. oc prints pools in the order it lists them; the
 * golden files list MachineConfigPools in their mock file's order (worker before infra), while any
 * API server (kube-sim, a real one, and so the aggregator and the API objects) lists them by name.
 * The pool rows and the pools' node sections are sorted by pool name; nothing else moves.
 */
function inApiOrder(text: string): string {
  const start = text.indexOf("\nWORKER POOL ");
  const health = text.indexOf("\n= Update Health =");
  if (start < 0 || health < 0) return text;
  const tableEnd = text.indexOf("\n\n", start + 1);
  const [header, ...rows] = text.slice(start + 1, tableEnd).split("\n");
  const byFirstField = (a: string, b: string) => (a.split(" ")[0]! < b.split(" ")[0]! ? -1 : 1);
  const sections = text
    .slice(tableEnd + 1, health)
    .split(/(?=\nWorker Pool Nodes: )/)
    .filter((x) => x !== "");
  const pool = (sec: string) => /Worker Pool Nodes: (\S+)/.exec(sec)?.[1] ?? "";
  sections.sort((a, b) => (pool(a) < pool(b) ? -1 : 1));
  return `${text.slice(0, start + 1)}${[header, ...rows.sort(byFirstField)].join("\n")}\n${sections.join("")}${text.slice(health)}`;
}
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "lockstep-from-api-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("lockstep status --from-api on the golden cases", () => {
  it("finds the golden cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(9);
  });

  it("reorders only the case whose mock file lists pools out of name order", async () => {
    const { readFileSync } = await import("node:fs");
    const moved = cases.filter((c) => {
      const text = readFileSync(join(ocUpgradeStatusDir(), `${c}.detailed-output`), "utf8");
      const reordered = inApiOrder(text);
      expect(reordered.split("\n").sort()).toEqual(text.split("\n").sort());
      return reordered !== text;
    });
    expect(moved).toEqual(["4.14.1-workers-started-updating-multiple-pools"]);
  });

  describe.each(cases)("%s", (name) => {
    let published: Published;
    beforeAll(async () => {
      published = await publish(name, dir);
    }, 60_000);

    it("publishes one NodeProgressInsight per node and one ClusterVersionProgressInsight", () => {
      expect(published.objects.ClusterVersionProgressInsight).toHaveLength(1);
      expect(published.objects.NodeProgressInsight.length).toBeGreaterThan(0);
      expect(published.writer.stats.failures).toBe(0);
    });

    it("shows assessment/phase/version/estimate/message in the CRDs' printer columns", () => {
      const row = (kind: InsightKind, name: string) => published.columns[kind].split("\n").find((l) => l.startsWith(`${name} `)) ?? "";
      expect(published.columns.NodeProgressInsight.split("\n")[0]).toMatch(/^NAME\s+POOL\s+PHASE\s+VERSION\s+EST\s+AVAILABLE\s+DEGRADED\s+MESSAGE\s+AGE/);
      for (const o of published.objects.NodeProgressInsight) {
        const s = o.status as { poolResource: { name: string }; version?: string; conditions: Array<{ type: string; reason: string }> };
        const cells = row("NodeProgressInsight", o.metadata.name).split(/\s+/);
        expect(cells.slice(1, 4)).toEqual([s.poolResource.name, s.conditions.find((c) => c.type === "Updating")!.reason, s.version ?? "<none>"]);
      }
      for (const o of published.objects.MachineConfigPoolProgressInsight) {
        const s = o.status as { assessment: string; completionPercent: number };
        expect(row("MachineConfigPoolProgressInsight", o.metadata.name).split(/\s+/).slice(2, 4)).toEqual([s.assessment, String(s.completionPercent)]);
      }
      const cv = published.objects.ClusterVersionProgressInsight[0]!.status as { assessment: string; versions: { target: { version: string } } };
      expect(row("ClusterVersionProgressInsight", "version")).toContain(cv.versions.target.version);
    });

    it("renders the golden .output byte for byte", async () => {
      expect(render(evaluationFromApi(published.objects, published.now), "none")).toBe(await golden(name, ".output"));
    });

    it("reads the same objects through the command's own client (runFromApi)", async () => {
      expect(published.viaCommand).toBe(await golden(name, ".detailed-output"));
    });

    it("renders the golden .detailed-output byte for byte", async () => {
      expect(render(evaluationFromApi(published.objects, published.now), "all")).toBe(await golden(name, ".detailed-output"));
    });
  });
});
