// The forecast against an actual run: the demo's cluster (DEMO_SPEC) is
// rehearsed to a z-stream, then the same cluster runs the same update in cluster-sim over kube-sim
// (real HTTP, scaled wall clock). Prints, per pool, forecast and actual start offset and duration
// (simulated minutes from the upgrade request) and the error.
// Run (from packages/rehearse): node --import tsx scripts/compare-demo.ts [timeScale=300] [seed=7]
import { DEMO_SPEC, generateCluster, kubeConfigForUrl, MCO_ANNOTATIONS as A, renderedName, startSimulation } from "@lockstep/cluster-sim";
import { startKubeSim } from "@lockstep/kube-sim";
import { rehearse, snapshotOf } from "../src/index.js";

const timeScale = Number(process.argv[2] ?? 300);
const seed = Number(process.argv[3] ?? 7);
const TO = "4.15.13";
// The demo's cluster with its infra pool unpaused, so that every pool finishes.
const spec = { ...DEMO_SPEC, seed, pools: DEMO_SPEC.pools.map((p) => ({ ...p, paused: false })) };

const start = new Date();
const f0 = start.getTime();
const forecast = rehearse(snapshotOf(generateCluster(spec, start, 1).objects), { to: TO, seed, start });

const kube = await startKubeSim({ crds: "openshift" });
const sim = await startSimulation({ kc: kubeConfigForUrl(kube.url), spec, timeScale, seed });
const t0 = Date.now();
const vmin = (realMs: number) => sim.clock.virtualMs(realMs) / 60_000;
const started = new Map<string, number>();
const finished = new Map<string, number>();
const check = () => {
  for (const [pool, nodes] of sim.poolMembers()) {
    const t = renderedName(pool, TO);
    if (!started.has(pool) && nodes.some((n) => n.metadata.annotations?.[A.desiredConfig] === t)) started.set(pool, Date.now() - t0);
    // Done as the forecast counts it: every node on the target and the pool reporting it (Updated).
    const updated = sim.world.get("pool", pool)?.status?.configuration?.name === t;
    if (!finished.has(pool) && updated && nodes.every((n) => n.metadata.annotations?.[A.currentConfig] === t && n.metadata.annotations?.[A.state] === "Done")) finished.set(pool, Date.now() - t0);
  }
};
sim.world.onChange(check);
await sim.upgrade(TO);
await sim.waitFor(() => (check(), finished.size === sim.poolMembers().size), 10 * 60_000, "every pool updated");
await sim.stop();
await kube.stop();

console.log(`timeScale ${timeScale}, seed ${seed}: simulated minutes from the upgrade request; error = forecast - actual`);
console.log("pool     forecast start  duration   actual start  duration   error start  duration  finish");
const f1 = (n: number) => n.toFixed(1).padStart(6);
for (const p of forecast.pools) {
  const fs = (Date.parse(p.start!) - f0) / 60_000, ff = (Date.parse(p.finish!) - f0) / 60_000;
  const as = vmin(started.get(p.pool)!), af = vmin(finished.get(p.pool)!);
  console.log(`${p.pool.padEnd(8)} ${f1(fs)}        ${f1(ff - fs)}     ${f1(as)}      ${f1(af - as)}     ${f1(fs - as)}      ${f1(ff - fs - (af - as))}   ${f1(ff - af)} (${(((ff - af) / af) * 100).toFixed(0)}%)`);
}
process.exit(0);
