// startSimulation: generates the cluster (unless it exists), then runs the actors against the API
// server until stopped. The handle drives it from code (demo, e2e tests, scenarios).
import type { KubeConfig } from "@kubernetes/client-node";
import { scaledClock, type SimClock } from "./clock.js";
import { A, MCD, SIM_LABEL } from "./constants.js";
import { silentSimLogger, type Failures, type LeaseMode, type SimContext, type SimLogger } from "./context.js";
import { CvoActor } from "./actors/cvo-loop.js";
import { RemediationAgent, startMaintenance, type MaintenanceResult, type RemediationOptions } from "./actors/disruptors.js";
import { Kubelet, type HeartbeatOptions } from "./actors/kubelet.js";
import { NodeAgent } from "./actors/node-agent.js";
import { NodeController } from "./actors/node-controller.js";
import { assignPools } from "./actors/pool-status.js";
import { PodActors } from "./actors/workloads.js";
import { generateCluster, poolRolesOf } from "./generate/cluster.js";
import { applyObjects, KubeWriter } from "./kube.js";
import { noopLeaser, type NodeLeaser } from "./leaser.js";
import { mcoIdentities } from "./mco-identity.js";
import { releaseImage } from "./release.js";
import { seededRng } from "./rng.js";
import { snapshotOf, type ClusterSnapshot } from "./snapshot.js";
import type { ClusterSpec } from "./spec.js";
import { TimerWheel } from "./timers.js";
import { DEFAULT_TIMING, type Timing } from "./timing.js";
import { annotationsOf, type KubeObject } from "./types.js";
import { World } from "./world.js";

export type FailureKind = "drain-blocked" | "never-returns" | "degraded" | "disk-pressure";
export const FAILURE_KINDS: FailureKind[] = ["drain-blocked", "never-returns", "degraded", "disk-pressure"];

export interface SimulationOptions {
  kc: KubeConfig;
  spec: ClusterSpec;
  timeScale?: number;
  seed?: number;
  /**
   * "cooperate" (default): the MCO's node controller asks `leaser` before it starts a node's update.
   * "enforced": it behaves as the real one and never asks; it writes as the MCO's ServiceAccounts
   * (an admission webhook may refuse its writes) and retries refused ones as upstream does.
   */
  leases?: LeaseMode;
  /** Only in the "cooperate" mode. */
  leaser?: NodeLeaser;
  timing?: Timing;
  /** Kubelet heartbeats; off by default (kube-api.md §17.2). */
  heartbeat?: HeartbeatOptions;
  /** Random failure probabilities per node update. */
  randomFailures?: Partial<Failures["random"]>;
  /** Remediation agent; off by default. */
  remediation?: RemediationOptions;
  /** Create the generated cluster's objects (default true; existing objects are kept). */
  generate?: boolean;
  /** Write `state=Rebooting` while a node reboots (default true; see README). */
  rebootingState?: boolean;
  writeConcurrency?: number;
  logger?: SimLogger;
}

export interface Simulation {
  readonly clock: SimClock;
  readonly world: World;
  readonly stats: () => { writes: number; conflicts: number; errors: number; errorSamples: string[]; heartbeats: number; byVerb: Record<string, number>; created: number };
  /** Sets `spec.desiredUpdate` on ClusterVersion (the CVO takes it from there). */
  upgrade(version: string, o?: { force?: boolean; image?: string }): Promise<void>;
  setPaused(pool: string, paused: boolean): Promise<void>;
  /** Injects a failure on nodes (explicit names, or `count` seeded picks from `pool`); returns the nodes. */
  inject(kind: FailureKind, target: { nodes?: string[]; pool?: string; count?: number }): Promise<string[]>;
  /** Removes a failure (unblocks drains, clears degrade / never-returns / disk pressure). */
  clear(kind: FailureKind, nodes: string[]): Promise<void>;
  maintenance(target: { nodes?: string[]; pool?: string; count?: number }, durationSeconds: number): Promise<MaintenanceResult & { done: Promise<void> }>;
  /** Nodes of each pool, by the MCO's assignment. */
  poolMembers(): Map<string, KubeObject[]>;
  snapshot(): ClusterSnapshot;
  /** Resolves when `pred` holds (checked on every change), rejects after `timeoutMs` real ms. */
  waitFor(pred: () => boolean, timeoutMs: number, what?: string): Promise<void>;
  readonly remediation?: RemediationAgent;
  stop(): Promise<void>;
}

