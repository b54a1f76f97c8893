// Shared set-up of the whole-system tests: the demo's environment (nats-server, kube-sim,
// cluster-sim, five service processes) plus helpers that read the end state.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { closeBus, connectBus } from "@lockstep/bus";
import { onDemoRelease } from "@lockstep/cluster-sim";
import { Clients, EventLog, startEnvironment, type Environment, type EnvironmentOptions } from "@lockstep/demo";
import { waitFor } from "@lockstep/testing";

// The NATS client is @lockstep/bus's dependency, not this package's: its type comes through the bus.
type NatsConnection = Awaited<ReturnType<typeof connectBus>>;

export const SMALL_SPEC = onDemoRelease({
  name: "e2e",
  pools: [{ name: "worker", size: 4, maxUnavailable: 2 }],
});

export interface TestSystem {
  env: Environment;
  clients: Clients;
  events: EventLog;
  nc: NatsConnection;
  stop(): Promise<void>;
}

export async function startTestSystem(
  o: Partial<Pick<EnvironmentOptions, "spec" | "timeScale" | "faults" | "serviceEnv" | "replicas" | "leases" | "natsCluster">> = {},
): Promise<TestSystem> {
  const runDir = mkdtempSync(join(tmpdir(), "lockstep-e2e-"));
  const env = await startEnvironment({ ...o, runDir, spec: o.spec ?? SMALL_SPEC, timeScale: o.timeScale ?? 120 });
  const clients = new Clients(env.system);
  // Every server of a cluster: the client moves to another when one dies.
  const nc = await connectBus({ servers: env.natsUrl.split(","), name: "e2e" });
  const events = new EventLog();
  const abort = new AbortController();
  const feeding = events.start(nc, abort.signal);
  return {
    env,
    clients,
    events,
    nc,
    stop: async () => {
      abort.abort();
      await feeding.catch(() => {});
      await closeBus(nc);
      clients.close();
      await env.stop();
    },
  };
}

/** Polls `check` every 500 ms until it is truthy (the whole system moves in seconds, not milliseconds). */
export function until<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 240_000): Promise<T> {
  return waitFor(check, { what, timeoutMs, intervalMs: 500 }) as Promise<T>;
}

const CLI = join(import.meta.dirname, "..", "..", "packages", "cli", "dist", "main.js");

/** `lockstep <args> --server <service's gRPC address>`, as a user runs it. */
export function lockstepCli(t: TestSystem, service: "skew-enforcer" | "lease-coordinator" | "status-aggregator", ...args: string[]): { code: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args, "--server", t.env.system.grpcAddress(service)], { encoding: "utf8" });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Whether a CLI answer given with `-o json` (exit 0) comes from a service that is fresh *and* has
 * received the watcher's heartbeat since it started: a service counts as fresh for its first
 * STATE_MAX_AGE before any heartbeat arrived, and words its stale warnings otherwise then.
 */
export function heardTheWatcher(r: { code: number | null; stdout: string }): boolean {
  if (r.code !== 0) return false;
  const answer = JSON.parse(r.stdout) as { freshness?: { stale?: boolean; heard?: boolean } };
  return answer.freshness?.heard === true && answer.freshness.stale !== true;
}

/** Node records (assessment/phase) as the aggregator serves them. */
export async function nodeRecords(t: TestSystem) {
  const res = await t.clients.call(t.clients.status, t.clients.status.getUpdateStatus, { omitNodes: false });
  return (res.status?.nodes ?? []).map((n) => ({ name: n.name, pool: n.pool, assessment: n.record?.assessment, phase: n.record?.phase, version: n.record?.versionCell }));
}

/**
 * Every node Completed/Updated on `target` in the aggregator's view. The version matters: just
 * after an upgrade starts, every node is still Completed/Updated on the version it came from.
 */
export async function allUpdated(t: TestSystem, total: number, target: string): Promise<boolean> {
  const recs = await nodeRecords(t);
  return recs.length === total && recs.every((r) => r.assessment === "Completed" && r.phase === "Updated" && r.version === target);
}

/** Node Leases in kube-sim: holders per node (at most one by construction) and who holds. */
export function heldNodeLeases(env: Environment): Array<{ node: string; holder: string }> {
  const t = env.kube.store.registry.resolve("coordination.k8s.io", "v1", "leases")!;
  return env.kube.store
    .entries(t, "lockstep-leases")
    .map((e) => e.obj as any)
    .filter((l) => !String(l.metadata.name).startsWith("lockstep-slot.") && l.spec?.holderIdentity)
    .map((l) => ({ node: l.metadata.name, holder: l.spec.holderIdentity }));
}

/**
 * Watches every Lease write in kube-sim and records the largest number of nodes of one pool held
 * for Update at once: the pool's maxUnavailable must never be exceeded.
 */
export function trackConcurrentUpdates(env: Environment): () => number {
  let max = 0;
  env.kube.store.onCommit(() => {
    const held = heldNodeLeases(env).filter((l) => l.holder.includes("update")).length;
    if (held > max) max = held;
  });
  return () => max;
}

/**
 * One line per node (MCO state, desired vs current config, cordon, reason) and per held Lease, for a
 * failure message: a stalled rollout then says where it stands.
 */
export function describeCluster(env: Environment): string {
  const nodes = env.kube.store.entries(env.kube.store.registry.resolve("", "v1", "nodes")!).map((e) => e.obj as any);
  const ann = (n: any, k: string) => n.metadata?.annotations?.[`machineconfiguration.openshift.io/${k}`] ?? "";
  const lines = nodes.map((n) => {
    const ready = (n.status?.conditions ?? []).find((c: any) => c.type === "Ready")?.status ?? "?";
    const cfg = ann(n, "currentConfig") === ann(n, "desiredConfig") ? ann(n, "currentConfig") : `${ann(n, "currentConfig")} -> ${ann(n, "desiredConfig")}`;
    return `  node ${n.metadata.name}: state=${ann(n, "state") || "-"} ready=${ready}${n.spec?.unschedulable ? " cordoned" : ""} config=${cfg}${ann(n, "reason") ? ` reason=${ann(n, "reason")}` : ""}`;
  });
  const leases = heldNodeLeases(env).map((l) => `  lease ${l.node}: ${l.holder}`);
  return [...lines, ...(leases.length ? leases : ["  no node lease held"])].join("\n");
}
