// Set-up of the whole-system oracle tests: kube-apiserver 1.20 (scripts/oracle/) with the CRDs kube-sim
// serves, the PDB status stand-in, nats-server, cluster-sim and the five services as processes, plus
// helpers that read where things stand. Leases "cooperate": cluster-sim's MCO asks the lease-coordinator;
// "enforced": it never asks, acts as the MCO's ServiceAccounts, and the lease-coordinator's admission
// webhook, registered in kube-apiserver, is what holds it back.
import { execFileSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeBus, connectBus, ensureStateBucket, StateCache } from "@lockstep/bus";
import { MCO_CONTROLLER_SA, MCO_DAEMON_SA, parseClusterSpec, startSimulation, type Simulation } from "@lockstep/cluster-sim";
import { Clients, createWebhookTls, EventLog, leaseWebhookConfiguration, waitForWebhook } from "@lockstep/demo";
import { ApiDiscovery, KubeHttp, Resources } from "@lockstep/kube";
import { loadKubeConfig } from "@lockstep/kube/client-node";
import { freePort, SERVICE_NAMES, startNatsServer, startSystem, type NatsServer, type RunningSystem, type ServiceName } from "@lockstep/launcher";
import { CoordinatorNodeLeaser } from "@lockstep/lease-client";
import { waitFor } from "@lockstep/testing";
import { startOracle, type Oracle } from "../../scripts/oracle/oracle.mjs";
import { toolOrSkip } from "../../scripts/tools.mjs";
import { startDisruptionController } from "./disruption.js";

const REPO = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const CRD_DIRS = ["openshift", "lockstep", "medik8s"].map((d) => join(REPO, "packages", "kube-sim", "crds", d));
const MCO_NAMESPACE = "openshift-machine-config-operator";
export const LEASE_NAMESPACE = "lockstep-leases";
export const CURRENT = "4.15.12";
export const TARGET = "4.15.14";
/** The demo story's admin: the holder of the maintenance lease. */
export { ADMIN } from "@lockstep/demo";
export const TOTAL = 7;

