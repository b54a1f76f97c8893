// The system bench's insight probes in their own process, as a user's client is: it toggles a probe
// node's cordon through the API server and times it until the aggregator's watch stream shows it
// (and, on the way, until the API server acknowledges the write, until the change reaches a watch
// of that node of the prober's own (what any API watcher waits for: the API server's part), and
// until its state-plane write passes by). In the bench process itself the timing
// waited behind cluster-sim's 10,000 simulated nodes and the bus tap on the same event loop, and in
// the niced variant at their priority too. Started once, before anything is niced; the parent sends
// a window ({ windowS }), gets back one ProbeWindow per window, and sends "stop" at the end.
// argv[2]: JSON ProbeSetup.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import * as grpc from "@grpc/grpc-js";
import { CoreV1Api, PatchStrategy, setHeaderOptions, Watch, type V1Node } from "@kubernetes/client-node";
import { kubeConfigForUrl } from "@lockstep/cluster-sim";
import { stateKey, STATE_BUCKET, UpdateStatusServiceClient } from "@lockstep/contracts";
import { connect } from "@nats-io/transport-node";

export interface ProbeSetup {
  kubeUrl: string;
  natsUrl: string;
  statusAddress: string;
  nodes: string[];
  /** Pause between one probe's end and the next one's start. */
  gapMs: number;
  /** A probe never seen within this counts as this long (dropping it would flatter the p99). */
  timeoutMs: number;
}

export interface ProbeWindow {
  /** API write → insight in the watch stream, per probe (ms). */
  lat: number[];
  /** API write → its response (ms). */
  toAck: number[];
  /** API write → the change in the prober's own watch of the node (ms): the API server's part. */
  toApiWatch: number[];
  /** The prober's API watch event → the node's state-plane write (ms): the watcher's part, its NATS publish included. */
  apiWatchToKv: number[];
  /** The prober's API watch event → insight in the watch stream (ms): Lockstep's part (watcher, NATS, aggregator). */
  apiWatchToInsight: number[];
  /** API write → the node's state-plane write passing by, for probes seen in both (ms). */
  toKv: number[];
  /** That state-plane write → the watch message (ms). */
  kvToWatch: number[];
  /** This process's own event-loop delay p99 (ms): how much of the figures the timing itself added. */
  ownLoopP99Ms: number;
  /**
   * Probes never seen in the watch stream: how many, of those how many state-plane writes passed by,
   * and how many found the node's cordon changed back by someone else (then not the system's fault).
   */
  lost: { total: number; kvSeen: number; overwritten: number };
}

const setup = JSON.parse(process.argv[2]!) as ProbeSetup;
const kvPrefix = `$KV.${STATE_BUCKET}.`;
const subjectOf = (node: string) => `${kvPrefix}${stateKey("node", node)}`;

const nc = await connect({ servers: setup.natsUrl });
const kvSeen = new Map<string, number>();
const watched = new Set(setup.nodes.map(subjectOf));
for (const subject of watched) {
  nc.subscribe(subject, { callback: (_e, m) => void (kvSeen.has(m.subject) || kvSeen.set(m.subject, performance.now())) });
}
await nc.flush();

// One watch per probe node (a field selector names one object); restarted when the server ends it.
const kc = kubeConfigForUrl(setup.kubeUrl);
const apiSeen = new Map<string, { unschedulable: boolean; at: number }>();
let stopping = false;
function watchNode(name: string): void {
  void new Watch(kc)
    .watch(
      "/api/v1/nodes",
      { fieldSelector: `metadata.name=${name}` },
      (type: string, node: V1Node) => {
        if (type !== "MODIFIED") return;
        // The first event showing the cordon as it now is (a later change to the node keeps that time).
        const unschedulable = node.spec?.unschedulable === true;
        if (apiSeen.get(name)?.unschedulable !== unschedulable) apiSeen.set(name, { unschedulable, at: performance.now() });
      },
      () => {
        if (!stopping) setTimeout(() => watchNode(name), 100);
      },
    )
    .catch(() => {
      if (!stopping) setTimeout(() => watchNode(name), 100);
    });
}
for (const name of setup.nodes) watchNode(name);

const status = new UpdateStatusServiceClient(setup.statusAddress, grpc.credentials.createInsecure());
const waiting = new Map<string, () => void>();
const watch = status.watchUpdateStatus({ omitNodes: true });
const opened = new Promise<void>((resolve) => watch.once("data", () => resolve()));
watch.on("data", (m: { changedNodes: Array<{ name: string }> }) => {
  for (const n of m.changedNodes) {
    const resolve = waiting.get(n.name);
    if (resolve) {
      waiting.delete(n.name);
      resolve();
    }
  }
});
watch.on("error", () => {});
await opened;

const core = kc.makeApiClient(CoreV1Api);
const cordoned = new Map<string, boolean>();
for (const name of setup.nodes) cordoned.set(name, (await core.readNode({ name })).spec?.unschedulable === true);

async function probeWindow(windowS: number): Promise<ProbeWindow> {
  const out: ProbeWindow = { lat: [], toAck: [], toApiWatch: [], apiWatchToKv: [], apiWatchToInsight: [], toKv: [], kvToWatch: [], ownLoopP99Ms: 0, lost: { total: 0, kvSeen: 0, overwritten: 0 } };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < windowS * 1000; i++) {
    const node = setup.nodes[i % setup.nodes.length]!;
    const next = !cordoned.get(node);
    cordoned.set(node, next);
    const subject = subjectOf(node);
    kvSeen.delete(subject);
    apiSeen.delete(node);
    const start = performance.now();
    const seen = new Promise<boolean>((resolve) => waiting.set(node, () => resolve(true)));
    await core.patchNode({ name: node, body: { spec: { unschedulable: next } } }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
    const acked = performance.now();
    const ok = await Promise.race([seen, sleep(setup.timeoutMs).then(() => false)]);
    const end = performance.now();
    out.lat.push(end - start);
    out.toAck.push(acked - start);
    const kvAt = kvSeen.get(subject);
    const api = apiSeen.get(node);
    // The event of this write (the cordon as written); another writer's later change does not count.
    const apiAt = api?.unschedulable === next ? api.at : undefined;
    if (ok && apiAt !== undefined) {
      out.toApiWatch.push(apiAt - start);
      out.apiWatchToInsight.push(end - apiAt);
    }
    if (ok && apiAt !== undefined && kvAt !== undefined) out.apiWatchToKv.push(kvAt - apiAt);
    if (ok && kvAt !== undefined) {
      out.toKv.push(kvAt - start);
      out.kvToWatch.push(end - kvAt);
    }
    waiting.delete(node);
    if (!ok) {
      out.lost.total++;
      if (kvAt !== undefined) out.lost.kvSeen++;
      const now = (await core.readNode({ name: node })).spec?.unschedulable === true;
      if (now !== next) out.lost.overwritten++;
      cordoned.set(node, now);
    }
    await sleep(setup.gapMs);
  }
  loop.disable();
  out.ownLoopP99Ms = loop.percentile(99) / 1e6;
  return out;
}

process.on("message", (msg: { windowS: number } | "stop") => {
  if (msg === "stop") {
    stopping = true;
    watch.cancel();
    status.close();
    void nc.close().then(() => process.exit(0));
    return;
  }
  void probeWindow(msg.windowS).then(
    (w) => process.send!(w),
    (err: Error) => {
      process.stderr.write(`probe window failed: ${err.message}\n`);
      process.exit(1);
    },
  );
});
process.send!("ready");
