// Whole-system benchmark: a 10,000-node cluster in kube-sim (own process) played by cluster-sim, the
// watcher → NATS → the other four services (each its own process), measured the way users feel it.
//
// 1. Load: every service started on the whole cluster; start → all nodes served, and the bus rate
//    the system reaches meanwhile (state-plane puts/s, best second).
// 2. A rate ladder: one upgrade after another (a new version each step, so the worker pool always
//    rolls; pool maxUnavailable 10%, the simulator's default node stage durations), each at a higher
//    time scale: 1x (the pace of a real update), 10x, then up until insight latency misses its
//    target; 60x always runs (the old stress figure, reported without a target). Each step is a fixed
//    window from the moment the worker pool is retargeted: a 1x rollout of 10,000 nodes takes hours,
//    so the 1x figure is the first minutes of one. Per step: the node changes per second the system
//    carried (state-plane node puts, probes included), and API write → gRPC-visible insight latency
//    (probe nodes in a paused pool cordoned and uncordoned one at a time, timed until the aggregator's
//    watch stream shows them). Capacity = the highest rate with p99 <= 100 ms; headroom = capacity ÷
//    the 1x rate; CPU-seconds per 1,000 node changes per process at the capacity step.
// 3. The bus ceiling: raw NATS doing the same fan-out (KV puts of the system's own values, five
//    consumer processes that decode each one and nothing else), beside the system's load rate.
//
// The CVO's operators are sped up (1-2 simulated s each instead of 90-180) so each step's worker
// pool starts rolling within seconds; every node stage keeps the simulator's default duration.
//
// Run: pnpm --dir bench exec node --import tsx system.bench.ts
// Env: BENCH_WORKERS (10000), BENCH_SCALES (1,10,20,30,45,60,90,120), BENCH_WINDOW_1X_S (180: real
// seconds measured at 1x), BENCH_SIM_WINDOW_S (900: simulated seconds measured at higher scales),
// BENCH_MIN_WINDOW_S (10), BENCH_REST_S (20: seconds of CPU measured at rest, before the ladder), BENCH_CEILING_PUTS (30000), BENCH_QUICK=1 (all small: a smoke run),
// BENCH_LEASES (0: cluster-sim does not ask the lease-coordinator; 1: it does, for every node it
// updates), BENCH_PROFILE_SERVICE + BENCH_PROFILE_DIR (write a V8 CPU profile of that one service
// process, e.g. status-aggregator), BENCH_HEAP (chart: default, each service runs with the V8 heap
// flags the Helm chart gives it, V8_OPTIMIZE_FOR_SIZE included; node: node's defaults),
// BENCH_OPTIMIZE_FOR_SIZE=0 (the chart's heap flags without V8_OPTIMIZE_FOR_SIZE), BENCH_NODE_OPTIONS (passed to every
// service process instead) or BENCH_NODE_OPTIONS_<SERVICE> (one service), BENCH_BUS_TRACE=1 (print
// the bus rate second by second while the system loads the cluster), BENCH_UPDATE_API (1: the
// status-aggregator maintains the Update Status API objects; 0: off) with BENCH_UPDATE_API_WPS (its
// write cap, default 200/s), BENCH_NATS_PROF_PORT (nats-server's Go profiling port: fetch http://127.0.0.1:PORT/debug/pprof/profile?seconds=N during the run), BENCH_NICE_HARNESS=1 (kube-sim, nats-server and the bench process itself,
// which runs cluster-sim, at nice 10: the services' own latency, apart from the harness competing with
// them for two cores). The probes are timed by a process of their own at normal priority
// (lib/probe-process.ts), as a user's client would see them.
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, setPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { CustomObjectsApi, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { DEFAULT_TIMING, kubeConfigForUrl, parseClusterSpec, renderedName, startSimulation, type Simulation, type Timing } from "@lockstep/cluster-sim";
import * as grpc from "@grpc/grpc-js";
import { STATE_BUCKET, UpdateStatusServiceClient } from "@lockstep/contracts";
import { freePort, SERVICE_NAMES, startNatsServer, startSystem, type ServiceName } from "@lockstep/launcher";
import { CoordinatorNodeLeaser } from "@lockstep/lease-client";
import { connect } from "@nats-io/transport-node";
import { parse as parseYaml } from "yaml";
import { capacityOf, runsStep, windowSeconds, type LadderStep } from "./lib/ladder.js";
import { procCpuSeconds, procPeakRssMb, procRssMb, startKubeSimProcess } from "./lib/proc.js";
import { QUICK, sized } from "./lib/quick.js";
import { rawFanoutInChildren, type FanoutSample } from "./lib/raw-fanout.js";
import { RateMeter } from "./lib/rate-meter.js";
import { printResults, sleep, summary, type BenchResult } from "./lib/stats.js";
import { loopWindow, scrapeLoop, type LoopWindow } from "./lib/loop-health.js";
import type { ProbeWindow } from "./lib/probe-process.js";
import { startProber, type Prober } from "./lib/prober.js";
import { installUpdateApiCrds, writerCounters, type WriterCounters } from "./lib/update-api.js";

/** The services' Event-write counter (packages/skeleton/src/service-events.ts, KUBE_EVENT_WRITES_METRIC). */
const KUBE_EVENT_WRITES_METRIC = "lockstep_kube_event_writes_total";

const WORKERS = sized("BENCH_WORKERS", 10_000, 100);
const SCALES = (process.env.BENCH_SCALES ?? (QUICK ? "1,10,60" : "1,10,20,30,45,60,90,120")).split(",").map(Number);
const WINDOW = { oneX: sized("BENCH_WINDOW_1X_S", 180, 2), simulated: sized("BENCH_SIM_WINDOW_S", 900, 15), min: sized("BENCH_MIN_WINDOW_S", 10, 1.5) };
const CEILING_PUTS = sized("BENCH_CEILING_PUTS", 30_000, 500);
const LEASES = process.env.BENCH_LEASES === "1";
const PROBES = 20;
const UPDATE_API = process.env.BENCH_UPDATE_API !== "0";
const UPDATE_API_WPS = Number(process.env.BENCH_UPDATE_API_WPS ?? 200);
const REST_S = sized("BENCH_REST_S", 20, 2);
const TARGET_MS = 100;
const NICE = 10;
const STRESS = 60;
const SAMPLES = 5_000;
/** Node stages at the simulator's defaults; only the CVO's lead-in to the worker pool is shortened. */
const LEAD = QUICK ? { duration: 0, jitter: 0 } : { duration: 1, jitter: 1 };
const TIMING: Timing = { ...DEFAULT_TIMING, cvoAccept: LEAD, operator: LEAD };
const HARNESS = ["kube-sim", "nats-server", "bench process (cluster-sim, bus tap)", "prober"] as const;
type Part = ServiceName | (typeof HARNESS)[number];

interface ChartValues {
  global?: { mallocArenaMax?: number | null };
  [service: string]: { maxOldSpaceMiB?: number; maxSemiSpaceMiB?: number; optimizeForSize?: boolean; mallocArenaMax?: number | null } | undefined;
}

function p50p99(samples: number[]): { p50: number; p99: number } {
  const { p50, p99 } = summary(samples);
  return { p50, p99 };
}

/** The Helm chart's default values, read once. */
function chartValues(): ChartValues {
  return parseYaml(readFileSync(join(import.meta.dirname, "..", "deploy", "helm", "lockstep", "values.yaml"), "utf8")) as ChartValues;
}

/** A service's key in the chart's values (status-aggregator → statusAggregator). */
const camel = (s: string) => s.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());

