// Watcher benchmark: kube-sim (real HTTP watches) → watcher → nats-server KV, observed by a StateCache.
// Prints: initial sync time for 10,000 nodes; sustained node changes/s end to end; p50/p99 latency
// from API write to KV; KV writes per raw watch event under heartbeat churn.
// Run: pnpm --dir bench exec node --import tsx watcher.bench.ts   (or via `pnpm bench`)
import { closeBus, connectBus, ensureStateBucket, StateCache } from "@lockstep/bus";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { startNatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { sized } from "./lib/quick.js";
import { printResults, sleep, summary, type BenchResult } from "./lib/stats.js";

const NODES = sized("BENCH_NODES", 10_000, 200);
const CHANGES = sized("BENCH_CHANGES", 20_000, 400);

export async function benchWatcher(): Promise<BenchResult[]> {
  const sim = await startKubeSim({ crds: "openshift", historyLimit: 200_000 });
  const nats = await startNatsServer();
  const nodeType = sim.store.registry.resolve("", "v1", "nodes")!;
  const name = (i: number) => `node-${i}.bench.internal`;
  const hb = (i: number, t: number) => ({
    status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ok", lastHeartbeatTime: new Date(t).toISOString(), lastTransitionTime: "2026-01-01T00:00:00Z" }] },
  });
  for (let i = 0; i < NODES; i++) {
    sim.store.create(nodeType, undefined, {
      apiVersion: "v1",
      kind: "Node",
      metadata: { name: name(i), labels: { "node-role.kubernetes.io/worker": "" }, annotations: { "machineconfiguration.openshift.io/currentConfig": "rendered-worker-1", "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-1", "machineconfiguration.openshift.io/state": "Done" } },
      ...hb(i, 0),
    });
  }

  const nc = await connectBus({ servers: nats.url });
  const cache = new StateCache(await ensureStateBucket(nc), { kinds: ["node"] });
  await cache.start();
  const arrived = new Map<string, number>();
  let kvWrites = 0;
  cache.onChange((c) => {
    kvWrites++;
    arrived.set(c.key, performance.now());
  });

  const stop = new AbortController();
  const t0 = performance.now();
  const running = watcherRunnable({
    kc: kubeConfigForUrl(sim.url),
    bus: { servers: nats.url },
    logger: silentLogger(),
    leaseNamespaces: ["lockstep-leases"],
    bootImagesNamespace: "openshift-machine-config-operator",
    bootImagesName: "coreos-bootimages",
  }).start(stop.signal);
  while (!cache.synced) await sleep(5);
  const syncMs = performance.now() - t0;
  const synced = cache.list("node").length;

  // Sustained changes: flip a label on CHANGES node writes through the API store, as fast as the
  // watch path carries them; latency per write = KV arrival - API commit.
  const sent = new Map<string, number>();
  const lat: number[] = [];
  const offBurst = cache.onChange((c) => {
    const s = sent.get(c.key);
    if (s !== undefined) {
      lat.push(performance.now() - s);
      sent.delete(c.key);
    }
  });
  const keyOf = (i: number) => `node.${name(i).replace(/\./g, "_2E")}`;
  const tc = performance.now();
  let done = 0;
  for (let i = 0; i < CHANGES; i++) {
    const n = i % NODES;
    sim.store.patch(nodeType, undefined, name(n), "application/merge-patch+json", { metadata: { labels: { gen: String(i) } } });
    if (!sent.has(keyOf(n))) sent.set(keyOf(n), performance.now());
    if (i % 500 === 499) await sleep(0); // let the server stream events while we write
    done++;
  }
  const target = CHANGES;
  while (lat.length < Math.min(target, NODES) && performance.now() - tc < 60_000) {
    const last = cache.get("node", name((CHANGES - 1) % NODES));
    if (last?.labels.gen === String(CHANGES - 1) && sent.size === 0) break;
    await sleep(5);
  }
  const last = () => cache.get("node", name((CHANGES - 1) % NODES))?.labels.gen === String(CHANGES - 1);
  while (!last()) await sleep(2);
  const changesPerSec = done / ((performance.now() - tc) / 1000);
  offBurst();
  sent.clear();

  // Latency at a steady moderate rate (1,000 changes/s), which is what p50/p99 targets mean.
  const steady: number[] = [];
  const off = cache.onChange((c) => {
    const s = sent.get(c.key);
    if (s !== undefined) {
      steady.push(performance.now() - s);
      sent.delete(c.key);
    }
  });
  for (let i = 0; i < 2_000; i++) {
    const n = (i * 7) % NODES;
    sent.set(keyOf(n), performance.now());
    sim.store.patch(nodeType, undefined, name(n), "application/merge-patch+json", { metadata: { labels: { steady: String(i) } } });
    if (i % 10 === 9) await sleep(10);
  }
  while (sent.size > 0) await sleep(5);
  off();

  // Heartbeat churn: every node heartbeats twice; KV writes per raw watch event.
  const writesBefore = kvWrites;
  let rawEvents = 0;
  sim.store.onCommit(() => void rawEvents++);
  for (let round = 1; round <= 2; round++) {
    for (let i = 0; i < NODES; i++) sim.store.patch(nodeType, undefined, name(i), "application/merge-patch+json", hb(i, round * 10_000), { subresource: "status" });
    await sleep(0);
  }
  sim.store.patch(nodeType, undefined, name(1), "application/merge-patch+json", { spec: { unschedulable: true } }); // one real change
  while (!cache.get("node", name(1))?.unschedulable) await sleep(5);
  const churnWrites = kvWrites - writesBefore;

  stop.abort();
  await running;
  cache.stop();
  await closeBus(nc);
  await nats.stop();
  await sim.stop();
  const s = summary(steady);
  return [
    { bench: "watcher", metric: `initial sync (${synced} nodes)`, value: syncMs, unit: "ms", target: "< 5000", ok: syncMs < 5000 },
    { bench: "watcher", metric: "node changes carried API→KV", value: changesPerSec, unit: "changes/s", target: ">= 5000", ok: changesPerSec >= 5000 },
    { bench: "watcher", metric: "API write→KV latency p50 (1k/s)", value: s.p50, unit: "ms" },
    { bench: "watcher", metric: "API write→KV latency p99 (1k/s)", value: s.p99, unit: "ms", target: "< 100", ok: s.p99 < 100 },
    { bench: "watcher", metric: "KV writes per raw event (heartbeats)", value: churnWrites / rawEvents, unit: "ratio", target: "<= 0.05", ok: churnWrites / rawEvents <= 0.05 },
  ];
}

if (import.meta.url === `file://${process.argv[1]}`) {
  printResults(await benchWatcher());
}
