// The watcher's cost per Kubernetes watch event at 10,000 nodes, in one process: a minimal API server
// (pre-built JSON, so it costs little) lists 10,000 cluster-sim-shaped Nodes and streams node watch
// events to the watcher, which writes to a real nats-server. Prints CPU µs and bytes allocated per
// event for heartbeats (normalised away, suppressed) and for changes (each one a KV put), and the
// watcher's latency from the event's bytes leaving the API server to the KV put reaching NATS.
// Run: pnpm --dir bench exec node --import tsx watcher-path.ts   (BENCH_NODES, BENCH_EVENTS)
import * as net from "node:net";
import type { AddressInfo } from "node:net";
import { GCProfiler } from "node:v8";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { silentLogger } from "@lockstep/runtime";
import { startNatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { connect } from "@nats-io/transport-node";
import { Registry } from "prom-client";
import { printResults, sleep, summary, type BenchResult } from "./lib/stats.js";

const NODES = Number(process.env.BENCH_NODES ?? 10_000);
const EVENTS = Number(process.env.BENCH_EVENTS ?? 20_000);
const CFG_OLD = "rendered-worker-127cf0a3ce191d351c6549563946b32a";
const CFG_NEW = "rendered-worker-9d04c1e7b2aa4f0c8e61d3b5a7f29e14";
const T0 = "2026-11-21T17:46:32Z";

/** A Node as cluster-sim writes it (labels, MCO annotations, addresses, capacity, conditions, nodeInfo). */
function node(i: number, rv: number, o: { beat: number; state: string; current: string }) {
  const host = `ip-10-0-${i >> 8}-${i & 255}`;
  const name = `${host}.us-east-2.compute.internal`;
  const beat = new Date(Date.parse(T0) + o.beat * 1000).toISOString().replace(".000", "");
  const cond = (type: string, status: string, reason: string, message: string) => ({ type, status, reason, message, lastHeartbeatTime: beat, lastTransitionTime: T0 });
  const mco = "machineconfiguration.openshift.io/";
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: {
        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", "kubernetes.io/hostname": host, "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "m6i.xlarge", "node.openshift.io/os_id": "rhcos", "topology.kubernetes.io/region": "us-east-2", "topology.kubernetes.io/zone": `us-east-2${"abc"[i % 3]}`,
        "sim.lockstep.io/managed": "true", "node-role.kubernetes.io/worker": "",
      },
      annotations: {
        [`${mco}controlPlaneTopology`]: "HighlyAvailable", [`${mco}currentConfig`]: o.current, [`${mco}desiredConfig`]: CFG_NEW, [`${mco}desiredDrain`]: `uncordon-${o.current}`,
        [`${mco}lastAppliedDrain`]: `uncordon-${o.current}`, [`${mco}reason`]: "", [`${mco}state`]: o.state, [`${mco}post-config-action`]: "", "volumes.kubernetes.io/controller-managed-attach-detach": "true",
      },
      uid: `7b45f903-09a7-40c1-b95d-${String(i).padStart(12, "0")}`,
      creationTimestamp: T0,
      resourceVersion: String(rv),
    },
    spec: {},
    status: {
      addresses: [{ type: "InternalIP", address: `10.0.${i >> 8}.${i & 255}` }, { type: "Hostname", address: name }],
      capacity: { cpu: "4", "ephemeral-storage": "125293548Ki", memory: "16105720Ki", pods: "250" },
      allocatable: { cpu: "3500m", "ephemeral-storage": "114396791822", memory: "14954744Ki", pods: "250" },
      conditions: [
        cond("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        cond("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        cond("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        cond("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        architecture: "amd64", bootID: "ba5b0e1e-0cd2-404e-a0c8-6be1739013ff", containerRuntimeVersion: "cri-o://1.28.14-415.rhaos", kernelVersion: "5.14.0-284.54.1.el9_2.x86_64",
        kubeProxyVersion: "v1.28.14+afd2687", kubeletVersion: "v1.28.14+afd2687", machineID: "4a69587df8fdc015bfac37ce92ca25fe", operatingSystem: "linux",
        osImage: "Red Hat Enterprise Linux CoreOS 415.92.202404191829-0 (Plow)", systemUUID: "2c30fd51-9667-4548-a52c-fba38e2ff65b",
      },
    },
  };
}

/** Bytes allocated on the V8 heap while `fn` runs (from GC statistics: growth between collections). */
async function measure(fn: () => Promise<void>): Promise<{ cpuUs: number; allocated: number; ms: number }> {
  const { heapUsed: start } = process.memoryUsage();
  const profiler = new GCProfiler();
  profiler.start();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const end = process.memoryUsage().heapUsed;
  const { statistics } = profiler.stop();
  let allocated = 0;
  let prev = start;
  for (const s of statistics) {
    allocated += s.beforeGC.heapStatistics.usedHeapSize - prev;
    prev = s.afterGC.heapStatistics.usedHeapSize;
  }
  allocated += end - prev;
  return { cpuUs: cpu.user + cpu.system, allocated, ms };
}

export async function benchWatcherPath(): Promise<BenchResult[]> {
  const b = `watcher path ${NODES} nodes`;
  let rv = 1;
  const state = Array.from({ length: NODES }, () => ({ beat: 0, state: "Done", current: CFG_OLD }));
  const list = Buffer.from(JSON.stringify({ kind: "NodeList", apiVersion: "v1", metadata: { resourceVersion: String(rv) }, items: state.map((s, i) => node(i, rv, s)) }));
  // A raw HTTP/1.1 server (GETs only, pre-built answers), so the API side costs little next to the watcher.
  let watch: { sock: net.Socket; write(text: string): void; end(): void } | undefined;
  const server = net.createServer((sock) => {
    let buf = "";
    sock.setNoDelay(true);
    sock.on("error", () => {});
    sock.on("data", (d) => {
      buf += d.toString("latin1");
      let end: number;
      while ((end = buf.indexOf("\r\n\r\n")) >= 0) {
        const target = buf.slice(0, end).split(" ")[1]!;
        buf = buf.slice(end + 4);
        const url = new URL(target, "http://x");
        const reply = (status: number, body: Buffer | string) => {
          sock.write(`HTTP/1.1 ${status} X\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n`);
          sock.write(body);
        };
        if (url.pathname !== "/api/v1/nodes") reply(404, '{"kind":"Status","code":404}');
        else if (url.searchParams.get("watch") !== "true") reply(200, list);
        else {
          sock.write("HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n");
          watch = { sock, write: (text) => sock.write(`${Buffer.byteLength(text).toString(16)}\r\n${text}\r\n`), end: () => sock.end("0\r\n\r\n") };
        }
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const nats = await startNatsServer();
  const tap = await connect({ servers: nats.url });
  let puts = 0;
  let lastPutAt = 0;
  tap.subscribe("$KV.lockstep-state-v1.>", { callback: () => void ((puts += 1), (lastPutAt = performance.now())) });
  await tap.flush();

  const registry = new Registry();
  const stop = new AbortController();
  let events = 0;
  const running = watcherRunnable({
    kc: kubeConfigForUrl(`http://127.0.0.1:${(server.address() as AddressInfo).port}`),
    bus: { servers: nats.url },
    logger: silentLogger(),
    registry,
    leaseNamespaces: [],
    bootImagesNamespace: "openshift-machine-config-operator",
    bootImagesName: "coreos-bootimages",
  }).start(stop.signal);
  const counted = async () => {
    const m = (await registry.getSingleMetric("lockstep_watcher_watch_events_total")!.get()).values;
    return m.filter((v) => v.labels.resource === "nodes" && v.labels.type === "MODIFIED").reduce((a, v) => a + v.value, 0);
  };
  while (puts < NODES + 1 || !watch) await sleep(50); // every node and meta.synced written, watch open
  await sleep(500);

  // Events are sent as the API server sends them: one write per event, a few at a time.
  const line = (i: number, s: (typeof state)[number]) => `${JSON.stringify({ type: "MODIFIED", object: node(i, ++rv, s) })}\n`;
  const send = async (lines: string[]) => {
    for (let i = 0; i < lines.length; i++) {
      watch!.write(lines[i]!);
      if (i % 16 === 15) await new Promise((r) => setImmediate(r));
    }
    watch!.write(`{"type":"BOOKMARK","object":{"kind":"Node","apiVersion":"v1","metadata":{"resourceVersion":"${rv}"}}}\n`);
  };
  const out: BenchResult[] = [];
  const phase = async (label: string, make: (k: number) => string, expectPuts: number) => {
    const lines = Array.from({ length: EVENTS }, (_, k) => make(k));
    const puts0 = puts;
    const target = (await counted()) + EVENTS;
    global.gc?.();
    const m = await measure(async () => {
      await send(lines);
      while ((await counted()) < target || puts - puts0 < expectPuts) {
        await sleep(2);
      }
    });
    out.push({ bench: b, metric: `${label}: CPU per event (process)`, value: m.cpuUs / EVENTS, unit: "µs" });
    out.push({ bench: b, metric: `${label}: allocated per event`, value: m.allocated / EVENTS / 1024, unit: "KiB" });
    out.push({ bench: b, metric: `${label}: events/s`, value: EVENTS / (m.ms / 1000), unit: "/s" });
  };
  // Heartbeats: only lastHeartbeatTime moves; the snapshot is unchanged and nothing is written.
  await phase("heartbeats", (k) => line(k % NODES, { ...state[k % NODES]!, beat: ++state[k % NODES]!.beat }), 0);
  // Changes: the MCO state flips, every event is a KV put.
  await phase("changes", (k) => {
    const s = state[k % NODES]!;
    s.state = s.state === "Done" ? "Working" : "Done";
    return line(k % NODES, s);
  }, EVENTS);

  // Latency, one change at a time: event bytes written by the API server → KV put seen on NATS.
  const lat: number[] = [];
  for (let k = 0; k < 400; k++) {
    const i = (k * 37) % NODES;
    const s = state[i]!;
    s.state = s.state === "Done" ? "Working" : "Done";
    const text = line(i, s);
    const before = puts;
    const t = performance.now();
    watch!.write(text);
    while (puts === before) await new Promise((r) => setImmediate(r));
    lat.push(lastPutAt - t);
    await sleep(5);
  }
  const l = summary(lat);
  out.push({ bench: b, metric: "event → KV put p50 / p99 (one at a time)", value: l.p50, unit: `ms / ${l.p99.toFixed(2)} ms` });
  global.gc?.();
  out.push({ bench: b, metric: "heap used after gc (whole process)", value: process.memoryUsage().heapUsed / 2 ** 20, unit: "MiB" });

  stop.abort();
  watch?.end();
  await running;
  await tap.close();
  server.close();
  await nats.stop();
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchWatcherPath());
  process.exit(0); // the informers' keep-alive sockets to the API server stay open
}
