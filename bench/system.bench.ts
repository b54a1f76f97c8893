// Whole-system benchmark: a 10,000-node upgrade through kube-sim (own process), cluster-sim, the
// watcher → NATS → the other four services (each its own process). Prints per-service CPU and peak
// memory, API write → gRPC-visible insight latency p50/p99 (probe nodes toggled while the upgrade
// rolls), the state-plane and event messages the system carried, and beside them the raw nats-server
// rates for the same message sizes (core pub/sub, and JetStream publishes with 256 in flight).
// Run: pnpm --dir bench exec node --import tsx system.bench.ts
// Env: BENCH_WORKERS (10000), BENCH_ROLL_S (60), BENCH_TIME_SCALE (60), BENCH_LEASES (0: cluster-sim
// does not ask the lease-coordinator; 1: it does, for every node it updates), BENCH_PROFILE_SERVICE +
// BENCH_PROFILE_DIR (write a V8 CPU profile of that one service process, e.g. status-aggregator),
// BENCH_HEAP (chart: default, each service runs with the V8 heap flags the Helm chart gives it; node:
// node's defaults), BENCH_NODE_OPTIONS (passed to every service process instead) or
// BENCH_NODE_OPTIONS_<SERVICE> (one service, e.g. BENCH_NODE_OPTIONS_STATUS_AGGREGATOR),
// BENCH_BUS_TRACE=1 (print the bus rate second by second while the system loads the cluster),
// BENCH_UPDATE_API (1: the status-aggregator maintains the Update Status API objects; 0: off) with
// BENCH_UPDATE_API_WPS (its write cap, default 200/s).
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { kubeConfigForUrl, parseClusterSpec, startSimulation } from "@lockstep/cluster-sim";
import * as grpc from "@grpc/grpc-js";
import { stateKey, UpdateStatusServiceClient } from "@lockstep/contracts";
import { freePort, SERVICE_NAMES, startNatsServer, startSystem, type ServiceName } from "@lockstep/launcher";
import { CoordinatorNodeLeaser } from "@lockstep/lease-client";
import { connect } from "@nats-io/transport-node";
import { parse as parseYaml } from "yaml";
import { procCpuSeconds, procPeakRssMb, procRssMb, startKubeSimProcess } from "./lib/proc.js";
import { rawNatsRatesInChild } from "./lib/raw-nats.js";
import { RateMeter } from "./lib/rate-meter.js";
import { printResults, sleep, summary, type BenchResult } from "./lib/stats.js";
import { installUpdateApiCrds, writerCounters, type WriterCounters } from "./lib/update-api.js";

const WORKERS = Number(process.env.BENCH_WORKERS ?? 10_000);
const ROLL_S = Number(process.env.BENCH_ROLL_S ?? 60);
const TIME_SCALE = Number(process.env.BENCH_TIME_SCALE ?? 60);
const LEASES = process.env.BENCH_LEASES === "1";
const PROBES = 20;
const UPDATE_API = process.env.BENCH_UPDATE_API !== "0";
const UPDATE_API_WPS = Number(process.env.BENCH_UPDATE_API_WPS ?? 200);

/**
 * NODE_OPTIONS the Helm chart gives each service's container (V8 heap limits): the services run as
 * they are deployed. BENCH_HEAP=node runs them with node's own defaults instead.
 */
function chartNodeOptions(): Record<ServiceName, string> {
  const values = parseYaml(readFileSync(join(import.meta.dirname, "..", "deploy", "helm", "lockstep", "values.yaml"), "utf8")) as Record<string, { maxOldSpaceMiB?: number; maxSemiSpaceMiB?: number }>;
  const camel = (s: string) => s.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
  const out = {} as Record<ServiceName, string>;
  for (const s of SERVICE_NAMES) {
    const v = values[camel(s)] ?? {};
    const flags = [v.maxOldSpaceMiB && `--max-old-space-size=${v.maxOldSpaceMiB}`, v.maxSemiSpaceMiB && `--max-semi-space-size=${v.maxSemiSpaceMiB}`];
    out[s] = process.env.BENCH_HEAP === "node" ? "" : flags.filter(Boolean).join(" ");
  }
  return out;
}

