// kube-sim benchmark: the server runs in its own process. Writes and lists go through an undici Pool
// (32 requests in flight over BENCH_CONNECTIONS keep-alive connections, HTTP/1.1 pipelined), because
// with node:http clients on a 2-core machine the client side, not the server, was the limit.
// Prints: creates/s and merge-patches/s with 32 concurrent clients, list latency for 10,000 nodes
// (response fully received, and parsed, separately), and watch fan-out delay (p50/p99) from write to
// receipt by 10 watchers.
// Run: pnpm --dir bench exec node --import tsx kube-sim.bench.ts
import { spawn, type ChildProcess } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { Pool } from "undici";
import { sized } from "./lib/quick.js";
import { printResults, summary, type BenchResult } from "./lib/stats.js";

const CLIENTS = 32;
/** Connections the 32 in-flight requests share; each pipelines CLIENTS / CONNECTIONS requests. */
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const CREATES = sized("BENCH_CREATES", 20_000, 500);
const PATCHES = sized("BENCH_PATCHES", 20_000, 500);
const LIST_NODES = sized("BENCH_LIST_NODES", 10_000, 200);
const WATCHERS = 10;
const FANOUT_EVENTS = sized("BENCH_FANOUT_EVENTS", 2_000, 100);

let pool: Pool | undefined;

async function http(base: string, method: string, path: string, body?: unknown, contentType = "application/json"): Promise<{ status: number; text: string }> {
  pool ??= new Pool(base, { connections: CONNECTIONS, pipelining: Math.ceil(CLIENTS / CONNECTIONS), keepAliveTimeout: 60_000 });
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string> = { accept: "application/json" };
  if (payload) headers["content-type"] = contentType;
  const res = await pool.request({ method: method as "GET", path, headers, body: payload });
  return { status: res.statusCode, text: await res.body.text() };
}

async function startServer(): Promise<{ url: string; child: ChildProcess }> {
  const entry = fileURLToPath(import.meta.resolve("@lockstep/kube-sim"));
  const code = `const { startKubeSim } = await import(${JSON.stringify(entry)});
const sim = await startKubeSim({ historyLimit: 50000 });
console.log(sim.url);
process.on("SIGTERM", async () => { await sim.stop(); process.exit(0); });`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.once("data", (d: Buffer) => resolve(d.toString().trim()));
    child.once("exit", (c) => reject(new Error(`kube-sim exited with ${c}`)));
  });
  return { url, child };
}

/** Runs `total` operations over `clients` concurrent loops; returns ops/s. */
async function concurrent(total: number, clients: number, op: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let i = next++; i < total; i = next++) await op(i);
    }),
  );
  return total / ((performance.now() - start) / 1000);
}

function node(i: number): unknown {
  const name = `worker-${String(i).padStart(5, "0")}.bench.internal`;
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { "kubernetes.io/hostname": name, "node-role.kubernetes.io/worker": "", "topology.kubernetes.io/zone": `zone-${i % 3}` },
      annotations: {
        "machineconfiguration.openshift.io/currentConfig": "rendered-worker-0123456789abcdef",
        "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-0123456789abcdef",
        "machineconfiguration.openshift.io/state": "Done",
      },
    },
    spec: { providerID: `aws:///us-east-1a/i-${i.toString(16).padStart(12, "0")}` },
    status: {
      conditions: ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready"].map((type) => ({
        type,
        status: type === "Ready" ? "True" : "False",
        lastHeartbeatTime: "2026-01-01T00:00:00Z",
        lastTransitionTime: "2026-01-01T00:00:00Z",
        reason: type === "Ready" ? "KubeletReady" : `KubeletHasNo${type}`,
        message: "kubelet is posting ready status",
      })),
      addresses: [
        { type: "InternalIP", address: `10.0.${(i >> 8) & 255}.${i & 255}` },
        { type: "Hostname", address: name },
      ],
      nodeInfo: { kubeletVersion: "v1.31.0", osImage: "Red Hat Enterprise Linux CoreOS 418.94", containerRuntimeVersion: "cri-o://1.31.0", architecture: "amd64" },
      capacity: { cpu: "8", memory: "32Gi", pods: "250" },
      allocatable: { cpu: "7500m", memory: "30Gi", pods: "250" },
    },
  };
}

