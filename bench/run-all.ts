// `pnpm bench`: runs every benchmark in turn, prints one table and writes the figures as JSON.
// Each benchmark starts its own servers; run them on an otherwise idle machine.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { benchClusterSim } from "./cluster-sim-scale.js";
import { benchKubeSim } from "./kube-sim.bench.js";
import { benchLease } from "./lease.bench.js";
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
  ["system", benchSystem],
];

const only = process.argv.slice(2);
const results: BenchResult[] = [];
for (const [name, run] of benches) {
  if (only.length && !only.includes(name)) continue;
  console.error(`bench: ${name} …`);
  const t0 = Date.now();
  try {
    results.push(...(await run()));
  } catch (err) {
    results.push({ bench: name, metric: `failed: ${(err as Error).message}`, value: NaN, unit: "", ok: false });
  }
  console.error(`bench: ${name} done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
}
console.log("");
printResults(results);
const dir = join(process.cwd(), "..", ".runs");
mkdirSync(dir, { recursive: true });
const file = join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
writeFileSync(file, JSON.stringify({ at: new Date().toISOString(), node: process.version, results }, null, 2));
console.log(`\nfigures written to ${file}`);
process.exit(0);
