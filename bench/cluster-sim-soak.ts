// cluster-sim soak (issue 33): back-to-back z-stream updates of a big worker pool whose app is guarded
// by a PodDisruptionBudget. Every update must finish: a pod left Terminating for good (the deadlock the
// issue found on the fifth of thirty updates) holds its PDB at zero and stalls every later drain.
// kube-sim runs in a child process, the simulator in this one; nothing else runs.
// Prints: the updates finished, and the real and simulated time of the slowest and of all of them.
// Run: pnpm --dir bench exec node --import tsx cluster-sim-soak.ts
// Env: BENCH_SOAK_UPDATES (30), BENCH_SOAK_WORKERS (300), BENCH_SOAK_MAX_UNAVAILABLE (30),
//      BENCH_SOAK_TIME_SCALE (600), BENCH_SOAK_UPDATE_TIMEOUT_S (600: real seconds one update may take).
import { condition, DEFAULT_TIMING, kubeConfigForUrl, mergeTiming, parseClusterSpec, startSimulation } from "@lockstep/cluster-sim";
import { startKubeSimProcess } from "./lib/proc.js";
import { sized } from "./lib/quick.js";
import { printResults, type BenchResult } from "./lib/stats.js";

const UPDATES = sized("BENCH_SOAK_UPDATES", 30, 2);
const WORKERS = sized("BENCH_SOAK_WORKERS", 300, 12);
const MAX_UNAVAILABLE = sized("BENCH_SOAK_MAX_UNAVAILABLE", 30, 3);
const TIME_SCALE = sized("BENCH_SOAK_TIME_SCALE", 600, 600);
const UPDATE_TIMEOUT_S = sized("BENCH_SOAK_UPDATE_TIMEOUT_S", 600, 300);

export async function benchClusterSimSoak(): Promise<BenchResult[]> {
  const b = `cluster-sim soak ${WORKERS} workers`;
  const spec = parseClusterSpec({
    version: "4.15.3",
    history: ["4.15.1"],
    masters: 3,
    pools: [{ name: "worker", size: WORKERS, maxUnavailable: MAX_UNAVAILABLE }],
    // Replicas on a third of the workers, at most one of them down at a time: replacements land on
    // nodes about to be drained, the case that used to leave pods Terminating for ever.
    workloads: [{ name: "guarded", pool: "worker", replicas: Math.max(2, Math.ceil(WORKERS / 3)), pdb: { maxUnavailable: 1 } }],
  });
  const ks = await startKubeSimProcess(import.meta.dirname);
  const out: BenchResult[] = [];
  const sim = await startSimulation({ kc: kubeConfigForUrl(ks.url), spec, timeScale: TIME_SCALE, timing: mergeTiming(DEFAULT_TIMING, {}), writeConcurrency: 64 });
  let done = 0;
  let slowest = 0;
  const t0 = performance.now();
  try {
    for (let i = 1; i <= UPDATES; i++) {
      const target = `4.15.${3 + i}`;
      const u0 = performance.now();
      await sim.upgrade(target);
      await sim.waitFor(
        () => condition(sim, { for: "controlPlaneUpdated" }, target) && condition(sim, { for: "allPoolsUpdated" }, target),
        UPDATE_TIMEOUT_S * 1000,
        `update ${i} of ${UPDATES} to ${target}: control plane Completed and every worker on its config (terminating pods: ${sim.world.list("pod").filter((p) => p.metadata.deletionTimestamp).length})`,
      );
      slowest = Math.max(slowest, (performance.now() - u0) / 1000);
      done++;
      console.error(`soak: update ${i}/${UPDATES} to ${target} done in ${((performance.now() - u0) / 1000).toFixed(1)} s`);
    }
  } finally {
    const el = (performance.now() - t0) / 1000;
    out.push({ bench: b, metric: `back-to-back updates finished (of ${UPDATES}), maxUnavailable ${MAX_UNAVAILABLE}, PDB-guarded app`, value: done, unit: "updates", target: `= ${UPDATES}`, ok: done === UPDATES });
    out.push({ bench: b, metric: `all updates, real time at ${TIME_SCALE}x`, value: el, unit: "s" });
    // The simulator's stamps are wall-clock; its stages run timeScale times faster than real time.
    out.push({ bench: b, metric: "all updates, simulated time", value: sim.clock.virtualMs(el * 1000) / 3_600_000, unit: "h" });
    out.push({ bench: b, metric: "slowest update, real time", value: slowest, unit: "s" });
    out.push({ bench: b, metric: "pods left terminating at the end", value: sim.world.list("pod").filter((p) => p.metadata.deletionTimestamp).length, unit: "pods" });
    await sim.stop();
    ks.stop();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchClusterSimSoak());
  process.exit(0);
}
