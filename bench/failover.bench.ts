// Failover per service: two replicas of every service (the demo's environment: kube-sim, cluster-sim
// idle, a three-server NATS cluster), then for each service, again and again: SIGKILL its leader and
// time until the other replica holds the election Lease (its term, and so its writes, begin); restart
// the killed one; later, SIGTERM the leader (a rolling update) and time the same. For the watcher also
// the time until a consumer receives the new leader's first heartbeat (what keeps every consumer's
// view fresh). Targets: after a kill <= 15 s, after a graceful stop <= 2 s.
// Run: pnpm --dir bench exec node --import tsx failover.bench.ts
// Env: BENCH_FAILOVER_KILLS (5), BENCH_FAILOVER_STOPS (5) per service.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { closeBus, connectBus, ensureStateBucket, StateCache } from "@lockstep/bus";
import { onDemoRelease } from "@lockstep/cluster-sim";
import { leaderOf, startEnvironment, type Environment } from "@lockstep/demo";
import { SERVICE_NAMES, type Replica, type ServiceName } from "@lockstep/launcher";
import { sized } from "./lib/quick.js";
import { printResults, sleep, summary, type BenchResult } from "./lib/stats.js";

const KILLS = sized("BENCH_FAILOVER_KILLS", 5, 1);
const STOPS = sized("BENCH_FAILOVER_STOPS", 5, 1);
const KILL_TARGET_S = 15;
const STOP_TARGET_S = 2;

/** Polls (every 20 ms) until `f` returns something; its value and the time it took from `since`. */
async function until<T>(what: string, since: number, f: () => T | undefined, timeoutMs = 90_000): Promise<{ value: T; ms: number }> {
  for (;;) {
    const value = f();
    if (value !== undefined) return { value, ms: performance.now() - since };
    if (performance.now() - since > timeoutMs) throw new Error(`failover bench: timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function failOver(env: Environment, service: ServiceName, how: "kill" | "stop", beats: Array<{ at: number; writer: string }>): Promise<{ ms: number; heartbeatMs?: number }> {
  const { value: leader } = await until(`a leader of the ${service}`, performance.now(), () => leaderOf(env, service));
  const successor = env.system.replicas.get(service)!.find((r) => r !== leader) as Replica;
  const before = beats.length;
  const at = performance.now();
  // A kill is what a crash or a lost node looks like; SIGTERM is a rolling update (the Lease is released).
  const stopping = leader.process.stop(how === "kill" ? "SIGKILL" : "SIGTERM");
  const { ms } = await until(`the ${service}'s other replica to lead`, at, () => (leaderOf(env, service) === successor ? true : undefined));
  await stopping;
  let heartbeatMs: number | undefined;
  if (service === "watcher") heartbeatMs = (await until("the new watcher's first heartbeat", at, () => beats.slice(before).find((b) => b.writer === successor.process.name))).value.at - at;
  leader.process.start();
  await leader.process.waitReady(60_000);
  return { ms, heartbeatMs };
}

export async function benchFailover(): Promise<BenchResult[]> {
  const runDir = mkdtempSync(join(tmpdir(), "lockstep-failover-"));
  const spec = onDemoRelease({ name: "failover", pools: [{ name: "worker", size: 3, maxUnavailable: 1 }] });
  const env = await startEnvironment({ runDir, spec, timeScale: 60, replicas: 2, natsCluster: 3 });
  const nc = await connectBus({ servers: env.natsUrl.split(","), name: "failover-bench" });
  const beats: Array<{ at: number; writer: string }> = [];
  const consumer = new StateCache(await ensureStateBucket(nc), { kinds: [] });
  consumer.onHeartbeat((h) => void beats.push({ at: performance.now(), writer: h.writer }));
  await consumer.start();
  const results: BenchResult[] = [];
  try {
    for (const service of SERVICE_NAMES) {
      const kills: number[] = [];
      const stops: number[] = [];
      const heartbeats: number[] = [];
      for (let i = 0; i < KILLS; i++) {
        const f = await failOver(env, service, "kill", beats);
        kills.push(f.ms);
        if (f.heartbeatMs !== undefined) heartbeats.push(f.heartbeatMs);
      }
      for (let i = 0; i < STOPS; i++) stops.push((await failOver(env, service, "stop", beats)).ms);
      const k = summary(kills.map((ms) => ms / 1000));
      const s = summary(stops.map((ms) => ms / 1000));
      const metric = (m: string) => `${service}: ${m}`;
      results.push(
        { bench: "failover", metric: metric(`SIGKILL of the leader → the other replica leads, p50 (${k.n} kills)`), value: k.p50, unit: "s", target: `<= ${KILL_TARGET_S}`, ok: k.p50 <= KILL_TARGET_S },
        { bench: "failover", metric: metric(`SIGKILL of the leader → the other replica leads, max (${k.n} kills)`), value: k.max, unit: "s", target: `<= ${KILL_TARGET_S}`, ok: k.max <= KILL_TARGET_S },
        { bench: "failover", metric: metric(`SIGTERM of the leader → the other replica leads, p50 (${s.n} stops)`), value: s.p50, unit: "s", target: `<= ${STOP_TARGET_S}`, ok: s.p50 <= STOP_TARGET_S },
        { bench: "failover", metric: metric(`SIGTERM of the leader → the other replica leads, max (${s.n} stops)`), value: s.max, unit: "s", target: `<= ${STOP_TARGET_S}`, ok: s.max <= STOP_TARGET_S },
      );
      if (heartbeats.length > 0) {
        const h = summary(heartbeats.map((ms) => ms / 1000));
        results.push(
          { bench: "failover", metric: metric(`SIGKILL of the leader → a consumer receives the new leader's heartbeat, p50 (${h.n} kills)`), value: h.p50, unit: "s" },
          { bench: "failover", metric: metric(`SIGKILL of the leader → a consumer receives the new leader's heartbeat, max (${h.n} kills)`), value: h.max, unit: "s" },
        );
      }
    }
  } finally {
    consumer.stop();
    await closeBus(nc);
    await env.stop();
  }
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  printResults(await benchFailover());
  process.exit(0);
}
