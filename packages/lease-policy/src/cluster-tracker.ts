import type { DisruptionBudgetState, PoolState } from "@lockstep/contracts";
import { budgetMembership, budgetScope, type BudgetMembership, type BudgetScope, type ClusterIndex } from "./cluster.js";
import { isDisruptedWithoutLease } from "./disrupted.js";
import type { LeaseNode } from "./lease-node.js";
import { primaryPool } from "./pools.js";
import { matchesSelector } from "./selector.js";

/** A budget's membership as kept current: by pool, by selector, or a configuration error. */
interface BudgetEntry {
  budget: DisruptionBudgetState;
  by: BudgetScope;
  set: Set<string>;
  /** The membership as indexCluster answers it (members in node order); dropped when `set` changes. */
  answer?: BudgetMembership;
}

const NONE: ReadonlySet<string> = new Set();

/** A change as the state plane reports it, by its kind's name there (value absent: deleted). */
export type ClusterChange =
  | { kind: "node"; name: string; value?: LeaseNode | undefined }
  | { kind: "pool"; name: string; value?: PoolState | undefined }
  | { kind: "disruptionBudget"; name: string; value?: DisruptionBudgetState | undefined };

/**
 * A ClusterIndex kept current change by change (node, pool and budget puts and deletes), for a
 * process that sees every change (the lease-coordinator's state cache): a node change costs in
 * proportion to the pools and budgets, not to the 10,000 nodes a rebuilt index walks. Answers every
 * query as `indexCluster` over the same lists in the same order (cluster-tracker.property.test.ts).
 * Each change returns the budgets whose status may now differ (membership, or a member's
 * disruptedWithoutLease), so only those are evaluated again. Pure data: the caller feeds it.
 * It is one live object, not a snapshot: what it hands out (member sets) changes with it, so a
 * decision reads it synchronously.
 */
export class ClusterTracker implements ClusterIndex {
  private readonly byName = new Map<string, LeaseNode>();
  private readonly poolByName = new Map<string, PoolState>();
  private readonly budgetByName = new Map<string, BudgetEntry>();
  /** Node → its primary pool's name (absent: none). */
  private readonly poolOfNode = new Map<string, string>();
  private readonly poolMembersOf = new Map<string, Set<string>>();
  private readonly disrupted = new Set<string>();
  // The lists, built when read; a node's update replaces it in place (its position is kept, as the
  // cache keeps it), an added or deleted node drops the list.
  private nodeList: LeaseNode[] | undefined;
  private nodePosition: Map<string, number> | undefined;
  private poolList: PoolState[] | undefined;
  private budgetList: DisruptionBudgetState[] | undefined;

  get nodes(): readonly LeaseNode[] {
    if (this.nodeList === undefined) {
      this.nodeList = [...this.byName.values()];
      this.nodePosition = new Map(this.nodeList.map((n, i) => [n.name, i]));
    }
    return this.nodeList;
  }

  get pools(): readonly PoolState[] {
    return (this.poolList ??= [...this.poolByName.values()]);
  }

  get budgets(): readonly DisruptionBudgetState[] {
    return (this.budgetList ??= [...this.budgetByName.values()].map((e) => e.budget));
  }

  get disruptedWithoutLease(): ReadonlySet<string> {
    return this.disrupted;
  }

  node(name: string): LeaseNode | undefined {
    return this.byName.get(name);
  }

  poolOf(node: string): PoolState | undefined {
    const pool = this.poolOfNode.get(node);
    return pool === undefined ? undefined : this.poolByName.get(pool);
  }

  poolMembers(pool: string): ReadonlySet<string> {
    return this.poolMembersOf.get(pool) ?? NONE;
  }

  budgetMembers(budget: DisruptionBudgetState): BudgetMembership {
    const e = this.budgetByName.get(budget.name);
    // A budget object other than the one held (a caller's own) is answered from scratch.
    if (e === undefined || e.budget !== budget) return budgetMembership(budget, this.nodes, (n) => this.poolOf(n.name));
    if (e.answer === undefined) {
      if (e.by.kind === "error") e.answer = { error: e.by.error, members: [], set: NONE };
      else {
        const members = e.set.size === 0 ? [] : this.nodes.filter((n) => e.set.has(n.name)).map((n) => n.name);
        e.answer = { members, set: e.set };
      }
    }
    return e.answer;
  }

  /** Applies a change; returns the budgets whose status may have changed. */
  apply(c: ClusterChange): Set<string> {
    switch (c.kind) {
      case "node":
        return c.value === undefined ? this.deleteNode(c.name) : this.putNode(c.value);
      case "pool":
        return c.value === undefined ? this.deletePool(c.name) : this.putPool(c.value);
      case "disruptionBudget":
        return c.value === undefined ? this.deleteBudget(c.name) : this.putBudget(c.value);
    }
  }

