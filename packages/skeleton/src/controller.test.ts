// Controllers of a state consumer against a real nats-server: a change of a controller's kinds
// enqueues its keys and every key is reconciled after meta.synced (the cache loads the controllers'
// kinds too); nothing is reconciled while the view is stale, and all is once fresh again; a
// leader-only controller reconciles only while leading; changes fold within a delay, every key comes
// again at each resync; controllers built by `wire` share its core; queues and durations are metrics.
import { closeBus, connectBus, ensureStateBucket, type StateCache } from "@lockstep/bus";
import { encode, Heartbeat, HEARTBEAT_KEY, NodeState, stateKey, SyncMarker, SYNCED_KEY } from "@lockstep/contracts";
import { createLogger, createMetricsRegistry, silentLogger, type BaseConfig, type Logger } from "@lockstep/runtime";
import { startNatsServer, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Controller } from "./controller.js";
import { leaderElection } from "./leader.js";
import { stateConsumer, type StateBucket, type StatePlane } from "./state-plane.js";

let srv: NatsServer;
let writer: Awaited<ReturnType<typeof connectBus>>;
let kv: StateBucket;

beforeAll(async () => {
  srv = await startNatsServer();
  writer = await connectBus({ servers: srv.url, name: "writer" });
  kv = await ensureStateBucket(writer);
  await kv.put(SYNCED_KEY, encode(SyncMarker, SyncMarker.fromPartial({})));
});

afterAll(async () => {
  await closeBus(writer);
  await srv.stop();
});

const putNode = (name: string) => kv.put(stateKey("node", name), encode(NodeState, NodeState.fromPartial({ name })));

/** The watcher's heartbeat, every 100 ms until stopped (the view stays fresh within its 1 s bound). */
function heartbeat(): { stop(): void } {
  let generation = 0;
  const beat = () => void kv.put(HEARTBEAT_KEY, encode(Heartbeat, Heartbeat.fromPartial({ generation: String(++generation), time: new Date(), writer: "test" }))).catch(() => undefined);
  beat();
  const timer = setInterval(beat, 100);
  return { stop: () => clearInterval(timer) };
}

/** A per-node controller that records the keys it reconciles. */
function nodeController(name: string, prefix: string, o: Pick<Controller, "leaderOnly" | "delayMs" | "resyncMs"> = {}): Controller & { seen: string[] } {
  const seen: string[] = [];
  return {
    name,
    seen,
    kinds: ["node"],
    ...o,
    keysFor: (c) => (c.parsed.name.startsWith(prefix) ? [c.parsed.name] : []),
    allKeys: (cache: StateCache) => cache.list("node").map((n) => n.name).filter((n) => n.startsWith(prefix)),
    reconcile: (key) => void seen.push(key),
  };
}

/** Runs a consumer reading only pools, carrying `controllers`; stopped by the returned function. */
function run(controllers: Controller[], o: { logger?: Logger; leader?: ReturnType<typeof leaderElection>["gate"]; registry?: ReturnType<typeof createMetricsRegistry> } = {}) {
  const abort = new AbortController();
  let plane: StatePlane | undefined;
  const running = stateConsumer({
    name: "test-consumer",
    bus: { servers: srv.url, name: "consumer" },
    logger: o.logger ?? silentLogger(),
    kinds: ["pool"],
    notSyncedReason: "waiting",
    stateMaxAgeMs: 1_000,
    controllers,
    leader: o.leader,
    registry: o.registry,
    wire: (p) => void (plane = p),
  }).start(abort.signal);
  return {
    plane: () => plane!,
    stop: async () => {
      abort.abort();
      await running;
    },
  };
}

