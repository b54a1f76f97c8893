// Everything the demo (and the whole-system tests) run: a nats-server, kube-sim with a generated
// cluster, cluster-sim driving it, and the five services as separate processes.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseClusterSpec, startSimulation, type ClusterSpec, type Simulation } from "@lockstep/cluster-sim";
import { kubeConfigForUrl } from "@lockstep/kube";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { freePort, SERVICE_NAMES, startNatsServer, startSystem, type NatsServer, type RunningSystem, type ServiceName } from "@lockstep/launcher";
import { CoordinatorNodeLeaser } from "@lockstep/lease-client";

export interface EnvironmentOptions {
  runDir: string;
  spec: ClusterSpec;
  timeScale: number;
  seed?: number;
  /** Use this NATS server instead of starting one. */
  natsUrl?: string;
  /** Extra environment for the services. */
  serviceEnv?: Parameters<typeof startSystem>[0]["env"];
  /** kube-sim faults at start (e.g. ["error=500:0.05"]). */
  faults?: string[];
  log?(line: string): void;
}

export interface Environment {
  runDir: string;
  nats: NatsServer | undefined;
  natsUrl: string;
  kube: KubeSim;
  kubeconfigPath: string;
  system: RunningSystem;
  sim: Simulation;
  leaser: CoordinatorNodeLeaser;
  stop(): Promise<void>;
}

export const DEMO_SPEC = parseClusterSpec({
  name: "demo",
  platform: "aws",
  region: "us-east-2",
  version: "4.15.12",
  history: ["4.14.20"],
  masters: 3,
  pools: [
    { name: "worker", size: 6, maxUnavailable: 3 },
    { name: "infra", size: 2, maxUnavailable: 1, paused: true, nodeSelector: { "node-role.kubernetes.io/infra": "" } },
  ],
  bootImageVersion: "4.15.12",
});

export async function startEnvironment(o: EnvironmentOptions): Promise<Environment> {
  const log = o.log ?? (() => {});
  mkdirSync(o.runDir, { recursive: true });
  const nats = o.natsUrl ? undefined : await startNatsServer();
  const natsUrl = o.natsUrl ?? nats!.url;
  log(`nats-server ${natsUrl}`);
  const kube = await startKubeSim({ crds: "openshift", historyLimit: 200_000, faults: o.faults });
  const kubeconfigPath = join(o.runDir, "kubeconfig");
  writeFileSync(kubeconfigPath, kube.kubeconfig());
  log(`kube-sim ${kube.url} (kubeconfig ${kubeconfigPath})`);

  const ports: Partial<Record<ServiceName, { grpc: number; http: number }>> = {};
  for (const s of SERVICE_NAMES) ports[s] = { grpc: await freePort(), http: await freePort() };
  const leaseAddr = `127.0.0.1:${ports["lease-coordinator"]!.grpc}`;
  const leaser = new CoordinatorNodeLeaser({ address: leaseAddr, holder: "machine-config-controller", durationSeconds: 120 });
  const kc = kubeConfigForUrl(kube.url);
  const sim = await startSimulation({ kc, spec: o.spec, timeScale: o.timeScale, seed: o.seed ?? 7, leaser });
  log(`cluster-sim: ${o.spec.masters} masters, pools ${o.spec.pools.map((p) => `${p.name}(${p.size}${p.paused ? ", paused" : ""})`).join(", ")}, ${o.timeScale}x time`);

  let system: RunningSystem;
  try {
    // The simulated cluster's callers carry no credentials: the demo runs the coordinator without
    // authentication, explicitly (the service's own default is token authentication).
    const env = { ...o.serviceEnv, "lease-coordinator": { LEASE_AUTH: "none", ...o.serviceEnv?.["lease-coordinator"] } };
    system = await startSystem({ kubeconfig: kubeconfigPath, natsUrl, runDir: o.runDir, ports, env });
  } catch (err) {
    await sim.stop();
    await kube.stop();
    await nats?.stop();
    throw err;
  }
  log(`services ready: ${SERVICE_NAMES.map((s) => `${s} ${system.grpcAddress(s)}`).join(", ")}`);

  return {
    runDir: o.runDir,
    nats,
    natsUrl,
    kube,
    kubeconfigPath,
    system,
    sim,
    leaser,
    stop: async () => {
      await sim.stop().catch(() => {});
      await system.stop().catch(() => {});
      await kube.stop().catch(() => {});
      await nats?.stop().catch(() => {});
    },
  };
}
