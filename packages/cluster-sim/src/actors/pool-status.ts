// Pure MCO pool maths (mco-behaviors.md §1.2–1.4): node predicates, pool counters and conditions,
// node-to-pool assignment.
import { A, MCD } from "../constants.js";
import { maxUnavailableCount } from "../spec.js";
import { annotationsOf, conditionOf, labelsOf, setCondition, type Condition, type KubeObject } from "../types.js";

export function matchesSelector(labels: Record<string, string>, sel: Record<string, string> | undefined): boolean {
  if (!sel) return false;
  for (const [k, v] of Object.entries(sel)) if (labels[k] !== v) return false;
  return true;
}

export function poolSelector(pool: KubeObject): Record<string, string> | undefined {
  return pool.spec?.nodeSelector?.matchLabels;
}

/** Node → pool, as the MCO and the status rules assign them: master, then custom pools, then worker. */
export function assignPools(pools: KubeObject[], nodes: KubeObject[]): Map<string, KubeObject[]> {
  const out = new Map<string, KubeObject[]>(pools.map((p) => [p.metadata.name, []]));
  const master = pools.find((p) => p.metadata.name === "master");
  const custom = pools.filter((p) => p.metadata.name !== "master" && p.metadata.name !== "worker");
  const worker = pools.find((p) => p.metadata.name === "worker");
  for (const n of nodes) {
    const labels = labelsOf(n);
    const pool =
      (master && matchesSelector(labels, poolSelector(master)) && master) ||
      custom.find((p) => matchesSelector(labels, poolSelector(p))) ||
      (worker && matchesSelector(labels, poolSelector(worker)) && worker) ||
      undefined;
    if (pool) out.get(pool.metadata.name)!.push(n);
  }
  return out;
}

const ann = (n: KubeObject, k: string) => annotationsOf(n)[k] ?? "";

export function configDone(n: KubeObject): boolean {
  const c = ann(n, A.currentConfig);
  return c !== "" && c === ann(n, A.desiredConfig);
}
export const done = (n: KubeObject) => configDone(n) && ann(n, A.state) === MCD.done;
export const updated = (n: KubeObject, target: string) => done(n) && ann(n, A.desiredConfig) === target;
export function schedulable(n: KubeObject): boolean {
  for (const c of (n.status?.conditions ?? []) as Condition[]) {
    if (c.type === "Ready" && c.status !== "True") return false;
    if ((c.type === "DiskPressure" || c.type === "NetworkUnavailable") && c.status !== "False") return false;
  }
  return n.spec?.unschedulable !== true;
}
export const degraded = (n: KubeObject) => ann(n, A.state) === MCD.degraded || ann(n, A.state) === MCD.unreconcilable;
export const failing = (n: KubeObject) => ann(n, A.currentConfig) !== ann(n, A.desiredConfig) && degraded(n);
export const unavailable = (n: KubeObject) => !schedulable(n) || (!done(n) && !failing(n));

export interface PoolCounters {
  machineCount: number;
  updatedMachineCount: number;
  readyMachineCount: number;
  unavailableMachineCount: number;
  degradedMachineCount: number;
}

export function poolCounters(nodes: KubeObject[], target: string): PoolCounters {
  let u = 0, r = 0, un = 0, d = 0;
  for (const n of nodes) {
    const up = updated(n, target);
    if (up) u++;
    if (up && schedulable(n)) r++;
    if (unavailable(n)) un++;
    if (degraded(n)) d++;
  }
  return { machineCount: nodes.length, updatedMachineCount: u, readyMachineCount: r, unavailableMachineCount: un, degradedMachineCount: d };
}

/** `<line>` of the condition messages (4.14+ form). */
const line = (name: string) => `MachineConfig ${name}`;

/** Go %q quoting for the ASCII range (enough for MCD reasons). */
export function goQuote(s: string): string {
  return `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n").replace(/\t/g, "\\t").replace(/\r/g, "\\r")}"`;
}

