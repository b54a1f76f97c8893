// The whole system against a real kube-apiserver (the oracle, scripts/oracle/): the CRDs kube-sim
// serves applied with kubectl (server-side), cluster-sim generating a small cluster and driving an
// update, nats-server and the five services as processes (as `lockstep up` starts them), and what the
// e2e story asserts that means something here. Run by `npm run test:oracle:system` (not by `npm test`).
// The oracle is Kubernetes 1.20: PodDisruptionBudgets and Evictions are policy/v1beta1 there, picked
// through discovery; it has no controller-manager, so disruption.ts keeps PDB status.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeBus, connectBus, ensureStateBucket, StateCache } from "@lockstep/bus";
import { parseClusterSpec, startSimulation, type Simulation } from "@lockstep/cluster-sim";
import { OperationType } from "@lockstep/contracts";
import { Clients, EventLog } from "@lockstep/demo";
import { ApiDiscovery, KubeHttp, loadKubeConfig, Resources } from "@lockstep/kube";
import { freePort, SERVICE_NAMES, startNatsServer, startSystem, type NatsServer, type RunningSystem, type ServiceName } from "@lockstep/launcher";
import { CoordinatorNodeLeaser } from "@lockstep/lease-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOracle, type Oracle } from "../../scripts/oracle/oracle.mjs";
import { toolOrSkip } from "../../scripts/tools.mjs";
import { startDisruptionController } from "./disruption.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CRD_DIRS = ["openshift", "lockstep", "medik8s"].map((d) => join(REPO, "packages", "kube-sim", "crds", d));
const LEASE_NAMESPACE = "lockstep-leases";
const CURRENT = "4.15.12";
const TARGET = "4.15.14";
const ADMIN = "admin@example.com";

const SPEC = parseClusterSpec({
  name: "oracle",
  platform: "aws",
  region: "us-east-2",
  version: CURRENT,
  history: ["4.14.20"],
  masters: 3,
  pools: [{ name: "worker", size: 4, maxUnavailable: 2 }],
  // A pod on every worker under a PDB: drains go through policy/v1beta1 evictions and PDB checks.
  workloads: [{ name: "app-worker", pool: "worker", replicas: 4, pdb: { maxUnavailable: 1 } }],
  bootImageVersion: CURRENT,
});
const TOTAL = 7;

const kubectl = toolOrSkip("kubectl");

