// Everything the demo (and the whole-system tests) run: a nats-server, kube-sim with a generated
// cluster, cluster-sim driving it, and the five services as separate processes. With leases
// "enforced" (the demo) cluster-sim's MCO asks no one, as the real one, and the lease-coordinator's
// admission webhook, registered in kube-sim as the chart registers it, is what holds it back.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEMO_SPEC, startSimulation, type ClusterSpec, type Simulation } from "@lockstep/cluster-sim";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import {
  freePort,
  natsReplicasFor,
  portTaken,
  SERVICE_NAMES,
  startNatsCluster,
  startNatsServer,
  startSystem,
  Supervisor,
  type NatsCluster,
  type NatsServer,
  type RunningSystem,
  type ServiceName,
  type SupervisorEvent,
} from "@lockstep/launcher";
import { CoordinatorNodeLeaser } from "@lockstep/lease-client";
import { createWebhookTls, registerLeaseWebhook, waitForWebhook, WEBHOOK_SERVICE } from "./webhook.js";
import { WebhookEndpoints } from "./webhook-endpoints.js";

/** Where the election Leases live when services run as several replicas (the chart's release namespace). */
export const ELECTION_NAMESPACE = "lockstep-system";

async function ensureNamespace(url: string, name: string): Promise<void> {
  const res = await fetch(`${url}/api/v1/namespaces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name } }),
  });
  if (!res.ok && res.status !== 409) throw new Error(`cannot create namespace ${name} in kube-sim: HTTP ${res.status}`);
}

export interface EnvironmentOptions {
  runDir: string;
  spec: ClusterSpec;
  timeScale: number;
  seed?: number;
  /** Use this NATS server instead of starting one. */
  natsUrl?: string;
  /** Extra nats-server configuration when one is started here (e.g. the chart's `authorization` block). */
  natsConfig?: string;
  /**
   * Without natsUrl: start a local JetStream cluster of this many servers (1, or 3 or more) instead
   * of one server, and run the services with NATS_REPLICAS = min(n, 3).
   */
  natsCluster?: number;
  /** Extra environment for the services. */
  serviceEnv?: Parameters<typeof startSystem>[0]["env"];
  /**
   * Processes per service (default 1). With more, leader election is on (Leases in
   * lockstep-system), and the lease webhook's Service routes each call to a ready lease-coordinator
   * replica, as a Service's endpoints would.
   */
  replicas?: number;
  /** kube-sim faults at start (e.g. ["error=500:0.05"]). */
  faults?: string[];
  /**
   * "cooperate" (default): cluster-sim's MCO asks the lease-coordinator for an Update lease.
   * "enforced": it never asks (as the real MCO); the lease webhook is served and registered.
   */
  leases?: "cooperate" | "enforced";
  log?(line: string): void;
  /** Restart crashed services (and the nats-server it started) with backoff, reporting each event here. */
  onSupervisorEvent?(e: SupervisorEvent): void;
}

export interface Environment {
  runDir: string;
  nats: NatsServer | undefined;
  /** The cluster started for natsCluster (then `nats` is undefined). */
  natsCluster: NatsCluster | undefined;
  /** Every server's URL, comma-separated. */
  natsUrl: string;
  kube: KubeSim;
  kubeconfigPath: string;
  system: RunningSystem;
  sim: Simulation;
  leaser: CoordinatorNodeLeaser;
  leases: "cooperate" | "enforced";
  /** The lease webhook's address (127.0.0.1:port), when it runs. */
  webhook: string | undefined;
  supervisor: Supervisor | undefined;
  /** What is down right now (a service or nats-server waiting for its restart), for stalled steps. */
  down(): string[];
  stop(): Promise<void>;
}

// The demo's cluster; its definition lives in cluster-sim so other tools can replay the same shape.
export { DEMO_SPEC };

/** Whole starts tried when a port picked for a part was taken before the part bound it. */
const START_TRIES = 3;

export async function startEnvironment(o: EnvironmentOptions): Promise<Environment> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startOnce(o);
    } catch (err) {
      // Everything started is stopped again by now; a start that lost a port starts over on new ones.
      if (attempt >= START_TRIES || !portTaken(err)) throw err;
      o.log?.(`a port was taken by another process before its part bound it; starting again (try ${attempt + 1} of ${START_TRIES})`);
    }
  }
}

async function startOnce(o: EnvironmentOptions): Promise<Environment> {
  const log = o.log ?? (() => {});
  mkdirSync(o.runDir, { recursive: true });
  // Whatever has started is stopped again if a later part fails, newest first.
  const cleanups: Array<() => Promise<void>> = [];
  const supervisor = o.onSupervisorEvent ? new Supervisor({ onEvent: o.onSupervisorEvent }) : undefined;
  const undo = async () => {
    supervisor?.stop(); // nothing is restarted while it is being stopped
    for (const c of cleanups.reverse()) await c().catch(() => {});
  };
  try {
    const natsCluster = !o.natsUrl && o.natsCluster !== undefined ? await startNatsCluster({ size: o.natsCluster }) : undefined;
    if (natsCluster) {
      cleanups.push(() => natsCluster.stop());
      for (const server of natsCluster.servers) supervisor?.add(server);
      log(`nats cluster ${natsCluster.servers.map((sv) => `${sv.serverName} ${sv.url} (pid ${sv.pid()})`).join(", ")}`);
    }
    const nats = o.natsUrl || natsCluster ? undefined : await startNatsServer({ config: o.natsConfig });
    if (nats) {
      cleanups.push(() => nats.stop());
      supervisor?.add(nats);
    }
    const natsUrl = o.natsUrl ?? natsCluster?.urls.join(",") ?? nats!.url;
    if (!natsCluster) log(nats ? `nats-server ${natsUrl} (pid ${nats.pid()}, storage ${nats.storeDir})` : `nats-server ${natsUrl}`);
    const leases = o.leases ?? "cooperate";
    const replicas = Math.max(1, o.replicas ?? 1);
    // One webhook port per lease-coordinator replica.
    const webhookPorts: number[] = [];
    if (leases === "enforced") for (let i = 0; i < replicas; i++) webhookPorts.push(await freePort());
    const webhookPort = webhookPorts[0];
    const tls = webhookPort !== undefined ? createWebhookTls(join(o.runDir, "webhook-tls")) : undefined;
    // kube-sim has no cluster DNS: the Service the webhook configuration names maps to the processes.
    const endpoints = new WebhookEndpoints(webhookPorts);
    const webhookServiceResolver =
      webhookPort !== undefined
        ? (svc: { namespace: string; name: string }) => (svc.namespace === WEBHOOK_SERVICE.namespace && svc.name === WEBHOOK_SERVICE.name ? endpoints.pick() : undefined)
        : undefined;
    const kube = await startKubeSim({ crds: "openshift", historyLimit: 200_000, faults: o.faults, webhookServiceResolver });
    cleanups.push(() => kube.stop());
    const kubeconfigPath = join(o.runDir, "kubeconfig");
    writeFileSync(kubeconfigPath, kube.kubeconfig());
    log(`kube-sim ${kube.url} (kubeconfig ${kubeconfigPath})`);

    const ports: Partial<Record<ServiceName, { grpc: number; http: number }>> = {};
    for (const s of SERVICE_NAMES) ports[s] = { grpc: await freePort(), http: await freePort() };
    const leaseAddr = `127.0.0.1:${ports["lease-coordinator"]!.grpc}`;
    const leaser = new CoordinatorNodeLeaser({ address: leaseAddr, holder: "machine-config-controller", durationSeconds: 120 });
    const kc = kubeConfigForUrl(kube.url);
    const sim = await startSimulation({ kc, spec: o.spec, timeScale: o.timeScale, seed: o.seed ?? 7, leases, leaser: leases === "cooperate" ? leaser : undefined });
    let simStopped: Promise<void> | undefined;
    const stopSim = () => (simStopped ??= sim.stop());
    cleanups.push(stopSim);
    log(`cluster-sim: ${o.spec.masters} masters, pools ${o.spec.pools.map((p) => `${p.name}(${p.size}${p.paused ? ", paused" : ""})`).join(", ")}, ${o.timeScale}x time`);

    // The simulated cluster's callers carry no credentials: the demo runs the coordinator without
    // authentication, explicitly (the service's own default is token authentication).
    const admission: Record<string, string> = tls && webhookPort !== undefined ? { ADMISSION_TLS_CERT: tls.certPath, ADMISSION_TLS_KEY: tls.keyPath } : {};
    const env = { ...o.serviceEnv, "lease-coordinator": { LEASE_AUTH: "none", ...admission, ...o.serviceEnv?.["lease-coordinator"] } };
    if (natsCluster) env["*"] = { NATS_REPLICAS: String(natsReplicasFor(natsCluster.servers.length)), ...o.serviceEnv?.["*"] };
    // The election Leases' namespace, as the chart's release namespace.
    if (replicas > 1) await ensureNamespace(kube.url, ELECTION_NAMESPACE);
    const system = await startSystem({
      kubeconfig: kubeconfigPath,
      natsUrl,
      runDir: o.runDir,
      ports,
      env,
      supervise: supervisor,
      replicas,
      electionNamespace: ELECTION_NAMESPACE,
      replicaEnv: (service, i) => (service === "lease-coordinator" && webhookPorts[i] !== undefined ? { ADMISSION_PORT: String(webhookPorts[i]) } : undefined),
    });
    cleanups.push(() => system.stop());
    endpoints.follow((system.replicas.get("lease-coordinator") ?? []).map((r) => ({ process: r.process, http: r.http })));
    cleanups.push(async () => endpoints.stop());
    log(`services ready: ${SERVICE_NAMES.map((s) => `${s} ${system.grpcAddress(s)}`).join(", ")}`);
    if (tls && webhookPort !== undefined) {
      // Registered once it answers: its node-update webhook fails closed.
      await waitForWebhook(webhookPort, tls.caPem, 30_000);
      await registerLeaseWebhook(kube.url, tls.caPem);
      log(`lease webhook https://127.0.0.1:${webhookPort}${WEBHOOK_SERVICE.path} registered (${WEBHOOK_SERVICE.namespace}/${WEBHOOK_SERVICE.name}); cluster-sim's MCO asks for no lease`);
    }
    // Pids too, so a fault can be injected by hand (kill -9 <pid>) and its restart watched.
    log(`service pids: ${SERVICE_NAMES.map((s) => `${s} ${system.processes.get(s)?.pid}`).join(", ")}`);

    return {
      runDir: o.runDir,
      nats,
      natsCluster,
      natsUrl,
      kube,
      kubeconfigPath,
      system,
      sim,
      leaser,
      leases,
      webhook: webhookPort !== undefined ? `127.0.0.1:${webhookPort}` : undefined,
      supervisor,
      down: () => {
        const down = supervisor?.down().map((d) => `${d.name} is down (restart ${d.attempt} pending)`) ?? [];
        for (const r of [...system.replicas.values()].flat()) {
          const name = r.process.name;
          if (!r.process.running && !down.some((d) => d.startsWith(`${name} `))) down.push(`${name} is not running`);
        }
        return down;
      },
      // sim first (it writes to kube-sim through the lease-coordinator), then the services, kube-sim, nats.
      stop: async () => {
        supervisor?.stop();
        await stopSim().catch(() => {});
        await undo();
      },
    };
  } catch (err) {
    await undo();
    throw err;
  }
}