/** The status the MCC would write for `pool` over its member nodes at `now`. */
export function computePoolStatus(pool: KubeObject, nodes: KubeObject[], now: string): Record<string, unknown> {
  const target: string = pool.spec?.configuration?.name ?? "";
  const c = poolCounters(nodes, target);
  const allUpdated = c.updatedMachineCount === c.machineCount && c.readyMachineCount === c.machineCount && c.unavailableMachineCount === 0;
  const paused = pool.spec?.paused === true;
  const prev = pool.status ?? {};
  const configuration = allUpdated && target ? pool.spec.configuration : (prev.configuration ?? pool.spec?.configuration);
  const degradedNodes = nodes.filter(degraded);
  let conds: Condition[] = prev.conditions ?? [];
  conds = setCondition(conds, { type: "RenderDegraded", status: "False", reason: "", message: "" }, now);
  const nodeDegradedMsg = degradedNodes.map((n) => `Node ${n.metadata.name} is reporting: ${goQuote(ann(n, A.reason))}`).join(", ");
  conds = setCondition(
    conds,
    degradedNodes.length
      ? { type: "NodeDegraded", status: "True", reason: `${degradedNodes.length} nodes are reporting degraded status on sync`, message: nodeDegradedMsg }
      : { type: "NodeDegraded", status: "False", reason: "", message: "" },
    now,
  );
  conds = setCondition(conds, { type: "Degraded", status: degradedNodes.length ? "True" : "False", reason: "", message: degradedNodes.length ? nodeDegradedMsg : "" }, now);
  conds = setCondition(conds, allUpdated ? { type: "Updated", status: "True", reason: "", message: `All nodes are updated with ${line(target)}` } : { type: "Updated", status: "False", reason: "", message: "" }, now);
  conds = setCondition(
    conds,
    allUpdated
      ? { type: "Updating", status: "False", reason: "", message: "" }
      : paused
        ? { type: "Updating", status: "False", reason: "", message: `Pool is paused; will not update to ${line(target)}` }
        : { type: "Updating", status: "True", reason: "", message: `All nodes are updating to ${line(target)}` },
    now,
  );
  return { observedGeneration: pool.metadata.generation ?? 1, configuration, ...c, conditions: conds };
}

/** Equality of two pool statuses ignoring transition times (to skip no-op writes). */
export function sameStatus(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * The node controller's choice for one pool (§1.6 step 1): nodes to receive the target now.
 * Capacity = maxUnavailable − unavailable − nodes failing on the target; candidates sorted by zone,
 * then oldest first, nodes without a zone last. Returns candidates in order (the caller may skip
 * nodes it cannot lease) and the capacity.
 */
export function planPool(pool: KubeObject, nodes: KubeObject[]): { capacity: number; candidates: KubeObject[] } {
  const target: string = pool.spec?.configuration?.name ?? "";
  if (pool.spec?.paused === true || !target) return { capacity: 0, candidates: [] };
  const max = maxUnavailableCount(pool.spec?.maxUnavailable, nodes.length);
  let unavail = 0;
  let failingOnTarget = 0;
  for (const n of nodes) {
    if (unavailable(n)) unavail++;
    else if (failing(n) && ann(n, A.desiredConfig) === target) failingOnTarget++;
  }
  const capacity = Math.max(0, max - unavail - failingOnTarget);
  if (capacity === 0) return { capacity, candidates: [] };
  const zone = (n: KubeObject) => labelsOf(n)["topology.kubernetes.io/zone"];
  const candidates = nodes
    .filter((n) => ann(n, A.desiredConfig) !== target)
    .sort((a, b) => {
      const za = zone(a), zb = zone(b);
      if (za !== zb) {
        if (za === undefined) return 1;
        if (zb === undefined) return -1;
        return za < zb ? -1 : 1;
      }
      const ta = a.metadata.creationTimestamp ?? "", tb = b.metadata.creationTimestamp ?? "";
      if (ta !== tb) return ta < tb ? -1 : 1;
      return a.metadata.name < b.metadata.name ? -1 : 1;
    });
  return { capacity, candidates };
}

export const readyCondition = (n: KubeObject) => conditionOf(n, "Ready");
