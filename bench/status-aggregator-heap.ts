// The status aggregator's live heap and its allocation per node change, in one process without
// NATS or gRPC: node snapshots shaped like the watcher writes them for cluster-sim's nodes are
// encoded, decoded and held the way StateCache holds them, fed to an Aggregator, and a rolling update
// is walked through with coalesced flushes. heapUsed is read after gc(), so CPU load does not disturb
// the figures; allocation is sampled by V8's heap profiler (objects collected by GC included).
// Run: node --expose-gc --import tsx status-aggregator-heap.ts  (BENCH_NODES, BENCH_TOP, BENCH_SAMPLE)
// With the chart's heap flags: node --expose-gc --max-old-space-size=96 --max-semi-space-size=4 --import tsx ...
import { Session } from "node:inspector/promises";
import { pathToFileURL } from "node:url";
import type { StateChange } from "@lockstep/bus";
import {
  ClusterOperatorState,
  ClusterVersionState,
  decode,
  InternTable,
  MachineConfigState,
  NodeState,
  parseStateKey,
  PoolState,
  StateKinds,
  stateKey,
  type StateKindName,
} from "@lockstep/contracts";
import { silentLogger } from "@lockstep/runtime";
import type { Aggregator as AggregatorClass, updateStatusServiceDefinition as Definition } from "@lockstep/status-aggregator";

// BENCH_AGGREGATOR_DIST=<dir>: the aggregator from another build (its dist/), to compare.
const dist = process.env.BENCH_AGGREGATOR_DIST;
const { Aggregator, AGGREGATOR_PROJECTIONS: projections = {}, updateStatusServiceDefinition } = (await import(dist ? pathToFileURL(`${dist}/index.js`).href : "@lockstep/status-aggregator")) as {
  Aggregator: typeof AggregatorClass;
  AGGREGATOR_PROJECTIONS?: Record<string, (v: never) => unknown>;
  updateStatusServiceDefinition: typeof Definition;
};
const serializeAnswer = updateStatusServiceDefinition.getUpdateStatus.responseSerialize;

const NODES = Number(process.env.BENCH_NODES ?? 10_000);
const TOP = Number(process.env.BENCH_TOP ?? 15);
const T0 = new Date("2026-01-01T10:00:00Z");
const MiB = 2 ** 20;

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const heap = (): number => {
  gc();
  gc();
  return process.memoryUsage().heapUsed;
};

type Shape = "pending" | "working" | "draining" | "rebooting" | "updated";
const ROLLOUT: Shape[] = ["working", "draining", "rebooting", "updated"];
const nodeName = (i: number) => (i < 3 ? `master-${i}.sim.internal` : `worker-${String(i).padStart(5, "0")}.sim.internal`);
const poolOf = (i: number) => (i < 3 ? "master" : "worker");

/** A node snapshot as the watcher normalizes cluster-sim's Node objects (labels, kept conditions, nodeInfo). */
function nodeState(i: number, shape: Shape): NodeState {
  const pool = poolOf(i);
  const name = nodeName(i);
  // The MCO names a rendered config after the MD5 of its content (32 hex digits).
  const oldCfg = `rendered-${pool}-0f3c9d2a8e61b7f4c05d9e3a2b8c1f47`;
  const newCfg = `rendered-${pool}-7b1e44c0d5a9f2e8b36c1d047e5a9b2c`;
  const current = shape === "updated" ? newCfg : oldCfg;
  const desired = shape === "pending" ? oldCfg : newCfg;
  const conditions = [
    ["DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"],
    ["MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"],
    ["PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"],
    ["Ready", shape === "rebooting" ? "False" : "True", "KubeletReady", "kubelet is posting ready status"],
  ].map(([type, status, reason, message]) => ({ type: type!, status: status!, reason: reason!, message: message!, lastTransitionTime: T0 }));
  return NodeState.fromPartial({
    name,
    uid: `${(i * 2654435761) .toString(16).padStart(8, "0")}-1b2c-4d3e-a4f5-${String(i).padStart(12, "0")}`,
    labels: {
      "beta.kubernetes.io/arch": "amd64",
      "beta.kubernetes.io/os": "linux",
      "kubernetes.io/arch": "amd64",
      "kubernetes.io/hostname": name.split(".")[0]!,
      "kubernetes.io/os": "linux",
      "node.kubernetes.io/instance-type": "m6i.xlarge",
      "node.openshift.io/os_id": "rhcos",
      "topology.kubernetes.io/region": "us-east-1",
      "topology.kubernetes.io/zone": `us-east-1${"abc"[i % 3]}`,
      "lockstep.io/simulated": "true",
      [`node-role.kubernetes.io/${pool}`]: "",
    },
    roles: [pool],
    mco: {
      currentConfig: current,
      desiredConfig: desired,
      desiredConfigPresent: true,
      state: shape === "pending" || shape === "updated" ? "Done" : shape === "rebooting" ? "Rebooting" : "Working",
      desiredDrain: shape === "draining" ? `drain-${newCfg}` : `uncordon-${current}`,
      lastAppliedDrain: `uncordon-${current}`,
      controlPlaneTopology: "HighlyAvailable",
    },
    unschedulable: shape === "draining" || shape === "rebooting",
    conditions,
    creationTime: T0,
    architecture: "amd64",
    kubeletVersion: "v1.29.5+a1b2c3d",
  });
}