/**
 * NODE_OPTIONS the Helm chart gives each service's container (V8 heap limits): the services run as
 * they are deployed. BENCH_HEAP=node runs them with node's own defaults instead.
 */
function chartNodeOptions(values: ChartValues): Record<ServiceName, string> {
  const out = {} as Record<ServiceName, string>;
  for (const s of SERVICE_NAMES) {
    const v = values[camel(s)] ?? {};
    const flags = [v.maxOldSpaceMiB && `--max-old-space-size=${v.maxOldSpaceMiB}`, v.maxSemiSpaceMiB && `--max-semi-space-size=${v.maxSemiSpaceMiB}`];
    out[s] = process.env.BENCH_HEAP === "node" ? "" : flags.filter(Boolean).join(" ");
  }
  return out;
}

/** The chart's V8_OPTIMIZE_FOR_SIZE (`optimizeForSize`) per service, unless BENCH_HEAP=node or BENCH_OPTIMIZE_FOR_SIZE=0. */
function chartOptimizeForSize(values: ChartValues): Record<ServiceName, boolean> {
  const out = {} as Record<ServiceName, boolean>;
  for (const s of SERVICE_NAMES) out[s] = process.env.BENCH_HEAP !== "node" && process.env.BENCH_OPTIMIZE_FOR_SIZE !== "0" && values[camel(s)]?.optimizeForSize === true;
  return out;
}