export async function startSimulation(o: SimulationOptions): Promise<Simulation> {
  const seed = o.seed ?? o.spec.seed;
  const leases = o.leases ?? "cooperate";
  if (leases !== "cooperate" && leases !== "enforced") throw new Error(`cluster-sim: leases must be "cooperate" or "enforced", got ${JSON.stringify(leases)}`);
  if (leases === "enforced" && o.leaser !== undefined && o.leaser !== noopLeaser) throw new Error('cluster-sim: a leaser is asked only in the "cooperate" lease mode; in "enforced" mode nothing asks for a lease');
  const clock = scaledClock(o.timeScale ?? 1);
  const writer = new KubeWriter(o.kc, o.writeConcurrency ?? 64);
  const wheel = new TimerWheel();
  const poolRoles = poolRolesOf(o.spec);
  let created = 0;
  if (o.generate !== false) {
    const gen = generateCluster({ ...o.spec, seed }, clock.now(), clock.timeScale);
    created = (await applyObjects(writer, gen.objects)).created;
  }
  // The MCO's own users in the enforced mode (after the generated namespaces exist).
  const ids = leases === "enforced" ? await mcoIdentities(o.kc) : undefined;
  const controllerWriter = ids ? new KubeWriter(ids.controller, o.writeConcurrency ?? 64) : writer;
  const daemonWriter = ids ? new KubeWriter(ids.daemon, o.writeConcurrency ?? 64) : writer;
  const writers = [...new Set([writer, controllerWriter, daemonWriter])];
  const world = new World(o.kc, undefined, `${SIM_LABEL}=true`);
  const failures: Failures = { degrade: new Set(), neverReturns: new Set(), random: { drainBlocked: 0, neverReturns: 0, degrade: 0, ...o.randomFailures } };
  const ctx: SimContext = {
    world,
    writer,
    mco: { controller: controllerWriter, daemon: daemonWriter },
    leases,
    wheel,
    clock,
    timing: o.timing ?? DEFAULT_TIMING,
    seed,
    spec: o.spec,
    leaser: o.leaser ?? noopLeaser,
    failures,
    log: o.logger ?? silentSimLogger,
    rebootingState: o.rebootingState ?? true,
    poolRoles,
    halted: new Set(),
    resume: () => undefined,
  };
  const pods = new PodActors(ctx);
  const agent = new NodeAgent(ctx, pods);
  const controller = new NodeController(ctx);
  ctx.resume = (node) => {
    ctx.halted.delete(node);
    const obj = world.get("node", node);
    if (obj) agent.evaluate(obj);
  };
  // A preempted update stops at the daemon's next safe point; other kinds hold nothing to stop.
  ctx.leaser.setPreemptionHandler?.((node, kind) => (kind === "Update" ? controller.preempted(node) : Promise.resolve()));
  const cvo = new CvoActor(ctx);
  const kubelet = new Kubelet(ctx, o.heartbeat);
  const remediation = o.remediation ? new RemediationAgent(ctx, kubelet, o.remediation, (n) => failures.neverReturns.delete(n)) : undefined;
  const waiters = new Set<() => void>();
  world.onChange(() => {
    for (const w of [...waiters]) w();
  });
  const abort = new AbortController();
  world.start(abort.signal);
  await world.whenSynced();
  controller.kick();
  cvo.kick();
  pods.kickReplicas();
  const rng = seededRng(seed);

  const pickNodes = (t: { nodes?: string[]; pool?: string; count?: number }): string[] => {
    if (t.nodes?.length) return t.nodes;
    const members = assignPools(world.list("pool"), world.list("node")).get(t.pool ?? "worker") ?? [];
    const names = members.map((n) => n.metadata.name).sort();
    const out: string[] = [];
    const count = Math.min(t.count ?? 1, names.length);
    while (out.length < count) {
      const n = names[Math.floor(rng() * names.length)]!;
      if (!out.includes(n)) out.push(n);
    }
    return out;
  };

  const sim: Simulation = {
    clock,
    world,
    remediation,
    stats: () => ({ ...combinedStats(writers), heartbeats: kubelet.beats, created }),
    async upgrade(version, u = {}) {
      const cv = world.get("cv", "version");
      const body = { spec: { desiredUpdate: { version, image: u.image ?? releaseImage(version), ...(u.force ? { force: true } : {}) } }, ...(cv ? {} : {}) };
      await writer.mergePatch("ClusterVersion", "version", body);
    },
    async setPaused(pool, paused) {
      await writer.mergePatch("MachineConfigPool", pool, { spec: { paused } });
    },
    async inject(kind, target) {
      const nodes = pickNodes(target);
      for (const n of nodes) {
        if (kind === "drain-blocked") await pods.block(n);
        else if (kind === "never-returns") failures.neverReturns.add(n);
        else if (kind === "degraded") failures.degrade.add(n);
        else if (kind === "disk-pressure") await kubelet.setDiskPressure(n, true);
        const node = world.get("node", n);
        if (node) agent.evaluate(node);
      }
      ctx.log.info({ kind, nodes }, "failure injected");
      return nodes;
    },
    async clear(kind, nodes) {
      for (const n of nodes) {
        if (kind === "drain-blocked") await pods.unblock(n);
        else if (kind === "never-returns") failures.neverReturns.delete(n);
        else if (kind === "degraded") {
          failures.degrade.delete(n);
          const node = world.get("node", n);
          if (annotationsOf(node)[A.state] === MCD.degraded) await writer.mergePatch("Node", n, { metadata: { annotations: { [A.state]: MCD.done, [A.reason]: "" } } });
        } else if (kind === "disk-pressure") await kubelet.setDiskPressure(n, false);
        const node = world.get("node", n);
        if (node) agent.evaluate(node);
      }
    },
    maintenance: (target, durationSeconds) => startMaintenance(ctx, pickNodes(target), durationSeconds),
    poolMembers: () => assignPools(world.list("pool"), world.list("node")),
    snapshot: () => snapshotOf({ cv: world.list("cv"), co: world.list("co"), mc: world.list("mc"), mcp: world.list("pool"), node: world.list("node") }),
    waitFor(pred, timeoutMs, what = "condition") {
      return new Promise<void>((resolve, reject) => {
        if (pred()) return resolve();
        const check = () => {
          if (!pred()) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
        }, timeoutMs);
        const poll = setInterval(check, 250);
        const cleanup = () => {
          clearTimeout(timer);
          clearInterval(poll);
          waiters.delete(check);
        };
        waiters.add(check);
      });
    },
    async stop() {
      abort.abort();
      wheel.stop();
      world.stop();
      for (const w of writers) w.close();
    },
  };
  return sim;
}

/** The writers' counters added up (the MCO's own users write besides the simulator's). */
function combinedStats(writers: KubeWriter[]): { writes: number; conflicts: number; errors: number; errorSamples: string[]; byVerb: Record<string, number> } {
  const out = { writes: 0, conflicts: 0, errors: 0, errorSamples: [] as string[], byVerb: {} as Record<string, number> };
  for (const w of writers) {
    out.writes += w.stats.writes;
    out.conflicts += w.stats.conflicts;
    out.errors += w.stats.errors;
    out.errorSamples.push(...w.stats.errorSamples);
    for (const [k, v] of Object.entries(w.stats.byVerb)) out.byVerb[k] = (out.byVerb[k] ?? 0) + v;
  }
  out.errorSamples = out.errorSamples.slice(0, 5);
  return out;
}
