import type { PoolState } from "@lockstep/contracts";
import type { MachineConfigOf, NodeOf, SkewRuleInputs } from "./reads.js";
import { selectorIsEmpty, selectorMatches } from "./selector.js";

/** What primaryPoolOf reads of a node (pools whole). */
export const POOL_MEMBERSHIP_INPUTS = { node: { labels: "all" } } as const satisfies SkewRuleInputs;
export type MembershipNode = NodeOf<typeof POOL_MEMBERSHIP_INPUTS>;

/** What releaseOf reads of a rendered MachineConfig: the rules read MachineConfigs only through it. */
export const RELEASE_INPUTS = { machineConfig: ["releaseImageVersion"] } as const satisfies SkewRuleInputs;

/** Rendered MachineConfigs by name, as read from the state plane. */
export type MachineConfigLookup = ReadonlyMap<string, MachineConfigOf<typeof RELEASE_INPUTS>>;

export const MASTER_POOL = "master";
export const WORKER_POOL = "worker";
export const REQUIRED_FOR_UPGRADE_LABEL = "operator.machineconfiguration.openshift.io/required-for-upgrade";

/** The control-plane pool: `master`, else the first pool (by name) labelled required-for-upgrade. */
export function findMasterPool(pools: readonly PoolState[]): PoolState | undefined {
  return (
    pools.find((p) => p.name === MASTER_POOL) ??
    [...pools].sort(byName).find((p) => Object.hasOwn(p.labels, REQUIRED_FOR_UPGRADE_LABEL))
  );
}

/** The `release-image-version` annotation of a rendered config, or "" when unknown. */
export function releaseOf(configName: string, configs: MachineConfigLookup): string {
  if (!configName) return "";
  return configs.get(configName)?.releaseImageVersion ?? "";
}

function byName(a: { name: string }, b: { name: string }): number {
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

/** Pools in report order: master first, then by name, so every verdict is deterministic. */
export function sortPools<T extends { name: string }>(pools: readonly T[]): T[] {
  return [...pools].sort((a, b) => (a.name === MASTER_POOL ? -1 : b.name === MASTER_POOL ? 1 : byName(a, b)));
}

/**
 * The primary pool of a node, as the MCO node controller decides it: a node matching `master`
 * belongs to master; otherwise a single matching custom pool wins over `worker`; a node matching
 * several custom pools belongs to none (upstream refuses to manage it). Pools with an empty
 * selector are ignored (upstream's `SelectingAll`).
 */
export function primaryPoolOf(node: MembershipNode, pools: readonly PoolState[]): string | undefined {
  const matching = pools.filter((p) => !selectorIsEmpty(p.nodeSelector) && selectorMatches(p.nodeSelector, node.labels));
  if (matching.some((p) => p.name === MASTER_POOL)) return MASTER_POOL;
  const custom = matching.filter((p) => p.name !== WORKER_POOL);
  if (custom.length > 1) return undefined;
  if (custom.length === 1) return custom[0]?.name;
  return matching.some((p) => p.name === WORKER_POOL) ? WORKER_POOL : undefined;
}

/** Members of every pool, keyed by pool name (every pool present, possibly with no nodes). */
export function nodesByPool<N extends MembershipNode>(nodes: readonly N[], pools: readonly PoolState[]): Map<string, N[]> {
  const members = new Map<string, N[]>(pools.map((p) => [p.name, []]));
  for (const node of [...nodes].sort(byName)) {
    const pool = primaryPoolOf(node, pools);
    if (pool !== undefined) members.get(pool)?.push(node);
  }
  return members;
}