/** The chart's MALLOC_ARENA_MAX (global.mallocArenaMax), unless BENCH_HEAP=node. */
function chartMallocArenaMax(values: ChartValues): string | undefined {
  const n = process.env.BENCH_HEAP === "node" ? undefined : values.global?.mallocArenaMax;
  return n ? String(n) : undefined;
}

interface Step extends LadderStep {
  windowS: number;
  changes: number;
  /** Kubernetes Event API calls (creates and series patches) of every service in the window. */
  eventWrites: number;
  /** Messages nats-server received and delivered in the window (every client, JetStream's API included). */
  natsMessages: { in: number; out: number };
  probes: number;
  p50: number;
  /** Worker nodes on the step's new config when its window closed. */
  moved: number;
  toAck: { p50: number; p99: number };
  toApiWatch: { p50: number; p99: number };
  apiWatchToKv: { p50: number; p99: number };
  apiWatchToInsight: { p50: number; p99: number };
  toKv: { p50: number; p99: number };
  kvToWatch: { p50: number; p99: number };
  /** CPU-seconds per process in the window. */
  cpu: Map<Part, number>;
  /** Event-loop delay and GC per service process in the window. */
  loop: Map<ServiceName, LoopWindow>;
  /** The prober's own event-loop delay p99 (ms), and the bench process's (cluster-sim, bus tap). */
  proberLoopP99Ms: number;
  benchLoopP99Ms: number;
  lost: ProbeWindow["lost"];
  loadavg: number;
}