  /** A node put (added or changed); returns the budgets whose status may have changed. */
  putNode(node: LeaseNode): Set<string> {
    const touched = new Set<string>();
    const name = node.name;
    const prev = this.byName.get(name);
    this.byName.set(name, node);
    const at = this.nodePosition?.get(name);
    if (prev !== undefined && at !== undefined) this.nodeList![at] = node;
    else this.dropNodeList();
    const labelsChanged = prev === undefined || !sameLabels(prev.labels, node.labels);
    if (labelsChanged) this.placeNode(node, touched);
    const was = prev !== undefined && isDisruptedWithoutLease(prev);
    const is = isDisruptedWithoutLease(node);
    if (was !== is) {
      if (is) this.disrupted.add(name);
      else this.disrupted.delete(name);
      for (const [b, e] of this.budgetByName) if (e.set.has(name)) touched.add(b);
    }
    return touched;
  }

  deleteNode(name: string): Set<string> {
    const touched = new Set<string>();
    if (!this.byName.delete(name)) return touched;
    this.dropNodeList();
    this.disrupted.delete(name);
    const pool = this.poolOfNode.get(name);
    if (pool !== undefined) {
      this.poolOfNode.delete(name);
      this.poolMembersOf.get(pool)!.delete(name);
    }
    for (const [b, e] of this.budgetByName) {
      if (e.set.delete(name)) this.changed(b, e, touched);
    }
    return touched;
  }

  /** A pool put; only a change of which pools select which nodes moves any node. */
  putPool(pool: PoolState): Set<string> {
    const prev = this.poolByName.get(pool.name);
    this.poolByName.set(pool.name, pool);
    this.poolList = undefined;
    if (prev !== undefined && selectorKey(prev) === selectorKey(pool)) return new Set();
    return this.replacePools();
  }

  deletePool(name: string): Set<string> {
    if (!this.poolByName.delete(name)) return new Set();
    this.poolList = undefined;
    return this.replacePools();
  }

  putBudget(budget: DisruptionBudgetState): Set<string> {
    const by = budgetScope(budget);
    const set = new Set<string>();
    if (by.kind === "pool") for (const n of this.poolMembersOf.get(by.pool) ?? []) set.add(n);
    if (by.kind === "selector") for (const n of this.byName.values()) if (matchesSelector(budget.nodeSelector!, n.labels ?? {})) set.add(n.name);
    // Replaced in place: the budget list keeps the cache's order.
    this.budgetByName.set(budget.name, { budget, by, set });
    this.budgetList = undefined;
    return new Set([budget.name]);
  }

  deleteBudget(name: string): Set<string> {
    if (!this.budgetByName.delete(name)) return new Set();
    this.budgetList = undefined;
    return new Set([name]);
  }

  private dropNodeList(): void {
    this.nodeList = undefined;
    this.nodePosition = undefined;
  }

  private joinPool(node: string, pool: string): void {
    this.poolOfNode.set(node, pool);
    let set = this.poolMembersOf.get(pool);
    if (set === undefined) this.poolMembersOf.set(pool, (set = new Set()));
    set.add(node);
  }

  private changed(b: string, e: BudgetEntry, touched: Set<string>): void {
    e.answer = undefined;
    touched.add(b);
  }

  /** The node's pool and selector-budget memberships, from its labels. */
  private placeNode(node: LeaseNode, touched: Set<string>): void {
    const name = node.name;
    const before = this.poolOfNode.get(name);
    const after = primaryPool(node, this.pools)?.name;
    if (before !== after) {
      if (before !== undefined) this.poolMembersOf.get(before)!.delete(name);
      if (after !== undefined) this.joinPool(name, after);
      else this.poolOfNode.delete(name);
    }
    for (const [b, e] of this.budgetByName) {
      let member: boolean;
      if (e.by.kind === "pool") member = after === e.by.pool;
      else if (e.by.kind === "selector") member = matchesSelector(e.budget.nodeSelector!, node.labels ?? {});
      else continue;
      if (member === e.set.has(name)) continue;
      if (member) e.set.add(name);
      else e.set.delete(name);
      this.changed(b, e, touched);
    }
  }

  /** Every node's pool again (pools appeared, went or select differently); returns the budgets moved. */
  private replacePools(): Set<string> {
    const touched = new Set<string>();
    const pools = this.pools;
    this.poolOfNode.clear();
    this.poolMembersOf.clear();
    for (const n of this.byName.values()) {
      const p = primaryPool(n, pools)?.name;
      if (p !== undefined) this.joinPool(n.name, p);
    }
    for (const [b, e] of this.budgetByName) {
      if (e.by.kind !== "pool") continue;
      const next = this.poolMembersOf.get(e.by.pool);
      if (next !== undefined && next.size === e.set.size && [...next].every((n) => e.set.has(n))) continue;
      if (next === undefined && e.set.size === 0) continue;
      e.set = new Set(next ?? []);
      this.changed(b, e, touched);
    }
    return touched;
  }
}

function sameLabels(a: Readonly<Record<string, string>> | undefined, b: Readonly<Record<string, string>> | undefined): boolean {
  if (a === b) return true;
  const ka = Object.keys(a ?? {});
  if (ka.length !== Object.keys(b ?? {}).length) return false;
  return ka.every((k) => Object.hasOwn(b ?? {}, k) && a![k] === b![k]);
}

/** What decides which nodes a pool selects (primaryPool reads only the name and the selector). */
function selectorKey(p: PoolState): string {
  return JSON.stringify(p.nodeSelector ?? null);
}
