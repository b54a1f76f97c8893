// Status-aggregator benchmark at 10,000 nodes: kube-sim (real HTTP) → watcher → nats-server KV →
// aggregator, queried over real gRPC by a client in its own process. Prints p50/p99 of GetUpdateStatus and RenderStatus, node
// changes/s absorbed by the incremental view, and side by side the time to answer the same question
// the way `oc` does (list nodes, pools, MachineConfigs, ClusterOperators and the ClusterVersion from
// the API server through client-node, then compute with @lockstep/insights).
// Run: pnpm --dir bench exec node --import tsx status-aggregator.ts
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { credentials, type sendUnaryData, type ServerUnaryCall } from "@grpc/grpc-js";
import { CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { DisruptionServiceService, type GetUpdateStatusRequest, NodeState, stateKey, UpdateStatusServiceClient } from "@lockstep/contracts";
import { evaluate, inputsFromDocuments, render, wallClockNow } from "@lockstep/insights";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim } from "@lockstep/kube-sim";
import { silentLogger, startGrpcServer } from "@lockstep/runtime";
import { Aggregator, aggregatorRunnable, disruptionService, updateStatusService, updateStatusServiceDefinition } from "@lockstep/status-aggregator";
import { startNatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { CLI_NODE_FLAGS } from "../scripts/cli-node-flags.mjs";
import { sized } from "./lib/quick.js";
import { printResults, sleep, summary, timed, type BenchResult } from "./lib/stats.js";

/** What the GetUpdateStatus handler answers (the current snapshot) and the serializer takes. */
type StatusAnswer = Parameters<typeof updateStatusServiceDefinition.getUpdateStatus.responseSerialize>[0];

const NODES = sized("BENCH_NODES", 10_000, 200);
const CHANGES = sized("BENCH_CHANGES", 100_000, 1_000);
const QUERIES = sized("BENCH_QUERIES", 200, 10);
const OC_RUNS = sized("BENCH_OC_RUNS", 10, 2);
const MCO = "machineconfiguration.openshift.io";
const T0 = "2026-01-01T10:00:00Z";

type Shape = "updated" | "pending" | "working" | "rebooting" | "draining";
const SHAPES: Shape[] = ["updated", "updated", "pending", "pending", "pending", "working", "rebooting", "draining"];
/** A mid-update cluster: 40% updated, 3% in progress (the pool's maxUnavailable), the rest pending. */
function initialShape(i: number): Shape {
  const m = i % 100;
  return m < 40 ? "updated" : m === 95 ? "working" : m === 96 ? "rebooting" : m === 97 ? "draining" : "pending";
}

function annotations(pool: string, shape: Shape): Record<string, string> {
  const oldCfg = `rendered-${pool}-old`;
  const newCfg = `rendered-${pool}-new`;
  const a: Record<string, string> = {
    [`${MCO}/currentConfig`]: oldCfg,
    [`${MCO}/desiredConfig`]: newCfg,
    [`${MCO}/state`]: "Working",
    [`${MCO}/desiredDrain`]: "uncordon-a",
    [`${MCO}/lastAppliedDrain`]: "uncordon-a",
  };
  if (shape === "updated") Object.assign(a, { [`${MCO}/currentConfig`]: newCfg, [`${MCO}/state`]: "Done" });
  if (shape === "pending") Object.assign(a, { [`${MCO}/desiredConfig`]: oldCfg, [`${MCO}/state`]: "Done" });
  if (shape === "rebooting") a[`${MCO}/state`] = "Rebooting";
  if (shape === "draining") a[`${MCO}/desiredDrain`] = "drain-b";
  return a;
}

const nodeName = (i: number) => (i < 3 ? `master-${i}` : `worker-${String(i).padStart(5, "0")}.bench.internal`);
const poolOf = (i: number) => (i < 3 ? "master" : "worker");
const ready = { type: "Ready", status: "True", reason: "KubeletReady", message: "ok", lastTransitionTime: T0 };

function clusterObjects(): object[] {
  const objs: object[] = [
    {
      apiVersion: "config.openshift.io/v1",
      kind: "ClusterVersion",
      metadata: { name: "version" },
      spec: { clusterID: "bench" },
      status: {
        conditions: [
          { type: "Failing", status: "False", lastTransitionTime: T0 },
          { type: "Progressing", status: "True", message: "Working towards 4.16.1", lastTransitionTime: T0 },
        ],
        history: [
          { state: "Partial", version: "4.16.1", image: "img-b", startedTime: T0, verified: true },
          { state: "Completed", version: "4.15.3", image: "img-a", startedTime: "2025-12-01T10:00:00Z", completionTime: "2025-12-01T11:00:00Z", verified: true },
        ],
        desired: { version: "4.16.1", image: "img-b" },
      },
    },
  ];
  for (let i = 0; i < 33; i++) {
    objs.push({
      apiVersion: "config.openshift.io/v1",
      kind: "ClusterOperator",
      metadata: { name: `operator-${String(i).padStart(2, "0")}`, annotations: { "include.release.openshift.io/self-managed-high-availability": "true" } },
      status: {
        versions: [{ name: "operator", version: i < 30 ? "4.16.1" : "4.15.3" }],
        conditions: [
          { type: "Available", status: "True", lastTransitionTime: T0 },
          { type: "Degraded", status: "False", lastTransitionTime: T0 },
          { type: "Progressing", status: i >= 31 ? "True" : "False", reason: "Rolling", message: "rolling", lastTransitionTime: "2026-01-01T10:30:00Z" },
        ],
      },
    });
  }
  for (const pool of ["master", "worker"]) {
    objs.push({
      apiVersion: `${MCO}/v1`,
      kind: "MachineConfigPool",
      metadata: { name: pool },
      spec: { nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${pool}`]: "" } }, configuration: { name: `rendered-${pool}-new` } },
    });
    for (const [suffix, version] of [["old", "4.15.3"], ["new", "4.16.1"]]) {
      objs.push({ apiVersion: `${MCO}/v1`, kind: "MachineConfig", metadata: { name: `rendered-${pool}-${suffix}`, annotations: { [`${MCO}/release-image-version`]: version } }, spec: {} });
    }
  }
  for (let i = 0; i < NODES; i++) {
    objs.push({
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: nodeName(i), labels: { [`node-role.kubernetes.io/${poolOf(i)}`]: "" }, annotations: annotations(poolOf(i), i < 3 ? "updated" : initialShape(i)) },
      status: { conditions: [ready] },
    });
  }
  return objs;
}

/** The snapshot the watcher would write for a node in a given shape (changes fed straight to the view). */
function nodeState(i: number, shape: Shape): NodeState {
  const a = annotations(poolOf(i), shape);
  return NodeState.fromPartial({
    name: nodeName(i),
    labels: { [`node-role.kubernetes.io/${poolOf(i)}`]: "" },
    roles: [poolOf(i)],
    mco: {
      currentConfig: a[`${MCO}/currentConfig`],
      desiredConfig: a[`${MCO}/desiredConfig`],
      desiredConfigPresent: true,
      state: a[`${MCO}/state`],
      desiredDrain: a[`${MCO}/desiredDrain`],
      lastAppliedDrain: a[`${MCO}/lastAppliedDrain`],
    },
    conditions: [{ ...ready, lastTransitionTime: new Date(T0) }],
  });
}

interface ClientFigures {
  getFull: number[];
  decode: number[];
  gcPerCall: number;
  gcMax: number;
  getSummary: number[];
  renderNone: number[];
  renderAll: number[];
}

/** One RenderStatus(none) from this process, for comparing texts of the same moment. */
function renderNoneOnce(address: string): Promise<string> {
  const client = new UpdateStatusServiceClient(address, credentials.createInsecure());
  return new Promise<string>((resolve, reject) => client.renderStatus({ details: "none" }, (err, res) => (err ? reject(err) : resolve(res.text)))).finally(() => client.close());
}

/** Runs the query client in its own process; resolves with its figures. */
function runStatusClient(address: string): Promise<ClientFigures> {
  return new Promise((resolve, reject) => {
    const script = fileURLToPath(new URL("lib/status-client-process.ts", import.meta.url));
    // With the CLI's own node flags (BENCH_PLAIN_NODE=1: node's defaults).
    const flags = process.env.BENCH_PLAIN_NODE === "1" ? [] : CLI_NODE_FLAGS;
    const child = spawn(process.execPath, [...flags, "--import", "tsx", script, address], { env: { ...process.env, BENCH_QUERIES: String(QUERIES) }, stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    child.once("exit", (code) => {
      try {
        if (code !== 0) throw new Error(`status client exited with ${code}`);
        resolve(JSON.parse(out.trim().split("\n").at(-1)!) as ClientFigures);
      } catch (err) {
        reject(err);
      }
    });
  });
}

export async function benchStatusAggregator(): Promise<BenchResult[]> {
  const sim = await startKubeSim({ crds: "openshift", historyLimit: 50_000 });
  await sim.load({ objects: clusterObjects() as never });
  const nats = await startNatsServer();
  const kc = kubeConfigForUrl(sim.url);
  const stop = new AbortController();
  const running = [
    watcherRunnable({
      kc,
      bus: { servers: nats.url },
      logger: silentLogger(),
      leaseNamespaces: ["lockstep-leases"],
      bootImagesNamespace: "openshift-machine-config-operator",
      bootImagesName: "coreos-bootimages",
    }).start(stop.signal),
  ];
  let publishedOk = 0;
  const aggregator = new Aggregator({ logger: silentLogger(), debounceMs: 10, hooks: { onPublished: (ok) => void (ok && publishedOk++) } });
  // Server and client run in this one process: time each side of GetUpdateStatus separately. Server:
  // the handler (the current snapshot, nothing computed) plus the response serializer.
  // Client: the response deserializer (ts-proto decode). GC pauses are counted on their own.
  const serverMs: number[] = [];
  let handlerMs = 0;
  const impl = updateStatusService(aggregator, silentLogger());
  const timedImpl = {
    ...impl,
    getUpdateStatus(call: ServerUnaryCall<GetUpdateStatusRequest, StatusAnswer>, cb: sendUnaryData<StatusAnswer>) {
      const t = performance.now();
      impl.getUpdateStatus(call, (err, res) => {
        handlerMs = performance.now() - t;
        cb(err, res);
      });
    },
  };
  const serialize = updateStatusServiceDefinition.getUpdateStatus.responseSerialize;
  const timedDefinition = {
    ...updateStatusServiceDefinition,
    getUpdateStatus: {
      ...updateStatusServiceDefinition.getUpdateStatus,
      responseSerialize: (res: StatusAnswer) => {
        const t = performance.now();
        const out = serialize(res);
        serverMs.push(handlerMs + performance.now() - t);
        return out;
      },
    },
  };
  const grpc = await startGrpcServer({
    port: 0,
    host: "127.0.0.1",
    services: [
      [timedDefinition as typeof updateStatusServiceDefinition, timedImpl],
      [DisruptionServiceService, disruptionService(aggregator, silentLogger())],
    ],
    channelOptions: { "grpc.max_send_message_length": 256 * 1024 * 1024 },
  });
  const t0 = performance.now();
  running.push(aggregatorRunnable({ aggregator, bus: { servers: nats.url }, logger: silentLogger(), watchRefreshMs: 60_000 }).start(stop.signal));
  while (!(aggregator.synced && aggregator.view.nodeCount === NODES)) await sleep(20);
  const syncMs = performance.now() - t0;

  // The client runs in its own process, as `lockstep status` does (see lib/status-client-process.ts).
  serverMs.length = 0;
  const q = await runStatusClient(`127.0.0.1:${grpc.port}`);
  const getFull = summary(q.getFull);
  const getServer = summary(serverMs.slice(-QUERIES * 2));
  const getClient = summary(q.decode);
  const gcMs = q.gcPerCall * QUERIES;
  const gcMax = q.gcMax;
  const responseBytes = aggregator.current()!.fieldsLength;
  const getSummary = summary(q.getSummary);
  const renderNone = summary(q.renderNone);
  const renderAll = summary(q.renderAll);

  // The oc way: list everything from the API server, then compute and render.
  const custom = kc.makeApiClient(CustomObjectsApi);
  const core = kc.makeApiClient(CoreV1Api);
  const list = (group: string, plural: string) => custom.listClusterCustomObject({ group, version: "v1", plural });
  let ocText = "";
  let ocInputs: ReturnType<typeof inputsFromDocuments> | undefined;
  const ocSamples = await timed(OC_RUNS, async () => {
    const [cv, co, mcp, mc, nodes] = await Promise.all([
      list("config.openshift.io", "clusterversions"),
      list("config.openshift.io", "clusteroperators"),
      list(MCO, "machineconfigpools"),
      list(MCO, "machineconfigs"),
      core.listNode(),
    ]);
    const inputs = inputsFromDocuments({ clusterVersion: cv, clusterOperators: co, machineConfigPools: mcp, machineConfigs: mc, nodes: JSON.parse(JSON.stringify(nodes)) });
    ocText = render(evaluate(inputs, { now: wallClockNow(), wallClock: wallClockNow() }), "none");
    ocInputs = inputs;
  });
  const oc = summary(ocSamples);
  // The same moment for both texts (durations match): the oc way's last inputs evaluated at the "now"
  // of the snapshot the answer came from (answers are at most a second behind the clock).
  const liveText = await renderNoneOnce(`127.0.0.1:${grpc.port}`);
  const answeredAt = aggregator.current()!.evaluation().evaluation.now;
  ocText = render(evaluate(ocInputs!, { now: answeredAt, wallClock: answeredAt }), "none");
  const sameTable = liveText.split("\n").slice(0, 12).join("\n") === ocText.split("\n").slice(0, 12).join("\n");

  // Absorption: node snapshot changes applied to the live view, recomputed in coalesced batches
  // (one flush per BATCH changes, like the debounce window does under a burst).
  const results: BenchResult[] = [];
  const runs: Array<[number, boolean]> = [
    [100, true],
    [1000, true],
    [100, false],
  ];
  // With publishing, the recompute yields to the event loop after every flush (as the debounce timer
  // does), so acks are processed while it runs; "absorbed" stops when the last flush returns,
  // "published" when the last insight.changed is acknowledged by JetStream.
  for (const [batch, publishing] of runs) {
    // Without publishing: the view alone (insight.changed facts dropped) to separate the two costs.
    if (!publishing) aggregator.attachPublisher(async () => undefined);
    let rev = 1_000_000 + (batch + (publishing ? 1 : 0)) * CHANGES;
    const changes = Array.from({ length: CHANGES }, (_, k) => {
      const i = 3 + ((k * 7919) % (NODES - 3));
      const value = nodeState(i, SHAPES[(k + i) % SHAPES.length]!);
      return { key: stateKey("node", value.name), parsed: { kind: "node" as const, name: value.name }, op: "put" as const, value, revision: rev++ };
    });
    const evalsBefore = aggregator.view.stats.nodeEvaluations;
    const published0 = publishedOk;
    let maxBacklog = 0;
    const t = performance.now();
    for (let k = 0; k < changes.length; k++) {
      aggregator.apply(changes[k]!);
      if ((k + 1) % batch === 0) {
        aggregator.flush();
        maxBacklog = Math.max(maxBacklog, aggregator.publishBacklog);
        if (publishing) await new Promise((r) => setImmediate(r));
      }
    }
    aggregator.flush();
    const ms = performance.now() - t;
    await aggregator.drain();
    const msPublished = performance.now() - t;
    const facts = publishedOk - published0;
    const label = `flush every ${batch}${publishing ? ", events published" : ", view only"}`;
    results.push({ bench: "status-aggregator", metric: `node changes absorbed (${label})`, value: (CHANGES / ms) * 1000, unit: "changes/s", target: ">= 20000", ok: (CHANGES / ms) * 1000 >= 20_000 });
    if (publishing) {
      results.push({ bench: "status-aggregator", metric: `  ... until every insight.changed acked (${facts} facts)`, value: (CHANGES / msPublished) * 1000, unit: "changes/s" });
      results.push({ bench: "status-aggregator", metric: `  ... insight.changed acked per second`, value: (facts / msPublished) * 1000, unit: "events/s" });
      results.push({ bench: "status-aggregator", metric: `  ... largest publish backlog`, value: maxBacklog, unit: "events" });
    }
    results.push({ bench: "status-aggregator", metric: `node rows re-evaluated (${label})`, value: aggregator.view.stats.nodeEvaluations - evalsBefore, unit: "rows", target: `<= ${CHANGES}` });
  }
  const heapMb = process.memoryUsage().heapUsed / 2 ** 20;

  stop.abort();
  await Promise.allSettled(running);
  await grpc.stop(500);
  await nats.stop();
  await sim.stop();

  const speedup = oc.p50 / renderNone.p50;
  return [
    { bench: "status-aggregator", metric: `nodes`, value: NODES, unit: "nodes" },
    { bench: "status-aggregator", metric: "initial sync (watcher → KV → view)", value: syncMs, unit: "ms" },
    { bench: "status-aggregator", metric: "GetUpdateStatus (all nodes) p50", value: getFull.p50, unit: "ms" },
    { bench: "status-aggregator", metric: "GetUpdateStatus (all nodes) p99", value: getFull.p99, unit: "ms", target: "<= 50", ok: getFull.p99 <= 50 },
    { bench: "status-aggregator", metric: `  ... response size`, value: responseBytes / 2 ** 20, unit: "MiB" },
    { bench: "status-aggregator", metric: "  ... server (handler + serialize) p50", value: getServer.p50, unit: "ms" },
    { bench: "status-aggregator", metric: "  ... server (handler + serialize) p99", value: getServer.p99, unit: "ms", target: "<= 50", ok: getServer.p99 <= 50 },
    { bench: "status-aggregator", metric: "  ... client decode p50", value: getClient.p50, unit: "ms" },
    { bench: "status-aggregator", metric: "  ... client decode p99", value: getClient.p99, unit: "ms" },
    { bench: "status-aggregator", metric: "  ... client GC pause per call (mean; overlaps decode)", value: gcMs / QUERIES, unit: "ms" },
    { bench: "status-aggregator", metric: "  ... client GC pause, longest", value: gcMax, unit: "ms" },
    { bench: "status-aggregator", metric: "GetUpdateStatus (omit_nodes) p50", value: getSummary.p50, unit: "ms" },
    { bench: "status-aggregator", metric: "GetUpdateStatus (omit_nodes) p99", value: getSummary.p99, unit: "ms", target: "<= 50", ok: getSummary.p99 <= 50 },
    { bench: "status-aggregator", metric: "RenderStatus none p50", value: renderNone.p50, unit: "ms" },
    { bench: "status-aggregator", metric: "RenderStatus none p99", value: renderNone.p99, unit: "ms", target: "<= 50", ok: renderNone.p99 <= 50 },
    { bench: "status-aggregator", metric: "RenderStatus all p50", value: renderAll.p50, unit: "ms" },
    { bench: "status-aggregator", metric: "RenderStatus all p99", value: renderAll.p99, unit: "ms", target: "<= 50", ok: renderAll.p99 <= 50 },
    { bench: "status-aggregator", metric: "oc way: list + compute p50", value: oc.p50, unit: "ms" },
    { bench: "status-aggregator", metric: "oc way: list + compute p99", value: oc.p99, unit: "ms" },
    { bench: "status-aggregator", metric: "speed-up vs oc way (p50 / RenderStatus p50)", value: speedup, unit: "x", target: ">= 20", ok: speedup >= 20 },
    { bench: "status-aggregator", metric: "oc way and RenderStatus print the same header and pools", value: sameTable ? 1 : 0, unit: "bool" },
    ...results,
    { bench: "status-aggregator", metric: "heap used at the end (process: kube-sim, watcher, aggregator)", value: heapMb, unit: "MiB" },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchStatusAggregator());
  process.exit(0);
}
