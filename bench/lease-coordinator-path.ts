// The lease-coordinator's CPU per node change at 10,000 nodes, while nobody asks it for a lease:
// kube-sim (own process) holds BENCH_NODES worker nodes, pool "worker" (maxUnavailable 10%) and two
// DisruptionBudgets (one by pool, one by label selector); the watcher and one coordinator run from
// their dist/main.js, the coordinator with its default lease adapters. The bench rolls
// BENCH_ROLLED nodes through an MCO update at BENCH_RATE node changes/s, BENCH_LANES at a time,
// each node in six API writes (MCO Working, cordon, NotReady, Ready, uncordon, Done), so the
// coordinator sees node changes, machineconfig node signals (adapted leases acquired and released)
// and lease changes as in a real rollout. Prints the coordinator's CPU ms per 1,000 node changes
// from /proc (its idle CPU over the same time, measured before, subtracted), and the most adapted
// holds seen at once (a check that the adapters did act).
// BENCH_NODE_ARGS: node flags for the coordinator (a CPU profile). BENCH_COORDINATOR_DIST=<dir> runs another build of the coordinator (relative to the repository
// root), to compare two versions back to back under the same machine load.
// Run: pnpm --dir bench exec node --import tsx lease-coordinator-path.ts
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as grpc from "@grpc/grpc-js";
import { LeaseServiceClient } from "@lockstep/contracts";
import { freePort, startNatsServer } from "@lockstep/testing";
import { procCpuSeconds, spawnUntil, stopChild, type Child } from "./lib/proc.js";
import { sized } from "./lib/quick.js";
import { printResults, sleep, type BenchResult } from "./lib/stats.js";

