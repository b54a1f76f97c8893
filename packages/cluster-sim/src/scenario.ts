// Scenarios: a cluster spec plus a timeline of steps, read from YAML (packages/cluster-sim/scenarios).
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import { parseClusterSpec, type ClusterSpec } from "./spec.js";
import { DEFAULT_TIMING, mergeTiming, type Timing } from "./timing.js";
import { FAILURE_KINDS, type FailureKind } from "./simulation.js";

export type WaitCondition = "controlPlaneUpdated" | "poolUpdated" | "allPoolsUpdated" | "nodesUpdating" | "nodeDegraded" | "releaseRejected";
export const WAIT_CONDITIONS: WaitCondition[] = ["controlPlaneUpdated", "poolUpdated", "allPoolsUpdated", "nodesUpdating", "nodeDegraded", "releaseRejected"];

export type Step =
  | { upgrade: { version: string; force?: boolean } }
  | { pause: string }
  | { unpause: string }
  | { inject: { failure: FailureKind; pool?: string; nodes?: string[]; count?: number } }
  | { maintenance: { pool?: string; nodes?: string[]; count?: number; minutes: number } }
  | { wait: { for: WaitCondition; pool?: string; count?: number; timeoutMinutes?: number } }
  | { sleep: { minutes: number } }
  | { snapshot: { name: string } }
  | { assert: Assertion };

export interface Assertion {
  /** Every node of these pools (default: all unpaused pools) runs this version. */
  nodesAt?: { version: string; pools?: string[] };
  /** The pool's nodes still run this version (paused pool untouched). */
  poolAt?: { pool: string; version: string };
  /** At least one node is Degraded with a reason containing this text. */
  degradedReason?: string;
  /** ClusterVersion history[0] state. */
  history?: { version: string; state: "Partial" | "Completed" };
  /** ReleaseAccepted=False with a message containing this text. */
  rejectedWith?: string;
}

export interface Scenario {
  name: string;
  description: string;
  cluster: ClusterSpec;
  timeScale: number;
  seed: number;
  timing: Timing;
  heartbeat?: { intervalMs: number };
  randomFailures?: { drainBlocked?: number; neverReturns?: number; degrade?: number };
  remediation?: { graceSeconds: number; fenceSeconds: number };
  leaser: "none" | "local";
  /** "enforced": the MCO never asks for a lease, as the real one (SimulationOptions.leases). */
  leases?: "cooperate" | "enforced";
  steps: Step[];
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

export function scenariosDir(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  return join(here, "..", "scenarios");
}

/** A scenario by name (shipped in scenarios/) or by file path. */
export async function loadScenario(nameOrFile: string): Promise<Scenario> {
  const shipped = join(scenariosDir(), `${nameOrFile}.yaml`);
  const file = existsSync(nameOrFile) ? nameOrFile : existsSync(shipped) ? shipped : undefined;
  if (!file) throw new Error(`scenario "${nameOrFile}" not found (neither a file nor one of ${scenariosDir()}/*.yaml)`);
  let doc: unknown;
  try {
    doc = parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new Error(`${file}: not valid YAML: ${(err as Error).message}`);
  }
  return parseScenario(doc, file);
}

export function parseScenario(doc: unknown, where = "scenario"): Scenario {
  if (!isObj(doc)) throw new Error(`${where}: expected a mapping`);
  const problems: string[] = [];
  let cluster: ClusterSpec | undefined;
  try {
    cluster = parseClusterSpec(doc.cluster ?? {});
  } catch (err) {
    problems.push((err as Error).message);
  }
  let timing = DEFAULT_TIMING;
  try {
    timing = mergeTiming(DEFAULT_TIMING, doc.timing);
  } catch (err) {
    problems.push((err as Error).message);
  }
  const steps: Step[] = [];
  if (!Array.isArray(doc.steps)) problems.push("steps: expected a list");
  else
    doc.steps.forEach((s, i) => {
      const err = validateStep(s, cluster);
      if (err) problems.push(`steps[${i}]: ${err}`);
      else steps.push(s as Step);
    });
  if (doc.leases !== undefined && doc.leases !== "cooperate" && doc.leases !== "enforced") problems.push(`leases: expected "cooperate" or "enforced", got ${JSON.stringify(doc.leases)}`);
  if (doc.leases === "enforced" && doc.leaser === "local") problems.push('leaser: "local" is asked only in the "cooperate" lease mode');
  const num = (k: string, def: number) => (typeof doc[k] === "number" && (doc[k] as number) > 0 ? (doc[k] as number) : def);
  if (problems.length) throw new Error(`${where}: invalid scenario:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  const hb = isObj(doc.heartbeat) && typeof doc.heartbeat.intervalMs === "number" ? { intervalMs: doc.heartbeat.intervalMs } : undefined;
  return {
    name: typeof doc.name === "string" ? doc.name : where,
    description: typeof doc.description === "string" ? doc.description : "",
    cluster: cluster!,
    timeScale: num("timeScale", 60),
    seed: num("seed", cluster!.seed),
    timing,
    heartbeat: hb,
    randomFailures: isObj(doc.randomFailures) ? (doc.randomFailures as Scenario["randomFailures"]) : undefined,
    remediation: isObj(doc.remediation) ? { graceSeconds: Number(doc.remediation.graceSeconds ?? 300), fenceSeconds: Number(doc.remediation.fenceSeconds ?? 120) } : undefined,
    leaser: doc.leaser === "local" ? "local" : "none",
    leases: doc.leases === "enforced" ? "enforced" : "cooperate",
    steps,
  };
}

function validateStep(s: unknown, cluster: ClusterSpec | undefined): string | undefined {
  if (!isObj(s) || Object.keys(s).length !== 1) return "expected a mapping with exactly one step kind";
  const [kind, v] = Object.entries(s)[0]!;
  const pools = new Set(["master", ...(cluster?.pools.map((p) => p.name) ?? [])]);
  const poolOk = (p: unknown) => p === undefined || (typeof p === "string" && pools.has(p));
  switch (kind) {
    case "upgrade":
      return isObj(v) && typeof v.version === "string" ? undefined : "upgrade: needs { version }";
    case "pause":
    case "unpause":
      return typeof v === "string" && pools.has(v) ? undefined : `${kind}: needs a known pool name`;
    case "inject":
      if (!isObj(v) || !FAILURE_KINDS.includes(v.failure as FailureKind)) return `inject: failure must be one of ${FAILURE_KINDS.join(", ")}`;
      return poolOk(v.pool) ? undefined : "inject: unknown pool";
    case "maintenance":
      return isObj(v) && typeof v.minutes === "number" && poolOk(v.pool) ? undefined : "maintenance: needs { minutes, pool|nodes }";
    case "wait":
      if (!isObj(v) || !WAIT_CONDITIONS.includes(v.for as WaitCondition)) return `wait: for must be one of ${WAIT_CONDITIONS.join(", ")}`;
      return poolOk(v.pool) ? undefined : "wait: unknown pool";
    case "sleep":
      return isObj(v) && typeof v.minutes === "number" ? undefined : "sleep: needs { minutes }";
    case "snapshot":
      return isObj(v) && typeof v.name === "string" ? undefined : "snapshot: needs { name }";
    case "assert":
      return isObj(v) ? undefined : "assert: expected a mapping";
    default:
      return `unknown step "${kind}"`;
  }
}