describe("stateConsumer controllers", () => {
  it("reconcile every key after meta.synced and the keys of each change, from a cache that loads their kinds", async () => {
    const beating = heartbeat();
    await putNode("c1-a");
    const nodes = nodeController("nodes", "c1-");
    const consumer = run([nodes]);
    try {
      await waitFor(() => nodes.seen.includes("c1-a"), { what: "the existing node reconciled after sync" });
      // The consumer reads pools only: the nodes are in its cache for the controller.
      expect(consumer.plane().cache.get("node", "c1-a")).toBeDefined();
      await putNode("c1-b");
      await waitFor(() => nodes.seen.includes("c1-b"), { what: "the new node reconciled" });
    } finally {
      await consumer.stop();
      beating.stop();
    }
  });

  it("hold every key while the view is stale and reconcile all once it is fresh again", async () => {
    let beating = heartbeat();
    const lines: Array<{ msg: string; controller?: string; key?: string }> = [];
    const logger = createLogger({ service: "test", level: "debug", destination: { write: (s: string) => void lines.push(JSON.parse(s)) } });
    await putNode("c2-a");
    const nodes = nodeController("nodes", "c2-");
    const heldKeys: Array<[string, string]> = [];
    nodes.held = (key, why) => void heldKeys.push([key, why]);
    const consumer = run([nodes], { logger });
    try {
      await waitFor(() => nodes.seen.includes("c2-a"), { what: "the existing node reconciled after sync" });
      beating.stop();
      await waitFor(() => !consumer.plane().freshness.fresh, { what: "the view stale" });
      await putNode("c2-b");
      await waitFor(() => lines.find((l) => l.msg === "controller holds a key while the view is stale" && l.key === "c2-b"), { what: "the new node held" });
      expect(nodes.seen).not.toContain("c2-b");
      // Told to the controller, with how stale the view is.
      expect(heldKeys).toContainEqual(["c2-b", expect.stringMatching(/^the watcher has not been heard from/)]);
      const before = nodes.seen.filter((k) => k === "c2-a").length;
      beating = heartbeat();
      await waitFor(() => nodes.seen.includes("c2-b"), { what: "the held node reconciled once fresh" });
      await waitFor(() => nodes.seen.filter((k) => k === "c2-a").length > before, { what: "every node reconciled again once fresh" });
    } finally {
      await consumer.stop();
      beating.stop();
    }
  });

  it("run a leader-only controller only while this replica leads, and every key when a term begins", async () => {
    const beating = heartbeat();
    await putNode("c3-a");
    // The election switched off: this replica leads exactly while the election's Runnable runs.
    const election = leaderElection({ service: "test", config: { LEADER_ELECTION: false } as BaseConfig, logger: silentLogger() });
    const writerCtl = nodeController("writer", "c3-", { leaderOnly: true });
    // Reconciles on every replica: shows when a change has been through the queues.
    const everyone = nodeController("everyone", "c3-");
    const consumer = run([writerCtl, everyone], { leader: election.gate });
    const term = new AbortController();
    try {
      await putNode("c3-b");
      await waitFor(() => everyone.seen.includes("c3-a") && everyone.seen.includes("c3-b"), { what: "both nodes through the queues" });
      expect(writerCtl.seen).toEqual([]);
      const leading = election.runnable.start(term.signal);
      await waitFor(() => writerCtl.seen.includes("c3-a") && writerCtl.seen.includes("c3-b"), { what: "every node reconciled when the term began" });
      term.abort();
      await leading;
      const done = writerCtl.seen.length;
      await putNode("c3-c");
      await waitFor(() => everyone.seen.includes("c3-c"), { what: "the new node through the queues" });
      expect(writerCtl.seen.length).toBe(done);
    } finally {
      term.abort();
      await consumer.stop();
      beating.stop();
    }
  });

  it("fold a burst of changes into one reconcile per key within the delay, and reconcile every key again at each resync", async () => {
    const beating = heartbeat();
    // One key for the whole pass; a delay far longer than the burst takes.
    const folded: Controller & { seen: string[] } = { ...nodeController("folded", "c4-", { delayMs: 2_000 }), keysFor: (c) => (c.parsed.name.startsWith("c4-") ? ["pass"] : []), allKeys: () => ["pass"] };
    const resynced = nodeController("resynced", "c4-none", { resyncMs: 100 });
    resynced.allKeys = () => ["all"];
    const everyone = nodeController("everyone", "c4-");
    const consumer = run([folded, resynced, everyone]);
    try {
      await waitFor(() => folded.seen.length === 1, { what: "the pass after sync" });
      for (const n of ["c4-a", "c4-b", "c4-c", "c4-d", "c4-e"]) await putNode(n);
      await waitFor(() => everyone.seen.includes("c4-e"), { what: "the burst through an undelayed queue" });
      await waitFor(() => folded.seen.length > 1, { what: "the burst's pass" });
      expect(folded.seen).toEqual(["pass", "pass"]);
      // Nothing changes its kinds (no node c4-none…), yet it comes round again.
      await waitFor(() => resynced.seen.length >= 3, { what: "two resyncs after the first pass" });
    } finally {
      await consumer.stop();
      beating.stop();
    }
  });

  it("count reconciles, queue depth and reconcile durations per controller on the registry", async () => {
    const beating = heartbeat();
    await putNode("c5-a");
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const nodes = nodeController("c5-nodes", "c5-");
    const consumer = run([nodes], { registry });
    try {
      await waitFor(() => nodes.seen.includes("c5-a"), { what: "the node reconciled" });
      const text = await registry.metrics();
      expect(text).toMatch(/lockstep_workqueue_processed_total\{queue="c5-nodes"\} [1-9]/);
      expect(text).toContain('lockstep_workqueue_depth{queue="c5-nodes"}');
      expect(text).toMatch(/lockstep_controller_reconcile_duration_seconds_count\{controller="c5-nodes",outcome="ok"\} [1-9]/);
    } finally {
      await consumer.stop();
      beating.stop();
    }
  });

  it("run the controllers `wire` builds around its core, and hand the core to serve and drain", async () => {
    const beating = heartbeat();
    await putNode("c6-a");
    const abort = new AbortController();
    const core = { reconciled: [] as string[] };
    let served: typeof core | undefined;
    let drained: typeof core | undefined;
    const running = stateConsumer({
      name: "test-consumer",
      bus: { servers: srv.url, name: "consumer" },
      logger: silentLogger(),
      kinds: ["node"],
      notSyncedReason: "waiting",
      stateMaxAgeMs: 1_000,
      wire: () => ({ ...core, controllers: [{ name: "wired", kinds: ["node"], reconcile: () => void core.reconciled.push("pass") } satisfies Controller] }),
      serve: async (_plane, signal, wired) => {
        served = wired;
        await new Promise((r) => signal.addEventListener("abort", r, { once: true }));
      },
      drain: async (wired) => void (drained = wired),
    }).start(abort.signal);
    try {
      await waitFor(() => core.reconciled.length > 0 && served, { what: "the wired controller's pass, and serve" });
      expect(served!.reconciled).toBe(core.reconciled);
    } finally {
      abort.abort();
      await running;
      beating.stop();
    }
    expect(drained).toBe(served);
  });

  it("refuse a wired controller reading a kind the consumer does not load", async () => {
    const abort = new AbortController();
    const start = stateConsumer({
      name: "test-consumer",
      bus: { servers: srv.url, name: "consumer" },
      logger: silentLogger(),
      kinds: ["pool"],
      notSyncedReason: "waiting",
      wire: () => ({ controllers: [{ name: "leases", kinds: ["lease"], reconcile: () => undefined } satisfies Controller] }),
    }).start(abort.signal);
    await expect(start).rejects.toThrow(/controller leases reads lease, which the consumer does not load/);
  });
});