/** A raw watch that records the delay between the `sent` annotation and receipt of each event. */
function openWatch(base: string, path: string, delays: number[]): Promise<() => void> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { agent: new Agent({ keepAlive: false }) }, (res) => {
      let buf = "";
      res.setEncoding("utf8");
      res.on("data", (c: string) => {
        const now = performance.timeOrigin + performance.now();
        buf += c;
        let i: number;
        while ((i = buf.indexOf("\n")) >= 0) {
          const line = buf.slice(0, i);
          buf = buf.slice(i + 1);
          const sent = /"bench\/sent":"([\d.]+)"/.exec(line);
          if (sent) delays.push(now - Number(sent[1]));
        }
      });
      resolve(() => req.destroy());
    });
    req.on("error", (e) => (String(e).includes("socket hang up") ? undefined : reject(e)));
    req.end();
  });
}

async function serverCpuMs(url: string): Promise<number> {
  const s = JSON.parse((await http(url, "GET", "/_sim/stats")).text) as { cpuMs: number };
  return s.cpuMs;
}

export async function benchKubeSim(): Promise<BenchResult[]> {
  const { url, child } = await startServer();
  const results: BenchResult[] = [];
  try {
    const CM = "/api/v1/namespaces/default/configmaps";
    // Warm-up (JIT, connections) in another namespace, outside the timed and counted runs.
    const WARM = "/api/v1/namespaces/kube-system/configmaps";
    await concurrent(2_000, CLIENTS, async (i) => void (await http(url, "POST", WARM, { metadata: { name: `warm-${i}` }, data: { v: "0" } })));
    await concurrent(2_000, CLIENTS, async (i) => void (await http(url, "PATCH", `${WARM}/warm-${i}`, { data: { v: "1" } }, "application/merge-patch+json")));
    const cpu0 = await serverCpuMs(url);
    const createRate = await concurrent(CREATES, CLIENTS, async (i) => {
      const r = await http(url, "POST", CM, { metadata: { name: `cm-${i}`, labels: { bench: "yes" } }, data: { v: "0" } });
      if (r.status !== 201) throw new Error(`create ${r.status}: ${r.text}`);
    });
    const cpu1 = await serverCpuMs(url);
    results.push({ bench: "kube-sim", metric: `creates/s over HTTP (${CLIENTS} in flight, ${CONNECTIONS} conns, undici)`, value: createRate, unit: "ops/s", target: ">= 5000", ok: createRate >= 5000 });
    const patchRate = await concurrent(PATCHES, CLIENTS, async (i) => {
      const r = await http(url, "PATCH", `${CM}/cm-${i % CREATES}`, { data: { v: String(i) } }, "application/merge-patch+json");
      if (r.status !== 200) throw new Error(`patch ${r.status}: ${r.text}`);
    });
    const cpu2 = await serverCpuMs(url);
    const createCpu = ((cpu1 - cpu0) * 1000) / CREATES;
    const patchCpu = ((cpu2 - cpu1) * 1000) / PATCHES;
    results.push({ bench: "kube-sim", metric: "server CPU per create (HTTP incl.)", value: createCpu, unit: "µs" });
    results.push({ bench: "kube-sim", metric: "server capacity, creates (1 core, from CPU/op)", value: 1e6 / createCpu, unit: "ops/s", target: ">= 5000", ok: 1e6 / createCpu >= 5000 });
    results.push({ bench: "kube-sim", metric: "server CPU per merge patch (HTTP incl.)", value: patchCpu, unit: "µs" });
    results.push({ bench: "kube-sim", metric: "server capacity, merge patches (1 core, from CPU/op)", value: 1e6 / patchCpu, unit: "ops/s", target: ">= 5000", ok: 1e6 / patchCpu >= 5000 });
    const check = JSON.parse((await http(url, "GET", "/api/v1/namespaces/default/configmaps?limit=1")).text);
    if (check.metadata.remainingItemCount + 1 !== CREATES) throw new Error("creates missing");
    results.push({ bench: "kube-sim", metric: `merge-patches/s over HTTP (${CLIENTS} in flight, ${CONNECTIONS} conns, undici)`, value: patchRate, unit: "ops/s", target: ">= 5000", ok: patchRate >= 5000 });

    const nodeRate = await concurrent(LIST_NODES, CLIENTS, async (i) => {
      const r = await http(url, "POST", "/api/v1/nodes", node(i));
      if (r.status !== 201) throw new Error(`node create ${r.status}: ${r.text}`);
    });
    results.push({ bench: "kube-sim", metric: "node creates/s (10k, ~2 KB each)", value: nodeRate, unit: "ops/s" });
    const listTimes: number[] = [];
    const parseTimes: number[] = [];
    let bytes = 0;
    for (let run = 0; run < 10; run++) {
      const t0 = performance.now();
      const r = await http(url, "GET", "/api/v1/nodes");
      const t1 = performance.now(); // full body received (as a string)
      const items = (JSON.parse(r.text) as { items: unknown[] }).items.length;
      listTimes.push(t1 - t0);
      parseTimes.push(performance.now() - t1);
      if (items !== LIST_NODES) throw new Error(`listed ${items} nodes`);
      bytes = r.text.length;
    }
    const ls = summary(listTimes);
    results.push({ bench: "kube-sim", metric: `list 10,000 nodes p50, response received (${(bytes / 1e6).toFixed(1)} MB)`, value: ls.p50, unit: "ms", target: "< 200", ok: ls.p50 < 200 });
    results.push({ bench: "kube-sim", metric: "list 10,000 nodes max, response received", value: ls.max, unit: "ms" });
    results.push({ bench: "kube-sim", metric: "client JSON.parse of that list p50", value: summary(parseTimes).p50, unit: "ms" });
    const totals = summary(listTimes.map((t, i) => t + parseTimes[i]!));
    results.push({ bench: "kube-sim", metric: "list 10,000 nodes p50, received + parsed", value: totals.p50, unit: "ms", target: "< 200", ok: totals.p50 < 200 });

    const delays: number[] = [];
    const closers = await Promise.all(Array.from({ length: WATCHERS }, () => openWatch(url, `/api/v1/nodes?watch=true&resourceVersion=0&fieldSelector=metadata.name%3D${encodeURIComponent("worker-00000.bench.internal")}`, delays)));
    await new Promise((r) => setTimeout(r, 200));
    delays.length = 0;
    for (let i = 0; i < FANOUT_EVENTS; i++) {
      const sent = (performance.timeOrigin + performance.now()).toFixed(3);
      const r = await http(url, "PATCH", "/api/v1/nodes/worker-00000.bench.internal", { metadata: { annotations: { "bench/sent": sent } } }, "application/merge-patch+json");
      if (r.status !== 200) throw new Error(`fan-out patch ${r.status}`);
      if (i % 50 === 0) await new Promise((res) => setTimeout(res, 2));
    }
    await new Promise((r) => setTimeout(r, 300));
    for (const c of closers) c();
    const fs = summary(delays);
    results.push({ bench: "kube-sim", metric: `watch fan-out to ${WATCHERS} watchers p50 (${fs.n} deliveries)`, value: fs.p50, unit: "ms" });
    results.push({ bench: "kube-sim", metric: `watch fan-out to ${WATCHERS} watchers p99`, value: fs.p99, unit: "ms", target: "< 20", ok: fs.p99 < 20 });
  } finally {
    child.kill("SIGTERM");
    await pool?.close();
    pool = undefined;
  }
  return results;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  printResults(await benchKubeSim());
}