let revision = 0;
/**
 * Encodes and decodes a value as the state plane does, and holds it as StateCache does: the value and
 * its bytes, or only the projection the aggregator declares for the kind (the runnable's options).
 */
const cache = new Map<string, { parsed: StateChange["parsed"]; value: unknown; bytes: Uint8Array | undefined; revision: number }>();
/** StateCache's intern table: one for everything the cache decodes. */
const strings = new InternTable();
function change(kind: StateKindName, name: string, value: unknown): StateChange {
  const k = StateKinds[kind];
  const bytes = (k.codec as unknown as { encode(v: unknown): { finish(): Uint8Array } }).encode(value).finish();
  const project = projections[kind];
  const decoded = project ? project(decode(k.codec as never, k.typeName, bytes, strings) as never) : decode(k.codec as never, k.typeName, bytes, strings);
  // As the cache gets them: the key as read from the KV entry (a flat string, not the concatenation
  // stateKey builds), the parsed key from it.
  const key = Buffer.from(stateKey(kind, name), "latin1").toString("latin1");
  const rev = ++revision;
  const parsed = parseStateKey(key)!;
  cache.set(key, { parsed, value: decoded, bytes: project ? undefined : new Uint8Array(bytes), revision: rev });
  return { key, parsed, op: "put", value: decoded, revision: rev };
}

