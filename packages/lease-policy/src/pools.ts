import type { PoolState } from "@lockstep/contracts";
import type { LeaseNode } from "./lease-node.js";
import { isEmptySelector, matchesSelector } from "./selector.js";

/**
 * The pool a node belongs to, as the MCO decides it: master wins, then a custom pool over worker.
 * Pools with an empty selector are ignored, as upstream does (event SelectingAll).
 */
export function primaryPool(node: LeaseNode, pools: readonly PoolState[]): PoolState | undefined {
  const matching = pools
    .filter((p) => p.nodeSelector !== undefined && !isEmptySelector(p.nodeSelector) && matchesSelector(p.nodeSelector, node.labels ?? {}))
    .sort((a, b) => a.name.localeCompare(b.name));
  return (
    matching.find((p) => p.name === "master") ??
    matching.find((p) => p.name !== "worker") ??
    matching.find((p) => p.name === "worker")
  );
}

export function poolMembers(pool: PoolState, nodes: readonly LeaseNode[], pools: readonly PoolState[]): LeaseNode[] {
  return nodes.filter((n) => primaryPool(n, pools)?.name === pool.name);
}

/**
 * MachineConfigPool maxUnavailable as the MCO computes it: an integer, or a percentage of the pool's
 * nodes rounded down; at least 1; unset means 1. A value the MCO cannot read allows 0 and says why.
 */
export function poolMaxUnavailable(pool: PoolState, memberCount: number): { limit: number; message: string } {
  const raw = (pool.maxUnavailable ?? "").trim();
  if (raw === "") return { limit: 1, message: `pool ${pool.name}: maxUnavailable unset, default 1` };
  const pct = /^(\d+)%$/.exec(raw);
  if (pct) {
    const value = Number(pct[1]);
    if (value > 100) return { limit: 0, message: `pool ${pool.name}: invalid maxUnavailable "${raw}" (over 100%), allowing 0` };
    const limit = Math.max(1, Math.floor((value * memberCount) / 100));
    return { limit, message: `pool ${pool.name}: maxUnavailable ${raw} of ${memberCount} nodes = ${limit}` };
  }
  if (/^\d+$/.test(raw)) {
    const limit = Math.max(1, Number(raw));
    return { limit, message: `pool ${pool.name}: maxUnavailable ${limit}` };
  }
  return { limit: 0, message: `pool ${pool.name}: invalid maxUnavailable "${raw}", allowing 0` };
}
