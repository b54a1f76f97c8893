// The system bench's insight probes in their own process, as a user's client is: it toggles a probe
// node's cordon through the API server and times it until the aggregator's watch stream shows it
// (and, on the way, until its state-plane write passes by). In the bench process itself the timing
// waited behind cluster-sim's 10,000 simulated nodes and the bus tap on the same event loop, and in
// the niced variant at their priority too. Started once, before anything is niced; the parent sends
// a window ({ windowS }), gets back one ProbeWindow per window, and sends "stop" at the end.
// argv[2]: JSON ProbeSetup.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import * as grpc from "@grpc/grpc-js";
import { CoreV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
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

const core = kubeConfigForUrl(setup.kubeUrl).makeApiClient(CoreV1Api);
const cordoned = new Map<string, boolean>();
for (const name of setup.nodes) cordoned.set(name, (await core.readNode({ name })).spec?.unschedulable === true);

async function probeWindow(windowS: number): Promise<ProbeWindow> {
  const out: ProbeWindow = { lat: [], toKv: [], kvToWatch: [], ownLoopP99Ms: 0, lost: { total: 0, kvSeen: 0, overwritten: 0 } };
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const t0 = performance.now();
  for (let i = 0; performance.now() - t0 < windowS * 1000; i++) {
    const node = setup.nodes[i % setup.nodes.length]!;
    const next = !cordoned.get(node);
    cordoned.set(node, next);
    const subject = subjectOf(node);
    kvSeen.delete(subject);
    const start = performance.now();
    const seen = new Promise<boolean>((resolve) => waiting.set(node, () => resolve(true)));
    await core.patchNode({ name: node, body: { spec: { unschedulable: next } } }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
    const ok = await Promise.race([seen, sleep(setup.timeoutMs).then(() => false)]);
    const end = performance.now();
    out.lat.push(end - start);
    const kvAt = kvSeen.get(subject);
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
