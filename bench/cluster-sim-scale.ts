// cluster-sim at scale: the scale-10k scenario (10,000 workers + 3 masters, kubelet heartbeats on) on
// kube-sim. kube-sim runs in a child process so the simulator's own CPU and memory are measured apart.
// Prints: generation time and create rate; CPU, RSS and API write rate while idle with heartbeats, and
// while an update rolls (time scale 60x) with heartbeats.
// Run: pnpm --dir bench exec node --import tsx cluster-sim-scale.ts
// Env: BENCH_WORKERS (10000), BENCH_IDLE_S (30), BENCH_ROLL_S (60), BENCH_HEARTBEAT_MS (scenario: 60000).
import { kubeConfigForUrl, loadScenario, renderedName, startSimulation } from "@lockstep/cluster-sim";
import { procCpuSeconds, procRssMb, startKubeSimProcess } from "./lib/proc.js";
import { QUICK, sized } from "./lib/quick.js";
import { printResults, sleep, type BenchResult } from "./lib/stats.js";

const WORKERS = sized("BENCH_WORKERS", 10_000, 200);
const IDLE_S = sized("BENCH_IDLE_S", 30, 1);
const ROLL_S = sized("BENCH_ROLL_S", 60, 2);

export async function benchClusterSim(): Promise<BenchResult[]> {
  const sc = await loadScenario("scale-10k");
  const spec = { ...sc.cluster, pools: sc.cluster.pools.map((p) => ({ ...p, size: WORKERS })) };
  const heartbeat = { intervalMs: Number(process.env.BENCH_HEARTBEAT_MS ?? sc.heartbeat?.intervalMs ?? 60_000) };
  const ks = await startKubeSimProcess(import.meta.dirname);
  const out: BenchResult[] = [];
  const b = "cluster-sim scale-10k";
  try {
    const t0 = performance.now();
    // A smoke run skips the control plane's operators: it only has to reach the rolling window.
    const none = { duration: 0, jitter: 0 };
    const timing = QUICK ? { ...sc.timing, cvoAccept: none, operator: none } : sc.timing;
    const sim = await startSimulation({ kc: kubeConfigForUrl(ks.url), spec, timeScale: sc.timeScale, seed: sc.seed, timing, heartbeat, writeConcurrency: 64 });
    const genS = (performance.now() - t0) / 1000;
    const nodes = sim.world.list("node").length;
    out.push({ bench: b, metric: `generate + create + sync ${nodes} nodes, ${sim.stats().created} objects`, value: genS, unit: "s" });
    out.push({ bench: b, metric: "create rate", value: sim.stats().created / genS, unit: "objects/s" });

    const window = async (label: string, seconds: number) => {
      const w0 = sim.stats().writes;
      const h0 = sim.stats().heartbeats;
      const c0 = process.cpuUsage();
      const k0 = procCpuSeconds(ks.pid);
      const s0 = performance.now();
      let peakRss = 0;
      let peakKs = 0;
      for (let i = 0; i < seconds; i++) {
        await sleep(1000);
        peakRss = Math.max(peakRss, process.memoryUsage().rss / 2 ** 20);
        peakKs = Math.max(peakKs, procRssMb(ks.pid));
      }
      const el = (performance.now() - s0) / 1000;
      const c = process.cpuUsage(c0);
      const st = sim.stats();
      out.push({ bench: b, metric: `${label}: API writes`, value: (st.writes - w0) / el, unit: "writes/s" });
      out.push({ bench: b, metric: `${label}: heartbeats`, value: (st.heartbeats - h0) / el, unit: "/s" });
      out.push({ bench: b, metric: `${label}: simulator CPU`, value: ((c.user + c.system) / 1e6 / el) * 100, unit: "% of 1 core", target: "< 100" , ok: ((c.user + c.system) / 1e6 / el) * 100 < 100 });
      out.push({ bench: b, metric: `${label}: simulator RSS (peak)`, value: peakRss, unit: "MiB" });
      out.push({ bench: b, metric: `${label}: kube-sim CPU`, value: ((procCpuSeconds(ks.pid) - k0) / el) * 100, unit: "% of 1 core" });
      out.push({ bench: b, metric: `${label}: kube-sim RSS (peak)`, value: peakKs, unit: "MiB" });
    };

    await sleep(QUICK ? 500 : 5000); // let the workload pods start
    await window(`idle, heartbeats every ${heartbeat.intervalMs / 1000} s`, IDLE_S);
    const target = (sc.steps.find((s) => "upgrade" in s) as { upgrade: { version: string } } | undefined)?.upgrade.version ?? "4.15.4";
    const u0 = performance.now();
    await sim.upgrade(target);
    const want = renderedName("worker", target);
    await sim.waitFor(() => sim.world.get("pool", "worker")?.spec?.configuration?.name === want, 600_000, "the MCO step of the update");
    out.push({ bench: b, metric: "control plane reaches the MCO step", value: (performance.now() - u0) / 1000, unit: "s" });
    await window(`workers rolling at ${sc.timeScale}x`, ROLL_S);
    const onTarget = sim.world.list("node").filter((n) => n.metadata.annotations?.["machineconfiguration.openshift.io/currentConfig"] === want).length;
    out.push({ bench: b, metric: `workers on the new config after ${ROLL_S} s of rolling (${(ROLL_S * sc.timeScale) / 60} simulated min)`, value: onTarget, unit: "nodes" });
    out.push({ bench: b, metric: "write conflicts (409) in total", value: sim.stats().conflicts, unit: "" });
    await sim.stop();
  } finally {
    ks.stop();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchClusterSim());
  process.exit(0);
}
