import type { DisruptionBudgetState, PoolState } from "@lockstep/contracts";
import type { LeaseNode } from "./lease-node.js";
import { isDisruptedWithoutLease } from "./disrupted.js";
import { primaryPool } from "./pools.js";
import { isEmptySelector, matchesSelector, validateSelector } from "./selector.js";

/** Which nodes a budget covers, or why it covers none (a configuration error). */
export type BudgetMembership = { members: string[]; set: ReadonlySet<string> } | { error: string; members: []; set: ReadonlySet<string> };

/**
 * The node/pool/budget lists of one cluster snapshot, indexed once: node by name, each node's
 * pool, pool and budget members, nodes disrupted without a lease. A decision then costs the same
 * in a 10,000-node cluster as in a 10-node one. Pure data (memoised lazily); the caller builds one
 * per snapshot and drops it when nodes, pools or budgets change.
 */
export interface ClusterIndex {
  readonly nodes: readonly LeaseNode[];
  readonly pools: readonly PoolState[];
  readonly budgets: readonly DisruptionBudgetState[];
  node(name: string): LeaseNode | undefined;
  /** The node's pool as the MCO decides it (primaryPool). */
  poolOf(node: string): PoolState | undefined;
  /** Names of the nodes whose primary pool is `pool`. */
  poolMembers(pool: string): ReadonlySet<string>;
  budgetMembers(budget: DisruptionBudgetState): BudgetMembership;
  /** Nodes unavailable without any lease (NotReady, being deleted, cordoned). */
  readonly disruptedWithoutLease: ReadonlySet<string>;
}

const NONE: ReadonlySet<string> = new Set();

/** How a budget picks its nodes: by pool or by label selector (exactly one of them), or why neither. */
export type BudgetScope = { kind: "pool"; pool: string } | { kind: "selector" } | { kind: "error"; error: string };

export function budgetScope(budget: DisruptionBudgetState): BudgetScope {
  const hasSelector = !isEmptySelector(budget.nodeSelector);
  if (budget.pool !== "" && hasSelector) return { kind: "error", error: "set either pool or nodeSelector, not both" };
  if (budget.pool !== "") return { kind: "pool", pool: budget.pool };
  if (budget.nodeSelector === undefined) return { kind: "error", error: "no pool or nodeSelector" };
  const problems = validateSelector(budget.nodeSelector);
  return problems.length > 0 ? { kind: "error", error: problems.join("; ") } : { kind: "selector" };
}

/** Which nodes `budget` selects. */
export function budgetMembership(budget: DisruptionBudgetState, nodes: readonly LeaseNode[], poolOf: (n: LeaseNode) => PoolState | undefined): BudgetMembership {
  const scope = budgetScope(budget);
  if (scope.kind === "error") return { error: scope.error, members: [], set: NONE };
  const members =
    scope.kind === "pool"
      ? nodes.filter((n) => poolOf(n)?.name === scope.pool).map((n) => n.name)
      : nodes.filter((n) => matchesSelector(budget.nodeSelector!, n.labels ?? {})).map((n) => n.name);
  return { members, set: new Set(members) };
}

export function indexCluster(nodes: readonly LeaseNode[], pools: readonly PoolState[], budgets: readonly DisruptionBudgetState[]): ClusterIndex {
  let byName: Map<string, LeaseNode> | undefined;
  let poolByNode: Map<string, PoolState | undefined> | undefined;
  let members: Map<string, Set<string>> | undefined;
  let disrupted: Set<string> | undefined;
  // Keyed by the budget object: a changed budget is a new object in a new snapshot.
  const budgetCache = new WeakMap<DisruptionBudgetState, BudgetMembership>();
  const nodeMap = () => (byName ??= new Map(nodes.map((n) => [n.name, n])));
  const pooled = () => {
    if (poolByNode === undefined) {
      poolByNode = new Map();
      members = new Map();
      for (const n of nodes) {
        const p = primaryPool(n, pools);
        poolByNode.set(n.name, p);
        if (p === undefined) continue;
        let set = members.get(p.name);
        if (set === undefined) members.set(p.name, (set = new Set()));
        set.add(n.name);
      }
    }
    return { poolByNode, members: members! };
  };
  return {
    nodes,
    pools,
    budgets,
    node: (name) => nodeMap().get(name),
    poolOf: (name) => pooled().poolByNode.get(name),
    poolMembers: (pool) => pooled().members.get(pool) ?? NONE,
    budgetMembers(budget) {
      let m = budgetCache.get(budget);
      if (m === undefined) {
        const { poolByNode } = pooled();
        m = budgetMembership(budget, nodes, (n) => poolByNode.get(n.name));
        budgetCache.set(budget, m);
      }
      return m;
    },
    get disruptedWithoutLease() {
      return (disrupted ??= new Set(nodes.filter(isDisruptedWithoutLease).map((n) => n.name)));
    },
  };
}

/** The decision's cluster index: the caller's memo when given, else one built for this call. */
export function clusterOf(observed: { nodes: readonly LeaseNode[]; pools: readonly PoolState[]; budgets: readonly DisruptionBudgetState[]; cluster?: ClusterIndex }): ClusterIndex {
  return observed.cluster ?? indexCluster(observed.nodes, observed.pools, observed.budgets);
}
