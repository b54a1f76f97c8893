// Runs a scenario's timeline against a started simulation; conditions and assertions read the
// simulator's informer view.
import type { KubeConfig } from "@kubernetes/client-node";
import { A, MCD } from "./constants.js";
import { LocalLeaser, noopLeaser, type NodeLeaser } from "./leaser.js";
import { renderedName } from "./release.js";
import type { Scenario, Step, WaitCondition, Assertion } from "./scenario.js";
import { startSimulation, type Simulation } from "./simulation.js";
import { writeSnapshot } from "./snapshot.js";
import type { LeaseMode, SimLogger } from "./context.js";
import { annotationsOf, conditionOf, type KubeObject } from "./types.js";

export interface RunOptions {
  kc: KubeConfig;
  timeScale?: number;
  seed?: number;
  /** Overrides the scenario's `leases:` mode. */
  leases?: LeaseMode;
  leaser?: NodeLeaser;
  snapshotDir?: string;
  /** One line per step, for the CLI. */
  report?: (line: string) => void;
  logger?: SimLogger;
  /** Keep the simulation running after the last step (the caller stops it). */
  keepRunning?: boolean;
}

export interface RunResult {
  scenario: string;
  sim: Simulation;
  /** Real milliseconds the timeline took. */
  elapsedMs: number;
  snapshots: string[];
}

export async function runScenario(sc: Scenario, o: RunOptions): Promise<RunResult> {
  const report = o.report ?? (() => undefined);
  const leases = o.leases ?? sc.leases ?? "cooperate";
  const leaser = o.leaser ?? (leases === "enforced" ? undefined : sc.leaser === "local" ? new LocalLeaser() : noopLeaser);
  const sim = await startSimulation({
    kc: o.kc,
    spec: sc.cluster,
    timeScale: o.timeScale ?? sc.timeScale,
    seed: o.seed ?? sc.seed,
    leases,
    leaser,
    timing: sc.timing,
    heartbeat: sc.heartbeat,
    randomFailures: sc.randomFailures,
    remediation: sc.remediation,
    logger: o.logger,
  });
  const t0 = Date.now();
  const snapshots: string[] = [];
  let target = sc.cluster.version;
  const vt = () => sim.clock.now().toISOString().replace(/\.\d+Z$/, "Z");
  report(`${vt()} cluster ready: ${sim.world.list("node").length} nodes, ${sim.world.list("pool").length} pools (${sim.stats().created} objects created)`);
  try {
    for (const step of sc.steps) {
      const [kind] = Object.keys(step);
      const s = step as Record<string, any>;
      switch (kind) {
        case "upgrade":
          target = s.upgrade.version;
          await sim.upgrade(s.upgrade.version, { force: s.upgrade.force === true });
          report(`${vt()} upgrade requested to ${target}${s.upgrade.force ? " (forced)" : ""}`);
          break;
        case "pause":
        case "unpause":
          await sim.setPaused(s[kind], kind === "pause");
          report(`${vt()} pool ${s[kind]} ${kind}d`);
          break;
        case "inject": {
          const nodes = await sim.inject(s.inject.failure, s.inject);
          report(`${vt()} injected ${s.inject.failure} on ${nodes.join(", ")}`);
          break;
        }
        case "maintenance": {
          const m = await sim.maintenance(s.maintenance, s.maintenance.minutes * 60);
          report(`${vt()} maintenance window on ${m.granted.join(", ") || "no node"}${m.refused.length ? ` (refused: ${m.refused.join(", ")})` : ""}`);
          break;
        }
        case "wait": {
          const w = s.wait as { for: WaitCondition; pool?: string; count?: number; timeoutMinutes?: number };
          const timeout = sim.clock.realMs((w.timeoutMinutes ?? 240) * 60_000) + 30_000;
          await sim.waitFor(() => condition(sim, w, target), timeout, `${w.for}${w.pool ? ` (${w.pool})` : ""}`);
          report(`${vt()} reached ${w.for}${w.pool ? ` (${w.pool})` : ""}`);
          break;
        }
        case "sleep":
          await new Promise((r) => setTimeout(r, sim.clock.realMs(s.sleep.minutes * 60_000)));
          break;
        case "snapshot":
          if (o.snapshotDir) {
            snapshots.push(...(await writeSnapshot(o.snapshotDir, s.snapshot.name, sim.snapshot())));
            report(`${vt()} snapshot ${s.snapshot.name} written to ${o.snapshotDir}`);
          }
          break;
        case "assert": {
          const failures = checkAssertion(sim, s.assert as Assertion);
          if (failures.length) throw new Error(`assertion failed:\n${failures.map((f) => `  - ${f}`).join("\n")}`);
          report(`${vt()} assertion passed: ${JSON.stringify(s.assert)}`);
          break;
        }
      }
    }
  } catch (err) {
    await sim.stop();
    throw err;
  }
  if (!o.keepRunning) await sim.stop();
  return { scenario: sc.name, sim, elapsedMs: Date.now() - t0, snapshots };
}