export async function benchSystem(): Promise<BenchResult[]> {
  const b = `system ${WORKERS + 3 + PROBES} nodes`;
  const runDir = mkdtempSync(join(tmpdir(), "lockstep-bench-system-"));
  const ks = await startKubeSimProcess(import.meta.dirname);
  const nats = await startNatsServer();
  const kc = kubeConfigForUrl(ks.url);
  const kubeconfig = join(runDir, "kubeconfig");
  writeFileSync(kubeconfig, kc.exportConfig());
  const out: BenchResult[] = [];
  const spec = parseClusterSpec({
    name: "bench",
    platform: "aws",
    version: "4.15.12",
    history: ["4.14.20"],
    masters: 3,
    pools: [
      { name: "worker", size: WORKERS, maxUnavailable: "10%" },
      { name: "probe", size: PROBES, paused: true, nodeSelector: { "node-role.kubernetes.io/probe": "" } },
    ],
    bootImageVersion: "4.15.12",
  });
  const ports: Partial<Record<ServiceName, { grpc: number; http: number }>> = {};
  for (const s of SERVICE_NAMES) ports[s] = { grpc: await freePort(), http: await freePort() };
  const leaser = LEASES ? new CoordinatorNodeLeaser({ address: `127.0.0.1:${ports["lease-coordinator"]!.grpc}`, holder: "machine-config-controller", durationSeconds: 300 }) : undefined;
  const t0 = performance.now();
  const sim = await startSimulation({ kc, spec, timeScale: TIME_SCALE, seed: 3, heartbeat: { intervalMs: 60_000 }, writeConcurrency: 64, leaser });
  const genS = (performance.now() - t0) / 1000;
  let simStopped: Promise<void> | undefined;
  const stopSim = () => (simStopped ??= sim.stop());
  const profiled = process.env.BENCH_PROFILE_SERVICE as ServiceName | undefined;
  // NODE_OPTIONS refuses --cpu-prof; a preload records the profile instead.
  const preload = join(import.meta.dirname, "lib", "cpu-profile.mjs");
  const heap = chartNodeOptions();
  const env: Partial<Record<ServiceName, Record<string, string>>> = {};
  for (const s of SERVICE_NAMES) {
    const nodeOptions = process.env[`BENCH_NODE_OPTIONS_${s.toUpperCase().replace("-", "_")}`] ?? process.env.BENCH_NODE_OPTIONS ?? heap[s];
    env[s] = { NODE_OPTIONS: profiled === s ? `${nodeOptions} --import=${preload}`.trim() : nodeOptions };
    // The simulator's leaser carries no credentials (local run, explicitly unauthenticated).
    if (s === "lease-coordinator") env[s].LEASE_AUTH = "none";
    if (profiled === s) env[s].CPU_PROFILE_DIR = process.env.BENCH_PROFILE_DIR ?? runDir;
  }
  if (UPDATE_API) {
    await installUpdateApiCrds(ks.url);
    Object.assign(env["status-aggregator"]!, { UPDATE_API_ENABLED: "true", UPDATE_API_WRITES_PER_SECOND: String(UPDATE_API_WPS), UPDATE_API_WRITE_BURST: String(UPDATE_API_WPS) });
  }
  // Count what the system carries on the bus (state-plane writes and events) from a core
  // subscriber, from before the services start: loading the whole cluster is the system's burst.
  const tap = await connect({ servers: nats.url });
  const bus = new RateMeter();
  let bytes = 0;
  // When a probe's state-plane write passes by: splits the latency into watcher and aggregator parts.
  const kvWatch = new Set<string>();
  const kvSeen = new Map<string, number>();
  tap.subscribe("$KV.lockstep-state-v1.>", {
    callback: (_e, m) => {
      bus.count();
      bytes += m.data.length;
      if (kvWatch.has(m.subject) && !kvSeen.has(m.subject)) kvSeen.set(m.subject, performance.now());
    },
  });
  tap.subscribe("lockstep.v1.evt.>", { callback: (_e, m) => void (bus.count(), (bytes += m.data.length)) });
  await tap.flush();
  const tStart = bus.mark();
  const system = await startSystem({ kubeconfig, natsUrl: nats.url, runDir, ports, logLevel: "warn", env });
  const total = WORKERS + 3 + PROBES;
  const status = new UpdateStatusServiceClient(system.grpcAddress("status-aggregator"), grpc.credentials.createInsecure(), { "grpc.max_receive_message_length": 64 << 20 });
  try {
    // Wait until the aggregator serves every node.
    const t1 = performance.now();
    for (;;) {
      const full = await new Promise<number>((resolve) => status.getUpdateStatus({ omitNodes: false }, (err, res) => resolve(err ? 0 : (res.status?.nodes.length ?? 0))));
      if (full >= total) break;
      if (performance.now() - t1 > 300_000) throw new Error(`aggregator never served ${total} nodes`);
      await sleep(1_000);
    }
    const syncS = (performance.now() - t1) / 1000;
    const tSynced = bus.mark();
    const syncMsgs = bus.total;
    if (process.env.BENCH_BUS_TRACE === "1") {
      const perSecond: number[] = [];
      for (let t = tStart; t < tSynced; t += 1_000) perSecond.push(Math.round(bus.best(1_000, t, Math.min(tSynced, t + 1_000))));
      process.stderr.write(`bus msg/s while loading, second by second: ${perSecond.join(" ")}\n`);
    }

    // Insight latency probes: toggle a probe node's cordon and time it until the watch stream shows it.
    const watch = status.watchUpdateStatus({ omitNodes: true });
    const waiting = new Map<string, { t: number; resolve: () => void }>();
    watch.on("data", (m: { changedNodes: Array<{ name: string }> }) => {
      for (const n of m.changedNodes) {
        const w = waiting.get(n.name);
        if (w) {
          waiting.delete(n.name);
          w.resolve();
        }
      }
    });
    watch.on("error", () => {});
    const core = kc.makeApiClient(CoreV1Api);
    const probeNodes = (sim.poolMembers().get("probe") ?? []).map((n) => n.metadata!.name!);
    const cordoned = new Map<string, boolean>();
    const lat: number[] = [];
    const latToKv: number[] = [];
    const latKvToWatch: number[] = [];
    const aggregatorMetrics = `http://127.0.0.1:${ports["status-aggregator"]!.http}/metrics`;
    let apiPopulateS = 0;
    let apiPopulatedRss = { now: 0, peak: 0 };
    if (UPDATE_API) {
      // The writer first creates every object (a create and a status write each): let it finish, so
      // the rolling phase counts only writes caused by changes.
      const tPop = performance.now();
      const deadline = tPop + ((2 * total) / UPDATE_API_WPS) * 2_000 + 120_000;
      for (let last = -1; ; ) {
        const c = await writerCounters(aggregatorMetrics);
        if (c.nodeWrites >= 2 * total && c.allWrites === last) break;
        if (performance.now() > deadline) throw new Error(`the Update Status API writer never settled (${c.nodeWrites} node writes)`);
        last = c.allWrites;
        await sleep(2_000);
      }
      apiPopulateS = (performance.now() - tPop) / 1000;
      const pid = system.processes.get("status-aggregator")!.pid!;
      apiPopulatedRss = { now: procRssMb(pid), peak: procPeakRssMb(pid) };
    }
    const cpu0 = new Map(SERVICE_NAMES.map((s) => [s, procCpuSeconds(system.processes.get(s)!.pid!)] as const));
    const ks0 = procCpuSeconds(ks.pid);
    const nats0 = procCpuSeconds(nats.pid()!);
    const self0 = process.cpuUsage();
    const api0: WriterCounters | undefined = UPDATE_API ? await writerCounters(aggregatorMetrics) : undefined;

    // Each pool's rendered config before the upgrade: a node counts as moved only onto a newer one.
    const initialTarget = new Map(sim.world.list("pool").map((p) => [p.metadata?.name, p.spec?.configuration?.name]));
    await sim.upgrade("4.15.14");
    const tRoll = performance.now();
    let i = 0;
    while (performance.now() - tRoll < ROLL_S * 1000) {
      const node = probeNodes[i++ % probeNodes.length]!;
      const next = !cordoned.get(node);
      cordoned.set(node, next);
      const subject = `$KV.lockstep-state-v1.${stateKey("node", node)}`;
      kvWatch.add(subject);
      kvSeen.delete(subject);
      const start = performance.now();
      const seen = new Promise<void>((resolve) => waiting.set(node, { t: start, resolve }));
      await core.patchNode({ name: node, body: { spec: { unschedulable: next } } }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
      const ok = await Promise.race([seen.then(() => true), sleep(5_000).then(() => false)]);
      if (ok) {
        const end = performance.now();
        lat.push(end - start);
        const kvAt = kvSeen.get(subject);
        if (kvAt !== undefined) {
          latToKv.push(kvAt - start);
          latKvToWatch.push(end - kvAt);
        }
      }
      waiting.delete(node);
      await sleep(200);
    }
    const rollS = (performance.now() - tRoll) / 1000;
    // Nodes on their pool's new rendered config (the rollout's progress, not merely idle nodes).
    const targetOf = new Map(sim.world.list("pool").map((p) => [p.metadata?.name, p.spec?.configuration?.name]));
    let updated = 0;
    for (const [pool, members] of sim.poolMembers()) {
      const target = targetOf.get(pool);
      if (target === initialTarget.get(pool)) continue; // the upgrade has not reached this pool yet
      for (const n of members) if (n.metadata?.annotations?.["machineconfiguration.openshift.io/currentConfig"] === target) updated++;
    }
    watch.cancel();

    const tRolled = bus.mark();
    // CPU of the rolling phase, read before anything else runs.
    const cpu1 = new Map(SERVICE_NAMES.map((s) => [s, procCpuSeconds(system.processes.get(s)!.pid!)] as const));
    const ks1 = procCpuSeconds(ks.pid);
    const nats1 = procCpuSeconds(nats.pid()!);
    const self = process.cpuUsage(self0);
    const api1: WriterCounters | undefined = UPDATE_API ? await writerCounters(aggregatorMetrics) : undefined;
    const rollMsgs = bus.total - syncMsgs;
    const syncBest = bus.best(1_000, tStart, tSynced);
    const rollBest = bus.best(5_000, tRoll, tRolled);
    const avgSize = bus.total > 0 ? Math.round(bytes / bus.total) : 256;
    // The ceiling is measured on a quiet bus: the simulator stopped and the services idle again.
    await stopSim();
    for (let last = -1, t = performance.now(); bus.total !== last && performance.now() - t < 30_000; ) {
      last = bus.total;
      await sleep(2_000);
    }
    const raw = await rawNatsRatesInChild(nats.url, avgSize);
    const sysRate = rollMsgs / rollS;
    const s = summary(lat);
    out.push({ bench: b, metric: "cluster generation", value: genS, unit: "s" });
    out.push({ bench: b, metric: "aggregator serving every node after start", value: syncS, unit: "s" });
    out.push({ bench: b, metric: `nodes on the new config after ${ROLL_S} s of rolling (${TIME_SCALE}x)`, value: updated, unit: "nodes" });
    out.push({ bench: b, metric: `API write→gRPC insight p50 (${lat.length} probes)`, value: s.p50, unit: "ms" });
    // Latency of a system with no rollout in the window says nothing about the target.
    out.push({ bench: b, metric: "API write→gRPC insight p99", value: s.p99, unit: "ms", target: "<= 100", ok: s.p99 <= 100 && updated > 0 });
    if (updated === 0) out.push({ bench: b, metric: "  ... no node moved while probing: raise BENCH_ROLL_S or BENCH_TIME_SCALE", value: 0, unit: "nodes" });
    const toKv = summary(latToKv);
    const kvToWatch = summary(latKvToWatch);
    out.push({ bench: b, metric: "  ... API write→state-plane write (watcher) p50 / p99", value: toKv.p50, unit: `ms / ${toKv.p99.toFixed(0)} ms` });
    out.push({ bench: b, metric: "  ... state-plane write→watch message (aggregator) p50 / p99", value: kvToWatch.p50, unit: `ms / ${kvToWatch.p99.toFixed(0)} ms` });
    for (const name of SERVICE_NAMES) {
      const pid = system.processes.get(name)!.pid!;
      out.push({ bench: b, metric: `${name} CPU while rolling`, value: ((cpu1.get(name)! - cpu0.get(name)!) / rollS) * 100, unit: "% of 1 core" });
      const peak = procPeakRssMb(pid);
      out.push({ bench: b, metric: `${name} peak RSS (${env[name]!.NODE_OPTIONS || "node's default heap"})`, value: peak, unit: "MiB", target: "<= 150", ok: peak <= 150 });
    }
    if (api0 && api1) {
      const changes = api1.nodeChanges - api0.nodeChanges;
      const nodeWrites = api1.nodeWrites - api0.nodeWrites;
      out.push({ bench: b, metric: `Update Status API: every object written after the aggregator synced (cap ${UPDATE_API_WPS}/s)`, value: apiPopulateS, unit: "s" });
      out.push({ bench: b, metric: "  ... status-aggregator RSS / peak RSS once every object was written", value: apiPopulatedRss.now, unit: `MiB / ${apiPopulatedRss.peak.toFixed(0)} MiB` });
      out.push({ bench: b, metric: `Update Status API: node state changes seen while rolling`, value: changes, unit: "changes" });
      out.push({
        bench: b,
        metric: "Update Status API: NodeProgressInsight writes per node state change",
        value: changes > 0 ? nodeWrites / changes : 0,
        unit: "writes",
        target: "<= 1",
        ok: changes > 0 && nodeWrites <= changes,
      });
      const rate = (api1.allWrites - api0.allWrites) / rollS;
      // A token bucket lets its burst (here as large as the rate) through on top of the rate, once.
      const bound = UPDATE_API_WPS + UPDATE_API_WPS / rollS;
      out.push({ bench: b, metric: `Update Status API: all writes while rolling (cap ${UPDATE_API_WPS}/s, burst ${UPDATE_API_WPS})`, value: rate, unit: "writes/s", target: `<= ${bound.toFixed(1)}`, ok: rate <= bound });
    }
    out.push({ bench: b, metric: "kube-sim CPU while rolling", value: ((ks1 - ks0) / rollS) * 100, unit: "% of 1 core" });
    out.push({ bench: b, metric: "nats-server CPU while rolling", value: ((nats1 - nats0) / rollS) * 100, unit: "% of 1 core" });
    // cluster-sim runs in this process, with the probes and the bus tap: the rest of the 2 cores.
    out.push({ bench: b, metric: "bench process (cluster-sim, probes) CPU while rolling", value: ((self.user + self.system) / 1e6 / rollS) * 100, unit: "% of 1 core" });
    const loadS = (tSynced - tStart) / 1000;
    out.push({ bench: b, metric: `system start → all ${total} nodes served`, value: loadS, unit: "s" });
    out.push({ bench: b, metric: `bus messages carried while loading, mean`, value: syncMsgs / loadS, unit: "msg/s" });
    out.push({ bench: b, metric: "bus messages carried while loading, best 1 s", value: syncBest, unit: "msg/s" });
    out.push({ bench: b, metric: `bus messages carried while rolling (avg ${avgSize} B), mean`, value: sysRate, unit: "msg/s" });
    out.push({ bench: b, metric: "bus messages carried while rolling, best 5 s", value: rollBest, unit: "msg/s" });
    out.push({ bench: b, metric: `raw nats core pub/sub, own process, quiet bus (${avgSize} B)`, value: raw.core, unit: "msg/s" });
    out.push({ bench: b, metric: `raw JetStream publish, 256 in flight, own process, quiet bus (${avgSize} B)`, value: raw.js, unit: "msg/s" });
    // The load is the system at full speed: every node's snapshot through the watcher, NATS and the
    // four consumers at once. A rollout's rate is set by the simulated cluster, not by Lockstep.
    out.push({ bench: b, metric: "system while loading (best 1 s) / raw JetStream", value: syncBest / raw.js, unit: "ratio", target: ">= 0.5", ok: syncBest / raw.js >= 0.5 });
    out.push({ bench: b, metric: "system while rolling (best 5 s) / raw JetStream", value: rollBest / raw.js, unit: "ratio" });
    await tap.close();
  } finally {
    status.close();
    await stopSim();
    await system.stop();
    await nats.stop();
    ks.stop();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchSystem());
  process.exit(0);
}