const NODES = sized("BENCH_NODES", 10_000, 200);
const ROLLED = sized("BENCH_ROLLED", 500, 20);
const RATE = sized("BENCH_RATE", 100, 100);
const LANES = sized("BENCH_LANES", 10, 4);
const IDLE_S = sized("BENCH_IDLE_S", 10, 2);
const COORDINATOR_DIST = process.env.BENCH_COORDINATOR_DIST ?? "services/lease-coordinator/dist";
// Extra node flags for the coordinator process, e.g. BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=prof".
const NODE_ARGS = (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter(Boolean);
const NS = "lockstep-leases";
const MCO = "machineconfiguration.openshift.io";

/** One API write of a node's rollout: merge patches of the object or its status. */
function rolloutSteps(name: string): Array<{ path: string; body: unknown }> {
  const node = `/api/v1/nodes/${name}`;
  const ready = (status: string) => ({ status: { conditions: [{ type: "Ready", status, reason: status === "True" ? "KubeletReady" : "KubeletNotReady", message: "bench" }] } });
  const mco = (state: string, current: string) => ({ metadata: { annotations: { [`${MCO}/state`]: state, [`${MCO}/currentConfig`]: current, [`${MCO}/desiredConfig`]: "rendered-worker-new" } } });
  return [
    { path: node, body: mco("Working", "rendered-worker-old") },
    { path: node, body: { spec: { unschedulable: true } } },
    { path: `${node}/status`, body: ready("False") },
    { path: `${node}/status`, body: ready("True") },
    { path: node, body: { spec: { unschedulable: null } } },
    { path: node, body: mco("Done", "rendered-worker-new") },
  ];
}

async function api(simUrl: string, method: string, path: string, body: unknown, type = "application/json"): Promise<void> {
  const res = await fetch(`${simUrl}${path}`, { method, headers: { "content-type": type }, body: JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${(await res.text()).slice(0, 200)}`);
  await res.arrayBuffer();
}

/** Pool "worker" (every seeded node, 10% at once) and two budgets: by pool and by label selector. */
async function createPoolAndBudgets(simUrl: string): Promise<void> {
  const worker = { matchLabels: { "node-role.kubernetes.io/worker": "" } };
  await api(simUrl, "POST", `/apis/${MCO}/v1/machineconfigpools`, { apiVersion: `${MCO}/v1`, kind: "MachineConfigPool", metadata: { name: "worker" }, spec: { maxUnavailable: "10%", nodeSelector: worker } });
  const budget = (name: string, spec: Record<string, unknown>) => ({ apiVersion: "lockstep.io/v1alpha1", kind: "DisruptionBudget", metadata: { name }, spec: { maxDisrupted: "10%", ...spec } });
  await api(simUrl, "POST", "/apis/lockstep.io/v1alpha1/disruptionbudgets", budget("bench-pool", { pool: "worker" }));
  await api(simUrl, "POST", "/apis/lockstep.io/v1alpha1/disruptionbudgets", budget("bench-selector", { nodeSelector: worker }));
}

export async function benchLeaseCoordinatorPath(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), "lockstep-lease-path-"));
  const kubeconfig = join(dir, "kubeconfig");
  const nats = await startNatsServer();
  const children: Child[] = [];
  const root = fileURLToPath(new URL("..", import.meta.url));
  const b = `lease-coordinator path, ${NODES} nodes`;
  try {
    const sim = await spawnUntil(["--import", "tsx", join(root, "bench/lib/kube-sim-process.ts"), kubeconfig], { BENCH_NODES: String(NODES) }, /ready (\S+)\n/);
    children.push(sim.child);
    const simUrl = sim.match[1]!;
    await createPoolAndBudgets(simUrl);
    // One replica of each writer: no election (the bench's kube-sim has no election namespace).
    const common = { LEADER_ELECTION: "false", NATS_URL: nats.url, KUBECONFIG: kubeconfig, LOG_LEVEL: "warn", HTTP_PORT: "0" };
    children.push((await spawnUntil([join(root, "services/watcher/dist/main.js")], { ...common, LOG_LEVEL: "info", GRPC_PORT: "0", LEASE_NAMESPACES: NS }, /listening/)).child);
    const port = await freePort();
    const proc = spawn(process.execPath, [...NODE_ARGS, join(root, COORDINATOR_DIST, "main.js")], {
      env: { ...process.env, ...common, GRPC_PORT: String(port), COORDINATOR_ID: "bench-0", LEASE_AUTH: "none" },
      stdio: ["ignore", "ignore", "inherit"],
    });
    children.push({ proc, stop: () => stopChild(proc) });
    const client = new LeaseServiceClient(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
    const holds = () => new Promise<number | undefined>((res) => client.list({ operation: 0, pool: "" }, (err, r) => res(err ? undefined : r!.leases.length)));
    while ((await holds()) === undefined) await sleep(100);
    // Loaded and serving: the initial budget statuses and adapter pass settle, then idle CPU.
    await sleep(3_000);
    const pid = proc.pid!;
    const idle0 = procCpuSeconds(pid);
    await sleep(IDLE_S * 1000);
    const idlePerS = (procCpuSeconds(pid) - idle0) / IDLE_S;

    // The rollout: lanes of nodes, each node's six writes in order, writes issued at RATE per second.
    const name = (i: number) => `node-${i}.bench.internal`;
    const writes: Array<{ path: string; body: unknown }> = [];
    for (let start = 0; start < ROLLED; start += LANES) {
      const lane = Array.from({ length: Math.min(LANES, ROLLED - start) }, (_, k) => rolloutSteps(name(start + k)));
      for (let s = 0; s < 6; s++) for (const steps of lane) writes.push(steps[s]!);
    }
    let maxHolds = 0;
    const sampler = setInterval(() => void holds().then((n) => (maxHolds = Math.max(maxHolds, n ?? 0))), 250);
    const cpu0 = procCpuSeconds(pid);
    const t0 = performance.now();
    for (let i = 0; i < writes.length; i++) {
      const due = t0 + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const w = writes[i]!;
      await api(simUrl, "PATCH", w.path, w.body, "application/merge-patch+json");
    }
    // What the last changes asked for (adapter passes, budget statuses) is done within a few seconds.
    await sleep(3_000);
    clearInterval(sampler);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = procCpuSeconds(pid) - cpu0;
    client.close();
    const perK = (s: number) => (s * 1000 * 1000) / writes.length;
    return [
      { bench: b, metric: `coordinator CPU per 1,000 node changes (${writes.length} changes at ${RATE}/s, idle subtracted)`, value: perK(cpu - idlePerS * seconds), unit: "ms" },
      { bench: b, metric: "  the same, idle included", value: perK(cpu), unit: `ms (idle ${(idlePerS * 1000).toFixed(1)} ms/s)` },
      { bench: b, metric: "  adapted holds seen at once (max)", value: maxHolds, unit: "holds" },
    ];
  } finally {
    for (const c of children.reverse()) await c.stop();
    await nats.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchLeaseCoordinatorPath());
}
