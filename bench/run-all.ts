// `pnpm bench`: runs every benchmark in turn, prints one table (each figure with its target, MET or
// MISSED) and writes the figures as JSON. Each benchmark starts its own servers; run them on an
// otherwise idle machine: the header prints the load average so a reader can judge.
// `pnpm bench -- system lease` runs only those; BENCH_QUICK=1 runs every bench small (a smoke run
// whose figures mean nothing; bench/run-all.test.ts uses it).
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, loadavg } from "node:os";
import { join } from "node:path";
import { benchCliStartup } from "./cli-startup.bench.js";
import { benchClusterSim } from "./cluster-sim-scale.js";
import { benchFailover } from "./failover.bench.js";
import { benchKubeSim } from "./kube-sim.bench.js";
import { benchLease } from "./lease.bench.js";
import { QUICK } from "./lib/quick.js";
import { printResults, type BenchResult } from "./lib/stats.js";
import { benchStatusAggregator } from "./status-aggregator.js";
import { benchServiceIdle } from "./service-idle.bench.js";
import { benchSystem } from "./system.bench.js";
import { benchWatcher } from "./watcher.bench.js";
import { benchWebhook } from "./webhook.bench.js";

const benches: Array<[string, () => Promise<BenchResult[]>]> = [
  ["kube-sim", benchKubeSim],
  ["watcher", benchWatcher],
  ["status-aggregator", benchStatusAggregator],
  ["lease", benchLease],
  ["webhook", benchWebhook],
  ["cluster-sim", benchClusterSim],
  ["service-idle", benchServiceIdle],
  // The niced variant (kube-sim, nats-server and cluster-sim at a lower priority) shows the services'
  // own latency beside the figure with the harness competing for the two cores; a smoke run skips it.
  ["system", async () => [...(await benchSystem()), ...(QUICK ? [] : await benchSystem({ niceHarness: true }))]],
  ["failover", benchFailover],
  ["cli-startup", benchCliStartup],
];

const only = process.argv.slice(2).filter((a) => a !== "--");
const unknown = only.filter((n) => !benches.some(([b]) => b === n));
if (unknown.length) {
  console.error(`unknown bench ${unknown.join(", ")}; known: ${benches.map(([b]) => b).join(", ")}`);
  process.exit(2);
}
const load = () => loadavg().map((l) => l.toFixed(2)).join(" ");
const header = `${new Date().toISOString()}, node ${process.version}, ${availableParallelism()} cores (${cpus()[0]?.model ?? "?"}), loadavg at start ${load()}${QUICK ? ", QUICK (smoke run: figures mean nothing)" : ""}`;
console.log(header);
const results: BenchResult[] = [];
for (const [name, run] of benches) {
  if (only.length && !only.includes(name)) continue;
  console.error(`bench: ${name} … (loadavg ${load()})`);
  const t0 = Date.now();
  try {
    results.push(...(await run()));
  } catch (err) {
    results.push({ bench: name, metric: `failed: ${(err as Error).message}`, value: NaN, unit: "", target: "runs", ok: false });
  }
  console.error(`bench: ${name} done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
console.log("");
printResults(results);
const targeted = results.filter((r) => r.ok !== undefined);
const missed = targeted.filter((r) => !r.ok);
console.log(`\ntargets: ${targeted.length - missed.length} MET, ${missed.length} MISSED; loadavg at end ${load()}`);
for (const r of missed) console.log(`  MISSED  ${r.bench}: ${r.metric.trim()} (${r.value} ${r.unit}, target ${r.target})`);
const dir = join(process.cwd(), "..", ".runs");
mkdirSync(dir, { recursive: true });
const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), header, node: process.version, quick: QUICK, results }, null, 2));
console.log(`\nfigures written to ${file}`);
process.exit(missed.some((r) => r.metric.startsWith("failed:")) ? 1 : 0);
