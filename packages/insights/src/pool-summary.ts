// Spec §7: pool counters, assessment and completion.
import { MASTER_POOL } from "./annotations.js";
import type { NodeCounters, NodeRecord, PoolAssessment, PoolSummary } from "./model.js";
import { sortNodes } from "./node-table.js";
import type { MachineConfigPool } from "./types.js";

export function countNodes(nodes: readonly NodeRecord[]): NodeCounters {
  const c: NodeCounters = { total: nodes.length, available: 0, progressing: 0, outdated: 0, draining: 0, excluded: 0, degraded: 0, updated: 0, pending: 0 };
  for (const n of nodes) {
    if (!n.isUnavailable) c.available++;
    if (n.isDegraded) c.degraded++;
    if (n.phase !== "Updated") c.outdated++;
    switch (n.phase) {
      case "Paused":
        c.excluded++;
        break;
      case "Pending":
        c.pending++;
        break;
      case "Draining":
        c.draining++;
        if (!n.isDegraded) c.progressing++;
        break;
      case "Updating":
      case "Rebooting":
        if (!n.isDegraded) c.progressing++;
        break;
      case "Updated":
        c.updated++;
        break;
    }
  }
  return c;
}

export function poolAssessment(c: NodeCounters): PoolAssessment {
  if (c.updated === c.total) return "Completed";
  if (c.pending === c.total) return "Pending";
  if (c.degraded > 0) return "Degraded";
  if (c.excluded > 0) return "Excluded";
  return "Progressing";
}

function summaryHead(pool: MachineConfigPool, counters: NodeCounters): Omit<PoolSummary, "nodes"> {
  return {
    name: pool.metadata.name,
    scopeType: pool.metadata.name === MASTER_POOL ? "ControlPlane" : "WorkerPool",
    paused: pool.spec?.paused === true,
    assessment: poolAssessment(counters),
    completion: (counters.updated / counters.total) * 100,
    counters,
    empty: counters.total === 0,
  };
}

export function summarizePool(pool: MachineConfigPool, nodes: readonly NodeRecord[]): PoolSummary {
  return { ...summaryHead(pool, countNodes(nodes)), nodes: sortNodes(nodes) };
}

/**
 * summarizePool whose `nodes` are sorted when first read: most readers (counters, assessment,
 * completion) never look at the rows, and sorting thousands of them is the summary's main cost.
 * `nodes` must not be changed afterwards.
 */
export function summarizePoolLazily(pool: MachineConfigPool, nodes: readonly NodeRecord[]): PoolSummary {
  return summarizeCountedPool(pool, countNodes(nodes), () => nodes);
}

/**
 * A pool summary from counters kept up to date elsewhere (see adjustCounters): equal to
 * summarizePool(pool, rows()) when `counters` = countNodes(rows()); rows are read and sorted only
 * when `.nodes` is first read.
 */
export function summarizeCountedPool(pool: MachineConfigPool, counters: NodeCounters, rows: () => readonly NodeRecord[]): PoolSummary {
  const summary = summaryHead(pool, { ...counters }) as PoolSummary;
  let sorted: NodeRecord[] | undefined;
  Object.defineProperty(summary, "nodes", { enumerable: true, configurable: true, get: () => (sorted ??= sortNodes(rows())) });
  return summary;
}

export const zeroCounters = (): NodeCounters => countNodes([]);

/** Adds (sign 1) or removes (sign -1) one row's contribution to counters, by countNodes' rules. */
export function adjustCounters(counters: NodeCounters, row: NodeRecord, sign: 1 | -1): void {
  const one = countNodes([row]);
  for (const k of Object.keys(one) as Array<keyof NodeCounters>) counters[k] += sign * one[k];
}

/** Completion decisions use counts, never a rounded percentage (§4.3, §7.6). */
export const poolComplete = (p: PoolSummary): boolean => p.counters.updated === p.counters.total;