export const SPEC = parseClusterSpec({
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

export const kubectl = toolOrSkip("kubectl");

/** Polls `check` every 500 ms until it is truthy; on a timeout the error adds what `explain` says. */
export function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs: number, explain?: () => Promise<string> | string): Promise<T> {
  return waitFor(check, { what, timeoutMs, intervalMs: 500, explain }) as Promise<T>;
}

export interface OracleSystem {
  oracle: Oracle;
  http: KubeHttp;
  sim: Simulation;
  system: RunningSystem;
  clients: Clients;
  events: EventLog;
  cache: StateCache;
  controller: ReturnType<typeof startDisruptionController>;
  runDir: string;
  timings: Record<string, number>;
  records(): Promise<Array<{ name: string; pool: string; assessment: string | undefined; phase: string | undefined }>>;
  /** Node Leases held: "node: holder". */
  heldLeases(): Promise<string[]>;
  /** Where the rollout stands, for a failure message. */
  explain(): Promise<string>;
  stop(): Promise<void>;
}

export async function startOracleSystem(o: { leases: "cooperate" | "enforced" }): Promise<OracleSystem> {
  const timings: Record<string, number> = {};
  const cleanups: Array<() => Promise<unknown> | unknown> = [];
  const stop = async () => {
    // Newest first: the simulation before the services, the services before nats-server and the oracle.
    for (const c of cleanups.reverse()) await Promise.resolve(c()).catch(() => {});
    process.stderr.write(`oracle system test (${o.leases}) timings (s): ${JSON.stringify(timings)}\n`);
  };
  const runDir = mkdtempSync(join(tmpdir(), `lockstep-oracle-${o.leases}-`));
  try {
    const started = Date.now();
    const oracle = await startOracle();
    cleanups.push(() => oracle.stop());
    timings.oracleStart = oracle.startSeconds;
    const kube = (...args: string[]) => execFileSync(kubectl.path!, ["--kubeconfig", oracle.kubeconfig, ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

    let t = Date.now();
    kube("apply", "--server-side", ...CRD_DIRS.flatMap((d) => ["-f", d]));
    kube("wait", "--for", "condition=established", "--timeout=60s", "crd", "--all");
    timings.crds = (Date.now() - t) / 1000;
    if (o.leases === "enforced") {
      // The MCO's ServiceAccounts may do what the MCO does (on OpenShift its ClusterRoles; here all of it:
      // what is under test is the lease webhook's refusal, not RBAC).
      kube("create", "clusterrolebinding", "oracle-mco", "--clusterrole=cluster-admin", `--serviceaccount=${MCO_NAMESPACE}:${MCO_CONTROLLER_SA}`, `--serviceaccount=${MCO_NAMESPACE}:${MCO_DAEMON_SA}`);
    }

    const kc = loadKubeConfig(oracle.kubeconfig);
    const http = new KubeHttp(kc, 4);
    const pdb = await new ApiDiscovery(kc).served(Resources.podDisruptionBudget);
    const controller = startDisruptionController(kc, pdb.apiVersion);
    cleanups.push(() => controller.stop());

    const nats: NatsServer = await startNatsServer();
    cleanups.push(() => nats.stop());
    const ports: Partial<Record<ServiceName, { grpc: number; http: number }>> = {};
    for (const s of SERVICE_NAMES) ports[s] = { grpc: await freePort(), http: await freePort() };
    const leaser = o.leases === "cooperate" ? new CoordinatorNodeLeaser({ address: `127.0.0.1:${ports["lease-coordinator"]!.grpc}`, holder: "machine-config-controller", durationSeconds: 120 }) : undefined;
    if (leaser) cleanups.push(() => leaser.close());

    t = Date.now();
    const sim = await startSimulation({ kc, spec: SPEC, timeScale: 120, seed: 7, leases: o.leases, leaser });
    cleanups.push(() => sim.stop());
    timings.generate = (Date.now() - t) / 1000;

    t = Date.now();
    const webhookPort = o.leases === "enforced" ? await freePort() : undefined;
    const tls = webhookPort !== undefined ? createWebhookTls(join(runDir, "webhook-tls")) : undefined;
    const admission: Record<string, string> = tls ? { ADMISSION_TLS_CERT: tls.certPath, ADMISSION_TLS_KEY: tls.keyPath, ADMISSION_PORT: String(webhookPort) } : {};
    const system = await startSystem({ kubeconfig: oracle.kubeconfig, natsUrl: nats.url, runDir, ports, env: { "lease-coordinator": { LEASE_AUTH: "none", ...admission } } });
    cleanups.push(() => system.stop());
    timings.services = (Date.now() - t) / 1000;
    if (tls && webhookPort !== undefined) {
      await waitForWebhook(webhookPort, tls.caPem, 30_000);
      // The chart's configuration, reaching the process by URL: the oracle has no Service network (no
      // kube-proxy, no endpoints), so a service reference would go to a ClusterIP nothing answers on.
      const config = leaseWebhookConfiguration(tls.caPem) as { webhooks: Array<{ clientConfig: Record<string, unknown> }> };
      for (const w of config.webhooks) w.clientConfig = { url: `https://127.0.0.1:${webhookPort}/validate`, caBundle: tls.caPem.toString("base64") };
      await http.request("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", { body: config });
    }
    const clients = new Clients(system);
    cleanups.push(() => clients.close());

    const nc = await connectBus({ servers: nats.url, name: `oracle-${o.leases}` });
    cleanups.push(() => closeBus(nc));
    const events = new EventLog();
    const abort = new AbortController();
    const feeding = events.start(nc, abort.signal);
    cleanups.push(async () => {
      abort.abort();
      await feeding.catch(() => {});
    });
    const cache = new StateCache(await ensureStateBucket(nc));
    await cache.start();
    cleanups.push(() => cache.stop());
    timings.setup = (Date.now() - started) / 1000;

    const records = async () =>
      ((await clients.call(clients.status, clients.status.getUpdateStatus, { omitNodes: false })).status?.nodes ?? []).map((n) => ({ name: n.name, pool: n.pool, assessment: n.record?.assessment, phase: n.record?.phase }));
    const heldLeases = async () =>
      (await http.request<{ items: any[] }>("GET", `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases`)).items
        .filter((l) => !String(l.metadata.name).startsWith("lockstep-slot.") && l.spec?.holderIdentity)
        .map((l) => `${l.metadata.name}: ${l.spec.holderIdentity}`);
    const explain = async () => {
      const nodes = (await http.request<{ items: any[] }>("GET", "/api/v1/nodes")).items.map((n) => {
        const a = (k: string) => n.metadata.annotations?.[`machineconfiguration.openshift.io/${k}`] ?? "";
        return `  node ${n.metadata.name}: state=${a("state") || "-"} ${a("currentConfig")}${a("currentConfig") === a("desiredConfig") ? "" : ` -> ${a("desiredConfig")}`}${n.spec?.unschedulable ? " cordoned" : ""}${a("reason") ? ` reason=${a("reason")}` : ""}`;
      });
      const stats = sim.stats();
      return [
        ...nodes,
        `  leases: ${(await heldLeases().catch(() => [])).join(", ") || "none held"}`,
        `  aggregator: ${JSON.stringify(await records().catch(() => []))}`,
        `  cluster-sim: ${stats.writes} writes, ${stats.errors} errors ${JSON.stringify(stats.errorSamples)}`,
        `  disruption stand-in: ${controller.writes()} status writes, last error ${controller.lastError() ?? "none"}`,
      ].join("\n");
    };
    return { oracle, http, sim, system, clients, events, cache, controller, runDir, timings, records, heldLeases, explain, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