function clusterChanges(): StateChange[] {
  const out: StateChange[] = [];
  out.push(
    change(
      "clusterVersion",
      "version",
      ClusterVersionState.fromPartial({
        name: "version",
        conditions: [
          { type: "Failing", status: "False", lastTransitionTime: T0 },
          { type: "Progressing", status: "True", message: "Working towards 4.16.1", lastTransitionTime: T0 },
        ],
        history: [
          { state: "Partial", version: "4.16.1", image: "img-b", startedTime: T0 },
          { state: "Completed", version: "4.15.3", image: "img-a", startedTime: new Date("2025-12-01T10:00:00Z"), completionTime: new Date("2025-12-01T11:00:00Z") },
        ],
        desired: { version: "4.16.1", image: "img-b" },
      }),
    ),
  );
  for (let i = 0; i < 33; i++) {
    const name = `operator-${String(i).padStart(2, "0")}`;
    out.push(
      change(
        "clusterOperator",
        name,
        ClusterOperatorState.fromPartial({
          name,
          annotationKeys: ["include.release.openshift.io/self-managed-high-availability"],
          versions: [{ name: "operator", version: "4.16.1" }],
          conditions: [
            { type: "Available", status: "True", lastTransitionTime: T0 },
            { type: "Degraded", status: "False", lastTransitionTime: T0 },
            { type: "Progressing", status: "False", lastTransitionTime: T0 },
          ],
        }),
      ),
    );
  }
  for (const pool of ["master", "worker"]) {
    out.push(
      change(
        "pool",
        pool,
        PoolState.fromPartial({
          name: pool,
          nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${pool}`]: "" } },
          nodeSelectorPresent: true,
          targetConfig: `rendered-${pool}-7b1e44c0d5`,
        }),
      ),
    );
    for (const [cfg, version] of [["0f3c9d2a8e", "4.15.3"], ["7b1e44c0d5", "4.16.1"]] as const) {
      const name = `rendered-${pool}-${cfg}`;
      out.push(change("machineConfig", name, MachineConfigState.fromPartial({ name, releaseImageVersion: version })));
    }
  }
  return out;
}

const nodeChange = (i: number, shape: Shape) => change("node", nodeName(i), nodeState(i, shape));

const base = heap();
const aggregator = new Aggregator({ logger: silentLogger(), debounceMs: 1_000_000, hooks: { publishInsightChanged: async () => undefined } });
// The initial load: the snapshots alone first (what StateCache holds), then the aggregator's share.
let initial: StateChange[] | undefined = [...clusterChanges(), ...Array.from({ length: NODES }, (_, i) => nodeChange(i, i < 3 ? "updated" : "pending"))];
const toApply = initial.map((c) => c.key);
initial = undefined;
const cached = heap();
const rssCached = process.memoryUsage().rss;
for (const key of toApply) {
  const e = cache.get(key)!;
  aggregator.apply({ key, parsed: e.parsed, op: "put", value: e.value, revision: e.revision });
}
toApply.length = 0;
aggregator.markSynced();
aggregator.stop();
/** What a GetUpdateStatus (all nodes) serializes: the current snapshot, nothing recomputed. */
const answer = (): number => {
  // A build from before the snapshots (BENCH_AGGREGATOR_DIST): its handler's three calls.
  const old = aggregator as unknown as { status?: (omit: boolean) => { pools: unknown[] }; nodeFieldBytes?: () => Uint8Array };
  if (old.status && old.nodeFieldBytes) return old.status(true).pools.length + old.nodeFieldBytes().length;
  return serializeAnswer({ encoded: aggregator.current()!, omitNodes: false }).length;
};
answer();
const loaded = heap();
const rssLoaded = process.memoryUsage().rss;

// Rolling update: every worker walks pending → working → draining → rebooting → updated, 100 nodes
// at a time in flight, one flush per 100 changes (a debounce window under load), a GetUpdateStatus
// after every tenth flush.
// BENCH_SAMPLE=0: no allocation sampling (the profiler's own records are off the figures then).
const sampling = process.env.BENCH_SAMPLE !== "0";
const session = new Session();
if (sampling) {
  session.connect();
  await session.post("HeapProfiler.enable");
  await session.post("HeapProfiler.startSampling", { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
}
const WAVE = 100;
let changes = 0;
let flushes = 0;
let publishedWhileWalking = 0;
const started = performance.now();
for (let w = 3; w < NODES; w += WAVE) {
  for (const shape of ROLLOUT) {
    for (let i = w; i < Math.min(w + WAVE, NODES); i++) {
      aggregator.apply(nodeChange(i, shape));
      changes++;
    }
    aggregator.flush();
    if (++flushes % 10 === 0) answer();
  }
  publishedWhileWalking = aggregator.publishBacklog;
  await aggregator.drain();
}
answer();
const walkMs = performance.now() - started;
let profile: unknown = sampling ? (await session.post("HeapProfiler.stopSampling")).profile : undefined;
if (sampling) session.disconnect();

interface Node {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: Node[];
}
// Allocation under the aggregator's frames (anything it calls included) apart from the harness's
// own (snapshots built, encoded and decoded as the state plane would).
const byFunction = new Map<string, number>();
let allocated = 0;
let inAggregator = 0;
const walk = (n: Node, under: boolean): void => {
  const here = under || n.callFrame.url.includes("/status-aggregator/");
  if (n.selfSize > 0) {
    allocated += n.selfSize;
    if (here) {
      const url = n.callFrame.url.replace(/^.*\/(services|packages|node_modules)\//, "$1/");
      const key = `${n.callFrame.functionName || "(anonymous)"} ${url}:${n.callFrame.lineNumber + 1}`;
      byFunction.set(key, (byFunction.get(key) ?? 0) + n.selfSize);
      inAggregator += n.selfSize;
    }
  }
  for (const c of n.children) walk(c, here);
};
if (profile) walk((profile as { head: Node }).head, false);
profile = undefined;
const after = heap();

const cacheBytes = [...cache.values()].reduce((s, e) => s + (e.bytes?.length ?? 0), 0);
console.log(`nodes                                   ${NODES}`);
console.log(`live heap: snapshots held as StateCache holds them            ${((cached - base) / MiB).toFixed(1)} MiB`);
console.log(`live heap: the aggregator's own, after the initial load        ${((loaded - cached) / MiB).toFixed(1)} MiB`);
console.log(`live heap: snapshots + aggregator after the rolling update     ${((after - base) / MiB).toFixed(1)} MiB`);
console.log(`  snapshot bytes held (StateCache entry.bytes)                  ${(cacheBytes / MiB).toFixed(1)} MiB`);
console.log(`  process heapUsed after the update                             ${(after / MiB).toFixed(1)} MiB`);
console.log(`  external + array buffers                                      ${(process.memoryUsage().arrayBuffers / MiB).toFixed(1)} MiB`);
// Peak RSS of this process (the snapshots the harness holds included): with the chart's heap flags
// (--max-old-space-size=96 --max-semi-space-size=4) the closest single-process stand-in for the pod.
console.log(`  RSS after the cache load / the aggregator's load / the update  ${(rssCached / MiB).toFixed(0)} / ${(rssLoaded / MiB).toFixed(0)} / ${(process.memoryUsage().rss / MiB).toFixed(0)} MiB`);
console.log(`  peak RSS (${process.execArgv.filter((a) => a.startsWith("--max-")).join(" ") || "node's default heap"})    ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB`);
console.log(`rolling update: ${changes} node changes, ${flushes} flushes, ${walkMs.toFixed(0)} ms (${publishedWhileWalking} facts pending at a wave's end)`);
if (sampling) {
  console.log(`allocated per node change, all (sampled; the harness's snapshots included)  ${(allocated / changes).toFixed(0)} B`);
  console.log(`allocated per node change by the aggregator (apply, flush, answers, facts)  ${(inAggregator / changes).toFixed(0)} B`);
}
for (const [k, v] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, TOP)) console.log(`  ${(v / changes).toFixed(0).padStart(6)} B/change  ${k}`);