export async function benchSystem(options: { niceHarness?: boolean } = {}): Promise<BenchResult[]> {
  const NICE_HARNESS = options.niceHarness ?? process.env.BENCH_NICE_HARNESS === "1";
  const b = `system ${WORKERS + 3 + PROBES} nodes${NICE_HARNESS ? ` (harness at nice ${NICE})` : ""}`;
  const runDir = mkdtempSync(join(tmpdir(), "lockstep-bench-system-"));
  const ks = await startKubeSimProcess(import.meta.dirname);
  // nats-server's monitoring endpoint: its message counts say what the bus carries per node change.
  const natsMonitor = await freePort();
  const nats = await startNatsServer({ config: `http: "127.0.0.1:${natsMonitor}"${process.env.BENCH_NATS_PROF_PORT ? `\nprof_port: ${process.env.BENCH_NATS_PROF_PORT}` : ""}` });
  const natsMessages = async (): Promise<{ in: number; out: number }> => {
    const v = (await (await fetch(`http://127.0.0.1:${natsMonitor}/varz`)).json()) as { in_msgs: number; out_msgs: number };
    return { in: v.in_msgs, out: v.out_msgs };
  };
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
  const simAt = (timeScale: number, generate: boolean) => startSimulation({ kc, spec, timeScale, seed: 3, heartbeat: { intervalMs: 60_000 }, writeConcurrency: 64, leaser, timing: TIMING, generate });
  const t0 = performance.now();
  let sim: Simulation = await simAt(SCALES[0]!, true);
  let simStopped: Promise<void> | undefined;
  const stopSim = () => (simStopped ??= sim.stop());
  const genS = (performance.now() - t0) / 1000;
  const profiled = process.env.BENCH_PROFILE_SERVICE as ServiceName | undefined;
  // NODE_OPTIONS refuses --cpu-prof; a preload records the profile instead.
  const preload = join(import.meta.dirname, "lib", "cpu-profile.mjs");
  const values = chartValues();
  const heap = chartNodeOptions(values);
  const optimizeForSize = chartOptimizeForSize(values);
  const env: Partial<Record<ServiceName, Record<string, string>>> = {};
  const arenas = chartMallocArenaMax(values);
  for (const s of SERVICE_NAMES) {
    const nodeOptions = process.env[`BENCH_NODE_OPTIONS_${s.toUpperCase().replace("-", "_")}`] ?? process.env.BENCH_NODE_OPTIONS ?? heap[s];
    env[s] = { NODE_OPTIONS: profiled === s ? `${nodeOptions} --import=${preload}`.trim() : nodeOptions, ...(arenas ? { MALLOC_ARENA_MAX: arenas } : {}) };
    // The simulator's leaser carries no credentials (local run, explicitly unauthenticated).
    if (s === "lease-coordinator") env[s].LEASE_AUTH = "none";
    if (optimizeForSize[s]) env[s].V8_OPTIMIZE_FOR_SIZE = "true";
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
  const kvPuts = new RateMeter(100, () => performance.now(), bus.mark());
  const nodeChanges = new RateMeter(100, () => performance.now(), bus.mark());
  let bytes = 0;
  const kvPrefix = `$KV.${STATE_BUCKET}.`;
  const nodePrefix = `${kvPrefix}node.`;
  // The system's own values, for the ceiling to publish.
  const samples: FanoutSample[] = [];
  tap.subscribe(`${kvPrefix}>`, {
    callback: (_e, m) => {
      bus.count();
      kvPuts.count();
      bytes += m.data.length;
      if (m.subject.startsWith(nodePrefix)) nodeChanges.count();
      if (samples.length < SAMPLES && m.data.length > 0 && !m.subject.startsWith(`${kvPrefix}heartbeat.`)) samples.push({ key: m.subject.slice(kvPrefix.length), data: m.data.slice() });
    },
  });
  tap.subscribe("lockstep.v1.evt.>", { callback: (_e, m) => void (bus.count(), (bytes += m.data.length)) });
  await tap.flush();
  const tStart = bus.mark();
  const system = await startSystem({ kubeconfig, natsUrl: nats.url, runDir, ports, logLevel: "warn", env });
  const total = WORKERS + 3 + PROBES;
  const status = new UpdateStatusServiceClient(system.grpcAddress("status-aggregator"), grpc.credentials.createInsecure(), { "grpc.max_receive_message_length": 64 << 20 });
  let prober: Prober | undefined;
  try {
    // Wait until the aggregator serves every node.
    const t1 = performance.now();
    for (;;) {
      const full = await new Promise<number>((resolve) => status.getUpdateStatus({ omitNodes: false }, (err, res) => resolve(err ? 0 : (res.status?.nodes.length ?? 0))));
      if (full >= total) break;
      if (performance.now() - t1 > 300_000) throw new Error(`aggregator never served ${total} nodes`);
      await sleep(QUICK ? 200 : 1_000);
    }
    const syncS = (performance.now() - t1) / 1000;
    const tSynced = bus.mark();
    const syncPuts = kvPuts.total;
    if (process.env.BENCH_BUS_TRACE === "1") {
      const perSecond: number[] = [];
      for (let t = tStart; t < tSynced; t += 1_000) perSecond.push(Math.round(kvPuts.best(1_000, t, Math.min(tSynced, t + 1_000))));
      process.stderr.write(`state-plane puts/s while loading, second by second: ${perSecond.join(" ")}\n`);
    }

    // Insight latency probes, in a process of their own started before anything is niced (see
    // lib/probe-process.ts): toggle a probe node's cordon and time it until the watch stream shows it.
    const custom = kc.makeApiClient(CustomObjectsApi);
    const probeNodes = (sim.poolMembers().get("probe") ?? []).map((n) => n.metadata!.name!);
    prober = await startProber({ kubeUrl: ks.url, natsUrl: nats.url, statusAddress: system.grpcAddress("status-aggregator"), nodes: probeNodes, gapMs: 100, timeoutMs: 5_000 });
    if (NICE_HARNESS) for (const pid of [ks.pid, nats.pid()!, process.pid]) setPriority(pid, NICE);
    const aggregatorMetrics = `http://127.0.0.1:${ports["status-aggregator"]!.http}/metrics`;
    // Kubernetes Event writes (issue 31) of the services that record Events, from their /metrics.
    const kubeEventWrites = async (): Promise<number> => {
      let sum = 0;
      for (const svc of ["lease-coordinator", "skew-enforcer", "bootimage-updater"] as const) {
        const text = await (await fetch(`http://127.0.0.1:${ports[svc]!.http}/metrics`)).text();
        for (const m of text.matchAll(new RegExp(`^${KUBE_EVENT_WRITES_METRIC}\\{[^}]*\\} (\\S+)$`, "gm"))) sum += Number(m[1]);
      }
      return sum;
    };
    let apiPopulateS = 0;
    let apiPopulatedRss = { now: 0, peak: 0 };
    if (UPDATE_API) {
      // The writer first creates every object (a create and a status write each): let it finish, so
      // the ladder counts only writes caused by changes.
      const tPop = performance.now();
      const deadline = tPop + ((2 * total) / UPDATE_API_WPS) * 2_000 + 120_000;
      for (let last = -1; ; ) {
        const c = await writerCounters(aggregatorMetrics);
        if (c.nodeWrites >= 2 * total && c.allWrites === last) break;
        if (performance.now() > deadline) throw new Error(`the Update Status API writer never settled (${c.nodeWrites} node writes)`);
        last = c.allWrites;
        await sleep(QUICK ? 500 : 2_000);
      }
      apiPopulateS = (performance.now() - tPop) / 1000;
      const pid = system.processes.get("status-aggregator")!.pid!;
      apiPopulatedRss = { now: procRssMb(pid), peak: procPeakRssMb(pid) };
    }
    const api0: WriterCounters | undefined = UPDATE_API ? await writerCounters(aggregatorMetrics) : undefined;
    const tLadder = performance.now();

    const pids = (): Map<Part, () => number> => {
      const m = new Map<Part, () => number>();
      for (const s of SERVICE_NAMES) m.set(s, () => procCpuSeconds(system.processes.get(s)!.pid!));
      m.set("kube-sim", () => procCpuSeconds(ks.pid));
      m.set("nats-server", () => procCpuSeconds(nats.pid()!));
      m.set("prober", () => (prober ? procCpuSeconds(prober.pid) : 0));
      m.set("bench process (cluster-sim, bus tap)", () => {
        const u = process.cpuUsage();
        return (u.user + u.system) / 1e6;
      });
      return m;
    };
    const readers = pids();
    const cpuNow = () => new Map([...readers].map(([k, f]) => [k, f()] as const));
    const workerTarget = () => sim.world.get("pool", "worker")?.spec?.configuration?.name as string | undefined;

    // At rest: every node served, no update running (cluster-sim still heartbeats its nodes): what
    // each process costs before any change, the floor under the per-change figures below.
    const rest0 = cpuNow();
    const restChanges0 = nodeChanges.total;
    const tRest = performance.now();
    await sleep(REST_S * 1000);
    const restSeconds = (performance.now() - tRest) / 1000;
    const rest1 = cpuNow();
    const atRest = { seconds: restSeconds, changes: nodeChanges.total - restChanges0, cpu: new Map([...rest1].map(([p, v]) => [p, v - rest0.get(p)!] as const)) };

    const runStep = async (scale: number, version: string, first: boolean): Promise<Step> => {
      if (!first) {
        await stopSim();
        sim = await simAt(scale, false);
        simStopped = undefined;
      }
      await sim.upgrade(version);
      // The simulated MCO renders the pool's new config, then retargets the pool with optimistic
      // concurrency; while 10,000 nodes roll, the pool's status changes faster than that write can
      // land, and it conflicts again and again. Once the config is rendered, the bench makes the
      // same retarget without the precondition (the simulator then sees it done).
      const want = renderedName("worker", version);
      const diagnose = (err: Error) => {
        // Say where the control plane stopped: the CVO's Progressing message names what it waits on.
        const cv = sim.world.get("cv", "version");
        const progressing = (cv?.status?.conditions ?? []).find((c: { type: string }) => c.type === "Progressing");
        throw new Error(`${err.message}; ClusterVersion Progressing: ${progressing?.message ?? "?"}; worker pool at ${workerTarget()}`);
      };
      await sim.waitFor(() => workerTarget() === want || sim.world.get("mc", want) !== undefined, 300_000, `${want} rendered`).catch(diagnose);
      if (workerTarget() !== want) {
        await custom.patchClusterCustomObject(
          { group: "machineconfiguration.openshift.io", version: "v1", plural: "machineconfigpools", name: "worker", body: { spec: { configuration: { name: want } } } },
          setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
        );
      }
      await sim.waitFor(() => workerTarget() === want, 60_000, `worker pool retargeted to ${want}`).catch(diagnose);
      const windowS = windowSeconds(scale, WINDOW);
      const loopUrl = (s: ServiceName) => `http://127.0.0.1:${ports[s]!.http}/metrics`;
      const scrapeAll = async () => new Map(await Promise.all(SERVICE_NAMES.map(async (s) => [s, await scrapeLoop(loopUrl(s))] as const)));
      // This scrape also resets each service's event-loop histogram: the window's own figures follow.
      const loop0 = await scrapeAll();
      const cpu0 = cpuNow();
      const events0 = await kubeEventWrites();
      const msgs0 = await natsMessages();
      const changes0 = nodeChanges.total;
      const benchLoop = monitorEventLoopDelay({ resolution: 10 });
      benchLoop.enable();
      const tw = performance.now();
      const probed = await prober!.window(windowS);
      const seconds = (performance.now() - tw) / 1000;
      benchLoop.disable();
      const cpu1 = cpuNow();
      const loop1 = await scrapeAll();
      const changes = nodeChanges.total - changes0;
      const eventWrites = (await kubeEventWrites()) - events0;
      const msgs1 = await natsMessages();
      const target = workerTarget();
      const moved = (sim.poolMembers().get("worker") ?? []).filter((n) => n.metadata?.annotations?.["machineconfiguration.openshift.io/currentConfig"] === target).length;
      const s = summary(probed.lat);
      return {
        scale,
        windowS: seconds,
        changes,
        eventWrites,
        natsMessages: { in: msgs1.in - msgs0.in, out: msgs1.out - msgs0.out },
        rate: changes / seconds,
        probes: probed.lat.length,
        proberLoopP99Ms: probed.ownLoopP99Ms,
        lost: probed.lost,
        benchLoopP99Ms: benchLoop.percentile(99) / 1e6,
        p50: s.p50,
        p99: s.p99,
        moved,
        toAck: p50p99(probed.toAck),
        toApiWatch: p50p99(probed.toApiWatch),
        apiWatchToKv: p50p99(probed.apiWatchToKv),
        apiWatchToInsight: p50p99(probed.apiWatchToInsight),
        toKv: p50p99(probed.toKv),
        kvToWatch: p50p99(probed.kvToWatch),
        cpu: new Map([...cpu1].map(([p, v]) => [p, v - cpu0.get(p)!] as const)),
        loop: new Map(SERVICE_NAMES.map((n) => [n, loopWindow(loop0.get(n)!, loop1.get(n)!)] as const)),
        loadavg: loadavg()[0]!,
      };
    };

    const steps: Step[] = [];
    let missed = false;
    let patch = 13;
    for (const [i, scale] of SCALES.entries()) {
      if (!runsStep(scale, missed, [1, 10, STRESS])) continue;
      const step = await runStep(scale, `4.15.${patch++}`, i === 0);
      steps.push(step);
      process.stderr.write(`system: ${scale}x: ${step.rate.toFixed(0)} node changes/s over ${step.windowS.toFixed(0)} s, insight p50 ${step.p50.toFixed(0)} / p99 ${step.p99.toFixed(0)} ms (${step.probes} probes), load ${step.loadavg.toFixed(2)}\n`);
      if (!(step.p99 <= TARGET_MS)) missed = true;
    }
    await prober.stop();
    prober = undefined;
    const ladderS = (performance.now() - tLadder) / 1000;
    const api1: WriterCounters | undefined = UPDATE_API ? await writerCounters(aggregatorMetrics) : undefined;
    const avgSize = bus.total > 0 ? Math.round(bytes / bus.total) : 256;

    // The ceiling on a quiet bus: the simulator stopped and the services idle again.
    await stopSim();
    for (let last = -1, t = performance.now(); bus.total !== last && performance.now() - t < 30_000; ) {
      last = bus.total;
      await sleep(QUICK ? 500 : 2_000);
    }
    const ceiling = await rawFanoutInChildren(nats.url, samples, CEILING_PUTS, 5, 256);
    const loadBest = kvPuts.best(1_000, tStart, tSynced);

    out.push({ bench: b, metric: "cluster generation", value: genS, unit: "s" });
    out.push({ bench: b, metric: "aggregator serving every node after start", value: syncS, unit: "s" });
    const stepLabel = (s: Step) => `${s.scale}x${s.scale === 1 ? " (a real update's pace)" : s.scale === STRESS ? " (stress)" : ""}`;
    const realistic = steps.find((s) => s.scale === 1);
    for (const s of steps) {
      const l = stepLabel(s);
      out.push({ bench: b, metric: `${l}: node changes carried, ${s.windowS.toFixed(0)} s from the worker pool's start (${s.moved} nodes updated by then)`, value: s.rate, unit: "changes/s" });
      out.push({ bench: b, metric: `${l}: API write→gRPC insight p50 (${s.probes} probes)`, value: s.p50, unit: "ms" });
      // 1x and 10x carry the target; the stress step and the ladder's other steps are reported without.
      const targeted = s.scale === 1 || s.scale === 10;
      out.push({ bench: b, metric: `${l}: API write→gRPC insight p99`, value: s.p99, unit: "ms", ...(targeted ? { target: `<= ${TARGET_MS}`, ok: s.p99 <= TARGET_MS } : {}) });
      // The same probes from the moment the API server delivered the change to a watcher: what
      // Lockstep adds, without kube-sim's own queueing (a real API server runs on other machines).
      out.push({ bench: b, metric: `${l}:   ... API watch event→gRPC insight (Lockstep's part: watcher, NATS, aggregator) p50 / p99`, value: s.apiWatchToInsight.p50, unit: `ms / ${s.apiWatchToInsight.p99.toFixed(0)} ms` });
      out.push({ bench: b, metric: `${l}:   ... API write→state-plane write (watcher) p50 / p99`, value: s.toKv.p50, unit: `ms / ${s.toKv.p99.toFixed(0)} ms` });
      out.push({ bench: b, metric: `${l}:   ...   of it: API write→response p50 / p99`, value: s.toAck.p50, unit: `ms / ${s.toAck.p99.toFixed(0)} ms` });
      out.push({ bench: b, metric: `${l}:   ...   of it: API write→event in another API watch of the node (the API server's part) p50 / p99`, value: s.toApiWatch.p50, unit: `ms / ${s.toApiWatch.p99.toFixed(0)} ms` });
      out.push({ bench: b, metric: `${l}:   ...   of it: that API watch event→state-plane write (watcher, NATS publish) p50 / p99`, value: s.apiWatchToKv.p50, unit: `ms / ${s.apiWatchToKv.p99.toFixed(0)} ms` });
      out.push({ bench: b, metric: `${l}:   ... state-plane write→watch message (aggregator) p50 / p99`, value: s.kvToWatch.p50, unit: `ms / ${s.kvToWatch.p99.toFixed(0)} ms` });
      out.push({ bench: b, metric: `${l}:   ... 1-min loadavg at the window's end (2 cores; other work included)`, value: s.loadavg, unit: "" });
      out.push({ bench: b, metric: `${l}:   ... probes never seen within 5 s (counted as 5 s): their state-plane write seen / cordon changed back by another writer`, value: s.lost.total, unit: `probes: ${s.lost.kvSeen} / ${s.lost.overwritten}` });
      out.push({ bench: b, metric: `${l}:   ... prober's own event-loop delay p99 (bench process with cluster-sim: ${s.benchLoopP99Ms.toFixed(0)} ms)`, value: s.proberLoopP99Ms, unit: "ms" });
      for (const [name, w] of s.loop) {
        out.push({ bench: b, metric: `${l}:   ... ${name}: event-loop delay p99 / max; GC pauses in the window`, value: w.lagP99Ms, unit: `ms / ${w.lagMaxMs.toFixed(0)} ms; ${(w.gcSeconds * 1000).toFixed(0)} ms in ${w.gcCount} GCs` });
      }
      // Who had the two cores in the window: the services against the harness (at 10x they compete).
      const cores = (parts: readonly Part[]) => {
        const each = parts.map((p) => [p, (s.cpu.get(p) ?? 0) / s.windowS] as const);
        return { total: each.reduce((n, [, c]) => n + c, 0), detail: each.map(([p, c]) => `${p} ${c.toFixed(2)}`).join(", ") };
      };
      const services = cores(SERVICE_NAMES), harness = cores(HARNESS);
      out.push({ bench: b, metric: `${l}:   ... cores busy in the window: the five services`, value: services.total, unit: `cores (${services.detail})` });
      out.push({ bench: b, metric: `${l}:   ... cores busy in the window: the harness`, value: harness.total, unit: `cores (${harness.detail})` });
    }
    const cap = capacityOf(steps, TARGET_MS) as Step | undefined;
    out.push({ bench: b, metric: `capacity: highest node-change rate with insight p99 <= ${TARGET_MS} ms (${cap ? `${cap.scale}x step` : "no step met it"})`, value: cap?.rate ?? 0, unit: "changes/s" });
    out.push({ bench: b, metric: "headroom: capacity ÷ the 1x rate", value: cap && realistic ? cap.rate / realistic.rate : 0, unit: "×" });
    // Where the CPU goes per node change, at the capacity step (or the first step when none met it).
    for (const st of steps) {
      const perChange = st.changes > 0 ? st.eventWrites / st.changes : 0;
      out.push({ bench: b, metric: `nats-server messages in / out per node change at ${st.scale}x`, value: st.changes > 0 ? st.natsMessages.in / st.changes : 0, unit: `/ ${st.changes > 0 ? (st.natsMessages.out / st.changes).toFixed(1) : "0"}` });
      out.push({ bench: b, metric: `Kubernetes Event writes per node change at ${st.scale}x (${st.eventWrites} writes, ${st.changes} changes)`, value: perChange, unit: "writes", target: "<= 0.1", ok: perChange <= 0.1 });
    }
    for (const [part, sec] of atRest.cpu) {
      out.push({ bench: b, metric: `CPU at rest (all nodes served, no update running; ${(atRest.changes / atRest.seconds).toFixed(1)} node changes/s): ${part}`, value: sec / atRest.seconds, unit: "cores" });
    }
    const at = cap ?? steps[0];
    if (at) {
      for (const [part, sec] of at.cpu) {
        out.push({ bench: b, metric: `CPU per 1,000 node changes at ${at.scale}x: ${part}`, value: at.changes > 0 ? (sec / at.changes) * 1000 : NaN, unit: "CPU-s" });
      }
      const all = [...at.cpu.values()].reduce((x, y) => x + y, 0);
      out.push({ bench: b, metric: `CPU per 1,000 node changes at ${at.scale}x: everything (${(all / at.windowS).toFixed(2)} of 2 cores busy)`, value: at.changes > 0 ? (all / at.changes) * 1000 : NaN, unit: "CPU-s" });
    }
    for (const name of SERVICE_NAMES) {
      const peak = procPeakRssMb(system.processes.get(name)!.pid!);
      out.push({ bench: b, metric: `${name} peak RSS (${[env[name]!.NODE_OPTIONS || "node's default heap", env[name]!.V8_OPTIMIZE_FOR_SIZE && "V8_OPTIMIZE_FOR_SIZE", env[name]!.MALLOC_ARENA_MAX && `MALLOC_ARENA_MAX=${env[name]!.MALLOC_ARENA_MAX}`].filter(Boolean).join(", ")})`, value: peak, unit: "MiB", target: "<= 150", ok: peak <= 150 });
    }
    if (api0 && api1) {
      const changes = api1.nodeChanges - api0.nodeChanges;
      const nodeWrites = api1.nodeWrites - api0.nodeWrites;
      out.push({ bench: b, metric: `Update Status API: every object written after the aggregator synced (cap ${UPDATE_API_WPS}/s)`, value: apiPopulateS, unit: "s" });
      out.push({ bench: b, metric: "  ... status-aggregator RSS / peak RSS once every object was written", value: apiPopulatedRss.now, unit: `MiB / ${apiPopulatedRss.peak.toFixed(0)} MiB` });
      out.push({ bench: b, metric: `Update Status API: node state changes seen during the ladder`, value: changes, unit: "changes" });
      out.push({
        bench: b,
        metric: "Update Status API: NodeProgressInsight writes per node state change",
        value: changes > 0 ? nodeWrites / changes : 0,
        unit: "writes",
        target: "<= 1",
        ok: changes > 0 && nodeWrites <= changes,
      });
      const rate = (api1.allWrites - api0.allWrites) / ladderS;
      // A token bucket lets its burst (here as large as the rate) through on top of the rate, once.
      const bound = UPDATE_API_WPS + UPDATE_API_WPS / ladderS;
      out.push({ bench: b, metric: `Update Status API: all writes during the ladder (cap ${UPDATE_API_WPS}/s, burst ${UPDATE_API_WPS})`, value: rate, unit: "writes/s", target: `<= ${bound.toFixed(1)}`, ok: rate <= bound });
    }
    const loadS = (tSynced - tStart) / 1000;
    out.push({ bench: b, metric: `system start → all ${total} nodes served`, value: loadS, unit: "s" });
    out.push({ bench: b, metric: "bus messages carried over the whole run, mean size", value: avgSize, unit: "B" });
    out.push({ bench: b, metric: `system bus rate: state-plane puts while loading, mean (${syncPuts} puts)`, value: syncPuts / loadS, unit: "puts/s" });
    out.push({ bench: b, metric: "system bus rate: state-plane puts while loading, best 1 s", value: loadBest, unit: "puts/s" });
    out.push({ bench: b, metric: `ceiling: raw KV puts of the same values (${ceiling.avgBytes.toFixed(0)} B), 5 consumer processes decoding each`, value: ceiling.rate, unit: "puts/s" });
    const ratio = loadBest / ceiling.rate;
    out.push({ bench: b, metric: "system bus rate (best 1 s while loading) ÷ ceiling", value: ratio, unit: "ratio", target: ">= 0.5", ok: ratio >= 0.5 });
    await tap.close();
  } finally {
    await prober?.stop();
    status.close();
    await stopSim();
    await system.stop();
    await nats.stop();
    ks.stop();
    // Back to the default for whatever runs next in this process (root may lower it again).
    if (NICE_HARNESS) setPriority(process.pid, 0);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchSystem());
  process.exit(0);
}
