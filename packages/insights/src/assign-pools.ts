// Spec §4.2: which pool a node belongs to.
import { MASTER_POOL, WORKER_POOL } from "./annotations.js";
import { selectorMatches } from "./label-selector.js";
import type { NodeOf, PoolOf, RuleInputs } from "./reads.js";

/** What whichPool reads; the types below are picked from it (reads.ts). */
export const POOL_ASSIGNMENT_INPUTS = { node: { labels: "all" }, pool: { nodeSelector: true } } as const satisfies RuleInputs;
export type AssignmentNode = NodeOf<typeof POOL_ASSIGNMENT_INPUTS>;
export type AssignmentPool = PoolOf<typeof POOL_ASSIGNMENT_INPUTS>;

/**
 * Name of the node's pool: `master` first, then custom pools in pool-list order (Lockstep
 * decision; upstream iterates a Go map), then `worker`. Undefined when no pool matches.
 */
export function whichPool(pools: readonly AssignmentPool[], node: AssignmentNode): string | undefined {
  const labels = node.metadata.labels;
  const matches = (p: AssignmentPool): boolean => selectorMatches(p.spec?.nodeSelector, labels);
  const master = pools.find((p) => p.metadata.name === MASTER_POOL);
  if (master && matches(master)) return MASTER_POOL;
  for (const p of pools) {
    if (p.metadata.name === MASTER_POOL || p.metadata.name === WORKER_POOL) continue;
    if (matches(p)) return p.metadata.name;
  }
  const worker = pools.find((p) => p.metadata.name === WORKER_POOL);
  if (worker && matches(worker)) return WORKER_POOL;
  return undefined;
}

/** Nodes per pool name, each list in Node-list order. */
export function assignNodesToPools<N extends AssignmentNode>(pools: readonly AssignmentPool[], nodes: readonly N[]): Map<string, N[]> {
  const byPool = new Map<string, N[]>();
  for (const node of nodes) {
    const name = whichPool(pools, node);
    if (name === undefined) continue;
    const list = byPool.get(name);
    if (list) list.push(node);
    else byPool.set(name, [node]);
  }
  return byPool;
}