async function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, explain?: () => Promise<string> | string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) {
      const more = explain ? `\n${await Promise.resolve(explain()).catch((e) => String(e))}` : "";
      throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ""}${more}`);
    }
    await new Promise((r) => setTimeout(r, 500));
  }
}

describe.skipIf(kubectl.skip)("whole system against kube-apiserver (the oracle)", () => {
  const timings: Record<string, number> = {};
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  let oracle: Oracle;
  let http: KubeHttp;
  let system: RunningSystem;
  let sim: Simulation;
  let clients: Clients;
  let events: EventLog;
  let cache: StateCache;
  let controller: ReturnType<typeof startDisruptionController>;
  const runDir = mkdtempSync(join(tmpdir(), "lockstep-oracle-system-"));

  const kube = (...args: string[]) => execFileSync(kubectl.path!, ["--kubeconfig", oracle.kubeconfig, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  const status = async () => (await clients.call(clients.status, clients.status.getUpdateStatus, { omitNodes: false })).status;
  const records = async () => ((await status())?.nodes ?? []).map((n) => ({ name: n.name, pool: n.pool, assessment: n.record?.assessment, phase: n.record?.phase }));
  const heldLeases = async () =>
    (await http.request<{ items: any[] }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases`)).items
      .filter((l) => !String(l.metadata.name).startsWith("lockstep-slot.") && l.spec?.holderIdentity)
      .map((l) => `${l.metadata.name}: ${l.spec.holderIdentity}`);
  /** Where the rollout stands, for a failure message. */
  const explain = async () => {
    const nodes = (await http.request<{ items: any[] }>("GET", "/api/v1/nodes")).items.map((n) => {
      const a = (k: string) => n.metadata.annotations?.[`machineconfiguration.openshift.io/${k}`] ?? "";
      return `  node ${n.metadata.name}: state=${a("state") || "-"} ${a("currentConfig")}${a("currentConfig") === a("desiredConfig") ? "" : ` -> ${a("desiredConfig")}`}${n.spec?.unschedulable ? " cordoned" : ""}${a("reason") ? ` reason=${a("reason")}` : ""}`;
    });
    const stats = sim.stats();
    return [
      ...nodes,
      `  leases: ${(await heldLeases()).join(", ") || "none held"}`,
      `  aggregator: ${JSON.stringify(await records().catch(() => []))}`,
      `  cluster-sim: ${stats.writes} writes, ${stats.errors} errors ${JSON.stringify(stats.errorSamples)}`,
      `  disruption stand-in: ${controller.writes()} status writes, last error ${controller.lastError() ?? "none"}`,
    ].join("\n");
  };

  beforeAll(async () => {
    const started = Date.now();
    oracle = await startOracle();
    cleanups.push(() => oracle.stop());
    timings.oracleStart = oracle.startSeconds;

    let t = Date.now();
    kube("apply", "--server-side", ...CRD_DIRS.flatMap((d) => ["-f", d]));
    kube("wait", "--for", "condition=established", "--timeout=60s", "crd", "--all");
    timings.crds = (Date.now() - t) / 1000;

    const kc = loadKubeConfig(oracle.kubeconfig);
    http = new KubeHttp(kc, 4);
    const pdb = await new ApiDiscovery(kc).served(Resources.podDisruptionBudget);
    controller = startDisruptionController(kc, pdb.apiVersion);
    cleanups.push(() => controller.stop());

    const nats: NatsServer = await startNatsServer();
    cleanups.push(() => nats.stop());
    const ports: Partial<Record<ServiceName, { grpc: number; http: number }>> = {};
    for (const s of SERVICE_NAMES) ports[s] = { grpc: await freePort(), http: await freePort() };
    const leaser = new CoordinatorNodeLeaser({ address: `127.0.0.1:${ports["lease-coordinator"]!.grpc}`, holder: "machine-config-controller", durationSeconds: 120 });
    cleanups.push(() => leaser.close());

    t = Date.now();
    sim = await startSimulation({ kc, spec: SPEC, timeScale: 120, seed: 7, leases: "cooperate", leaser });
    cleanups.push(() => sim.stop());
    timings.generate = (Date.now() - t) / 1000;

    t = Date.now();
    system = await startSystem({ kubeconfig: oracle.kubeconfig, natsUrl: nats.url, runDir, ports, env: { "lease-coordinator": { LEASE_AUTH: "none" } } });
    cleanups.push(() => system.stop());
    timings.services = (Date.now() - t) / 1000;
    clients = new Clients(system);
    cleanups.push(() => clients.close());

    const nc = await connectBus({ servers: nats.url, name: "oracle-system" });
    cleanups.push(() => closeBus(nc));
    events = new EventLog();
    const abort = new AbortController();
    const feeding = events.start(nc, abort.signal);
    cleanups.push(async () => {
      abort.abort();
      await feeding.catch(() => {});
    });
    cache = new StateCache(await ensureStateBucket(nc));
    await cache.start();
    cleanups.push(() => cache.stop());
    timings.setup = (Date.now() - started) / 1000;
  }, 240_000);

  afterAll(async () => {
    // Newest first: the simulation before the services, the services before nats-server and the oracle.
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
    process.stderr.write(`oracle system test timings (s): ${JSON.stringify(timings)}\n`);
  }, 120_000);

  it("serves PDBs and Evictions as the 1.20 server does, chosen through discovery", async () => {
    const policy = await http.request<{ versions: Array<{ version: string }> }>("GET", "/apis/policy");
    const servesV1 = policy.versions.some((v) => v.version === "v1");
    const expected = servesV1 ? "policy/v1" : "policy/v1beta1";
    if (oracle.version.startsWith("1.20")) expect(expected).toBe("policy/v1beta1");
    // cluster-sim created its PDB in that version, and the watcher published it from that version's list.
    const pdbs = await http.request<{ items: any[] }>("GET", `/apis/${expected}/poddisruptionbudgets`);
    expect(pdbs.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toContain("sim-workloads/app-worker");
    await until("the watcher's PDB snapshot", () => cache.list("podDisruptionBudget").some((p) => p.name === "app-worker"), 60_000);
  });

  it("syncs the generated cluster: every node in the aggregator, a skew report, upgradeable", async () => {
    await until(`${TOTAL} nodes in the status`, async () => (await records()).length === TOTAL, 120_000, explain);
    const report = await until("a skew report", async () => (await clients.call(clients.skew, clients.skew.getSkewReport, {})).report, 60_000);
    expect(report).toMatchObject({ controlPlaneVersion: CURRENT, upgradeable: true });
  });

  it("grants a maintenance lease, refuses a second holder, releases it", async () => {
    const node = sim.poolMembers().get("worker")![0]!.metadata.name;
    const ask = (holder: string) =>
      clients.call(clients.lease, clients.lease.acquire, { node, operation: OperationType.OPERATION_TYPE_MAINTENANCE, holder, reason: "oracle test", durationSeconds: 600, waitSeconds: 0, force: false });
    expect(await ask(ADMIN)).toMatchObject({ granted: true });
    const denied = await ask("someone-else");
    expect(denied.granted).toBe(false);
    expect(denied.deniedReason).toContain(ADMIN);
    // The Lease object in kube-apiserver names the holder (in the namespace the coordinator made itself).
    const lease = await http.request<any>("GET", `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases/${node}`);
    expect(lease.spec.holderIdentity).toContain(ADMIN);
    expect((await clients.call(clients.lease, clients.lease.release, { node, holder: ADMIN })).released).toBe(true);
    await until("lease.granted and lease.denied events", () => events.count("lease.granted", (m) => m.lease?.holder === ADMIN) === 1 && events.count("lease.denied", (m) => m.node === node) === 1, 30_000);
  });

  it("updates every node through leases and evictions, and reports the update complete once", async () => {
    const t = Date.now();
    await sim.upgrade(TARGET);
    await until("some node updating", async () => (await records()).some((r) => r.phase !== "Updated"), 120_000, explain);
    await until("every node updated in the aggregator's view", async () => {
      const recs = await records();
      return recs.length === TOTAL && recs.every((r) => r.assessment === "Completed" && r.phase === "Updated");
    }, 300_000, explain);
    await until("update.completed for the target", () => events.count("update.completed", (m) => m.version === TARGET) > 0, 120_000, explain);
    timings.update = (Date.now() - t) / 1000;
    expect(events.count("update.completed", (m) => m.version === TARGET)).toBe(1);

    // The MCO (cluster-sim, cooperating) held an Update lease for each node it updated, none left behind.
    const mco = (m: any) => m.lease?.holder === "machine-config-controller/update";
    const holders = events.events.filter((e) => e.fact === "lease.granted").map((e) => (e.message as any).lease?.holder);
    expect(events.count("lease.granted", mco), JSON.stringify(holders)).toBeGreaterThanOrEqual(TOTAL);
    await until("all update leases released", async () => (await heldLeases()).length === 0, 60_000, explain);

    // Drains evicted the workload pods through the PDB (status kept by the stand-in).
    const stats = sim.stats();
    expect(stats.byVerb["create pods/eviction"] ?? 0).toBeGreaterThanOrEqual(4);
    expect(controller.writes()).toBeGreaterThan(0);

    // Skew evaluated on the way and the end state upgradeable; per-node insights published.
    expect(events.count("skew.evaluated")).toBeGreaterThan(0);
    expect(events.count("insight.changed")).toBeGreaterThanOrEqual(TOTAL);
    const skew = await clients.call(clients.skew, clients.skew.getSkewReport, {});
    expect(skew.report).toMatchObject({ upgradeable: true, updateComplete: true });
    const cv = await http.request<any>("GET", "/apis/config.openshift.io/v1/clusterversions/version");
    expect(cv.status.history[0]).toMatchObject({ version: TARGET, state: "Completed" });
    // No service crashed on the way.
    for (const [name, p] of system.processes) expect(p.running, name).toBe(true);
    if (oracle.version.startsWith("1.20")) expect(readFileSync(join(runDir, "watcher.log"), "utf8")).toContain("older API version chosen through discovery");
  });
});