function poolDone(sim: Simulation, pool: KubeObject, target: string): boolean {
  const want = renderedName(pool.metadata.name, target);
  return pool.spec?.configuration?.name === want && pool.status?.configuration?.name === want && pool.status?.updatedMachineCount === pool.status?.machineCount;
}

export function condition(sim: Simulation, w: { for: WaitCondition; pool?: string; count?: number }, target: string): boolean {
  const cv = sim.world.get("cv", "version");
  switch (w.for) {
    case "controlPlaneUpdated": {
      const h = cv?.status?.history?.[0];
      return h?.version === target && h?.state === "Completed";
    }
    case "poolUpdated": {
      const p = sim.world.get("pool", w.pool ?? "worker");
      return !!p && poolDone(sim, p, target);
    }
    case "allPoolsUpdated":
      return sim.world.list("pool").every((p) => p.spec?.paused === true || poolDone(sim, p, target));
    case "nodesUpdating":
      return sim.world.list("node").filter((n) => annotationsOf(n)[A.desiredConfig] !== annotationsOf(n)[A.currentConfig]).length >= (w.count ?? 1);
    case "nodeDegraded":
      return sim.world.list("node").some((n) => annotationsOf(n)[A.state] === MCD.degraded);
    case "releaseRejected":
      return conditionOf(cv, "ReleaseAccepted")?.status === "False";
  }
}

export function checkAssertion(sim: Simulation, a: Assertion): string[] {
  const out: string[] = [];
  const versionOf = (config: string | undefined) => annotationsOf(sim.world.get("mc", config ?? ""))[A.releaseImageVersion];
  const members = sim.poolMembers();
  if (a.nodesAt) {
    const pools = a.nodesAt.pools ?? sim.world.list("pool").filter((p) => p.spec?.paused !== true).map((p) => p.metadata.name);
    for (const p of pools)
      for (const n of members.get(p) ?? []) {
        const v = versionOf(annotationsOf(n)[A.currentConfig]);
        if (v !== a.nodesAt.version) out.push(`node ${n.metadata.name} (pool ${p}) runs ${v ?? "?"}, want ${a.nodesAt.version}`);
      }
  }
  if (a.poolAt) {
    for (const n of members.get(a.poolAt.pool) ?? []) {
      const an = annotationsOf(n);
      const v = versionOf(an[A.currentConfig]);
      if (v !== a.poolAt.version || an[A.desiredConfig] !== an[A.currentConfig]) out.push(`node ${n.metadata.name} (pool ${a.poolAt.pool}) current ${v ?? "?"} desired ${versionOf(an[A.desiredConfig]) ?? "?"}, want untouched at ${a.poolAt.version}`);
    }
  }
  if (a.degradedReason !== undefined) {
    const ok = sim.world.list("node").some((n) => annotationsOf(n)[A.state] === MCD.degraded && (annotationsOf(n)[A.reason] ?? "").includes(a.degradedReason!));
    if (!ok) out.push(`no Degraded node with a reason containing "${a.degradedReason}"`);
  }
  if (a.history) {
    const h = sim.world.get("cv", "version")?.status?.history?.[0];
    if (h?.version !== a.history.version || h?.state !== a.history.state) out.push(`ClusterVersion history[0] is ${h?.version} ${h?.state}, want ${a.history.version} ${a.history.state}`);
  }
  if (a.rejectedWith !== undefined) {
    const c = conditionOf(sim.world.get("cv", "version"), "ReleaseAccepted");
    if (c?.status !== "False" || !(c.message ?? "").includes(a.rejectedWith)) out.push(`ReleaseAccepted is ${c?.status} "${c?.message}", want False containing "${a.rejectedWith}"`);
  }
  return out;
}

export type { Step };
