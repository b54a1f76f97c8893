// Idle footprint of each Lockstep service process: all five started by the launcher against an empty
// kube-sim (OpenShift CRDs, own process) and a nats-server. Prints per service the resident memory
// (now and peak) and, from its /metrics, V8 heap used/total and external memory — the baseline every
// service pays before it holds any cluster state (target: each service <= 150 MiB at 10,000 nodes).
// Run: pnpm --dir bench exec node --import tsx service-idle.bench.ts
// Env: BENCH_IDLE_S (15) seconds to wait after all are ready; BENCH_NODE_OPTIONS passed to the services.
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { freePort, SERVICE_NAMES, startNatsServer, startSystem, type ServiceName } from "@lockstep/launcher";
import { procPeakRssMb, procRssMb, startKubeSimProcess } from "./lib/proc.js";
import { sized } from "./lib/quick.js";
import { printResults, sleep, type BenchResult } from "./lib/stats.js";

const IDLE_S = sized("BENCH_IDLE_S", 15, 1);

/** One gauge from a Prometheus text exposition (first sample), MiB. */
function gaugeMb(text: string, name: string): number {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? ([0-9.e+]+)$`, "m").exec(text);
  return m ? Number(m[1]) / 2 ** 20 : NaN;
}

export async function benchServiceIdle(): Promise<BenchResult[]> {
  const dir = mkdtempSync(join(tmpdir(), "lockstep-idle-"));
  const nats = await startNatsServer();
  const kube = await startKubeSimProcess(process.cwd());
  const kubeconfig = join(dir, "kubeconfig");
  writeFileSync(kubeconfig, kubeConfigForUrl(kube.url).exportConfig());
  const ports: Partial<Record<ServiceName, { grpc: number; http: number }>> = {};
  for (const n of SERVICE_NAMES) ports[n] = { grpc: await freePort(), http: await freePort() };
  const nodeOptions = process.env.BENCH_NODE_OPTIONS;
  const system = await startSystem({
    kubeconfig,
    natsUrl: nats.url,
    runDir: join(dir, "run"),
    ports,
    logLevel: "warn",
    env: { ...(nodeOptions ? { "*": { NODE_OPTIONS: nodeOptions } } : {}), "lease-coordinator": { LEASE_AUTH: "none" } },
  });
  const out: BenchResult[] = [];
  try {
    await sleep(IDLE_S * 1000);
    for (const name of SERVICE_NAMES) {
      const pid = system.processes.get(name)!.pid!;
      const metrics = await (await fetch(`${system.httpUrl(name)}/metrics`)).text();
      const b = "service idle";
      out.push({ bench: b, metric: `${name} RSS (peak ${procPeakRssMb(pid).toFixed(0)})`, value: procRssMb(pid), unit: "MiB" });
      out.push({ bench: b, metric: `${name} V8 heap used / total ${gaugeMb(metrics, "nodejs_heap_size_total_bytes").toFixed(0)}`, value: gaugeMb(metrics, "nodejs_heap_size_used_bytes"), unit: "MiB" });
      out.push({ bench: b, metric: `${name} external (ArrayBuffers etc.)`, value: gaugeMb(metrics, "nodejs_external_memory_bytes"), unit: "MiB" });
    }
  } finally {
    await system.stop();
    kube.stop();
    await nats.stop();
  }
  return out;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  printResults(await benchServiceIdle());
}
