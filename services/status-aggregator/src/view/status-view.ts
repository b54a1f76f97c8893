// The aggregator's incremental view of the oc adm upgrade status rules (status-insights.md §14).
// Inputs arrive one object at a time from the state plane; each marks only what depends on it
// dirty, and flush() recomputes exactly that: a node change re-evaluates that node and re-summarises
// its pool; a MachineConfig change re-evaluates the nodes on that config; a pool change
// re-evaluates that pool's nodes (and reassigns every node when a selector changed); a
// ClusterVersion change re-evaluates every node only when the target or migration flag changed.
// The time-dependent parts (control plane, health) are assembled per query from cached pieces.
// Pure: no I/O, no clock (callers pass "now").
import type { ClusterOperatorState, ClusterVersionState, MachineConfigState, NodeState, PoolState } from "@lockstep/contracts";
import {
  type ClusterContext,
  type ClusterOperator,
  type ClusterVersion,
  type Evaluation,
  type HealthInsight,
  type MachineConfigPool,
  type Node,
  type NodeAvailability,
  type NodeRecord,
  type PoolSummary,
  clusterContext,
  completeEvaluation,
  clusterOperatorFromState,
  clusterVersionFromState,
  evaluateNode,
  machineConfigFromState,
  machineConfigVersion,
  NODE_RULE_INPUTS,
  nodeFromState,
  nodeInsights,
  pausedPoolInsight,
  poolInputsKey,
  poolFromState,
  requireClusterInputs,
  sameClusterContext,
  type NodeCounters,
  adjustCounters,
  summarizeCountedPool,
  summarizePool,
  whichPool,
  zeroCounters,
  type AlertsResponse,
} from "@lockstep/insights";

const MASTER_POOL = "master";

interface NodeEntry {
  name: string;
  /**
   * The snapshot as decoded (the state cache holds the same object): the rules' Node is converted
   * from it when the node is re-evaluated and dropped afterwards, not kept per node.
   */
  state: NodeState;
  /** State-plane revision of the node's snapshot (event ids). */
  revision: number;
  /** Pool the node belongs to; undefined when no pool selects it (it is then not shown). */
  pool: string | undefined;
  record: NodeRecord | undefined;
  /** Kept only for the few nodes in `insightful` (the only ones a query reads it for). */
  availability: NodeAvailability | undefined;
  /** MachineConfig names the record depends on (current and desired config). */
  configs: [string, string];
  /** When the node's row last changed assessment or phase (Unix ns). */
  since: bigint;
  /** The pool whose counters include `counted` (the row as last counted). */
  countedPool: string | undefined;
  counted: NodeRecord | undefined;
}

interface PoolEntry {
  pool: MachineConfigPool;
  revision: number;
  /** Canonical selector text: a change means nodes must be reassigned. */
  selectorKey: string;
  /** What of the pool the node rules read: a change means its nodes must be re-evaluated. */
  nodeInputsKey: string;
  /** Revision of the snapshot that last changed nodeInputsKey (a row's inputs, for event ids). */
  nodeInputsRevision: number;
}

/**
 * The pool fields the node rules read (NODE_RULE_INPUTS: target config, paused, layered OS image).
 * Everything else, the status counters above all, changes with every node that finishes during a
 * rollout; re-evaluating 10,000 members for each of those changes blocked the aggregator for
 * ~300 ms at a time.
 */
const poolNodeInputsKey = poolInputsKey(NODE_RULE_INPUTS);

/** A node whose ASSESSMENT or PHASE changed in a flush. */
export interface Transition {
  node: string;
  pool: string;
  previousAssessment: string;
  previousPhase: string;
  record: NodeRecord;
  /** Highest state-plane revision among the inputs that decided the new row (deterministic ids). */
  inputsRevision: number;
}

export interface FlushResult {
  /** Node records that differ from before (added or changed), with their transition times. */
  changed: Array<{ record: NodeRecord; since: bigint }>;
  /** Nodes no longer shown (deleted, or no pool selects them). */
  removed: string[];
  transitions: Transition[];
  /** Pools whose summary was recomputed. */
  pools: string[];
}

/** Work counters: how much a flush recomputed (tests and metrics). */
export interface ViewStats {
  nodeEvaluations: number;
  poolSummaries: number;
  reassignments: number;
}

const byName = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

function sameRecord(a: NodeRecord, b: NodeRecord): boolean {
  // for-in, not Object.keys: no array per re-evaluated node (records are plain objects of one shape).
  for (const k in a) if (a[k as keyof NodeRecord] !== b[k as keyof NodeRecord]) return false;
  return true;
}

export class StatusView {
  private cv: { state: ClusterVersion; revision: number } | undefined;
  private readonly operators = new Map<string, ClusterOperator>();
  private sortedOperators: ClusterOperator[] | undefined;
  private readonly pools = new Map<string, PoolEntry>();
  private sortedPools: MachineConfigPool[] | undefined;
  private readonly mcVersions = new Map<string, string>();
  private readonly mcRevisions = new Map<string, number>();
  private readonly nodes = new Map<string, NodeEntry>();
  private readonly poolNodes = new Map<string, Set<string>>();
  private readonly configIndex = new Map<string, Set<string>>();
  private readonly summaries = new Map<string, PoolSummary>();
  private readonly staleSummaries = new Set<string>();
  /** Nodes that may have health insights of their own (see nodeInsights): few, so queries skip the rest. */
  private readonly insightful = new Set<string>();
  /** Per pool, countNodes() of its rows, kept up to date row by row in flush. */
  private readonly counters = new Map<string, NodeCounters>();
  /** rowNames(), until a row appears or disappears. */
  private sortedRows: string[] | undefined;
  private ctx: ClusterContext = { target: undefined, migrationInProgress: false, mcVersions: this.mcVersions };

  private readonly dirtyNodes = new Set<string>();
  private readonly dirtyPools = new Set<string>();
  private reassignAll = false;
  private revisionCounter = 0;
  readonly stats: ViewStats = { nodeEvaluations: 0, poolSummaries: 0, reassignments: 0 };

  /** Increases with every flush that changed something. */
  get revision(): number {
    return this.revisionCounter;
  }

  get pending(): boolean {
    return this.dirtyNodes.size > 0 || this.dirtyPools.size > 0 || this.reassignAll;
  }

  get nodeCount(): number {
    return this.nodes.size;
  }

  setNode(name: string, state: NodeState | undefined, revision = 0): void {
    if (!state) {
      if (this.nodes.has(name)) this.dirtyNodes.add(name);
      const entry = this.nodes.get(name);
      if (entry) entry.revision = revision;
      this.deletedNodes.add(name);
      return;
    }
    this.deletedNodes.delete(name);
    const entry = this.nodes.get(name);
    if (entry) {
      entry.state = state;
      entry.revision = revision;
    } else {
      this.nodes.set(name, { name, state, revision, pool: undefined, record: undefined, availability: undefined, configs: ["", ""], since: 0n, countedPool: undefined, counted: undefined });
    }
    this.dirtyNodes.add(name);
  }

  private readonly deletedNodes = new Set<string>();

  setPool(name: string, state: PoolState | undefined, revision = 0): void {
    const previous = this.pools.get(name);
    if (!state) {
      if (!previous) return;
      this.pools.delete(name);
      this.sortedPools = undefined;
      this.reassignAll = true;
      this.dirtyPools.add(name);
      return;
    }
    const pool = poolFromState(state);
    const selectorKey = JSON.stringify(pool.spec?.nodeSelector ?? null);
    const nodeInputsKey = poolNodeInputsKey(pool);
    const nodesAffected = !previous || previous.nodeInputsKey !== nodeInputsKey;
    const nodeInputsRevision = nodesAffected ? revision : previous.nodeInputsRevision;
    this.pools.set(name, { pool, revision, selectorKey, nodeInputsKey, nodeInputsRevision });
    this.sortedPools = undefined;
    if (!previous || previous.selectorKey !== selectorKey) this.reassignAll = true;
    if (nodesAffected) for (const n of this.poolNodes.get(name) ?? []) this.dirtyNodes.add(n);
    this.dirtyPools.add(name);
  }

  setMachineConfig(name: string, state: MachineConfigState | undefined, revision = 0): void {
    const before = this.mcVersions.get(name);
    // What the node rules read of a MachineConfig (NODE_RULE_INPUTS.machineConfig), as evaluate() reads it.
    const after = state ? machineConfigVersion(machineConfigFromState(state)) : undefined;
    if (after === undefined) this.mcVersions.delete(name);
    else this.mcVersions.set(name, after);
    this.mcRevisions.set(name, revision);
    if (before === after) return;
    for (const n of this.configIndex.get(name) ?? []) this.dirtyNodes.add(n);
  }

  setClusterVersion(state: ClusterVersionState | undefined, revision = 0): void {
    // Only `version` is the ClusterVersion the rules read.
    if (state && state.name !== "version") return;
    const cv = state ? clusterVersionFromState(state) : undefined;
    this.cv = cv ? { state: cv, revision } : undefined;
    // The node rules read the ClusterVersion only through the context.
    const ctx = clusterContext(cv, this.mcVersions);
    if (!sameClusterContext(ctx, this.ctx)) {
      this.ctx = ctx;
      for (const n of this.nodes.keys()) this.dirtyNodes.add(n);
    }
  }

  setClusterOperator(name: string, state: ClusterOperatorState | undefined): void {
    if (state) this.operators.set(name, clusterOperatorFromState(state));
    else this.operators.delete(name);
    this.sortedOperators = undefined;
  }

  /** Recomputes what the changes since the last flush touched. `now` stamps row transitions. */
  flush(now: bigint): FlushResult {
    const result: FlushResult = { changed: [], removed: [], transitions: [], pools: [] };
    if (!this.pending) return result;
    const pools = this.poolList();

    if (this.reassignAll) {
      this.stats.reassignments++;
      for (const entry of this.nodes.values()) {
        // A dirty node is re-evaluated (pool included) anyway.
        if (this.deletedNodes.has(entry.name) || this.dirtyNodes.has(entry.name)) continue;
        const pool = whichPool(pools, nodeFromState(entry.state));
        if (pool !== entry.pool || (pool !== undefined && this.dirtyPools.has(pool))) this.dirtyNodes.add(entry.name);
      }
      // Only once every node was placed: a pool whose selector cannot be evaluated throws above,
      // and the next flush (after the pool is fixed) must place them all again.
      this.reassignAll = false;
    }

    for (const name of this.dirtyNodes) {
      const entry = this.nodes.get(name);
      if (!entry) continue;
      this.refreshNode(entry, pools, now, result);
      this.recount(entry);
    }
    this.dirtyNodes.clear();

    // Pool summaries (a sort of the pool's rows) are recomputed when next read, so a burst of node
    // changes costs one summary per pool per query rather than one per flush.
    for (const name of this.dirtyPools) {
      this.staleSummaries.add(name);
      if (this.pools.has(name)) result.pools.push(name);
    }
    this.dirtyPools.clear();
    this.revisionCounter++;
    return result;
  }

  /** Re-evaluates one dirty node (flush). */
  private refreshNode(entry: NodeEntry, pools: MachineConfigPool[], now: bigint, result: FlushResult): void {
    const name = entry.name;
    if (this.deletedNodes.has(name)) {
      this.deletedNodes.delete(name);
      this.nodes.delete(name);
      this.detach(entry);
      this.insightful.delete(name);
      if (entry.record) this.rowRemoved(name, result);
      return;
    }
    const node = nodeFromState(entry.state);
    const poolName = whichPool(pools, node);
    if (poolName !== entry.pool) {
      this.detach(entry);
      entry.pool = poolName;
      if (poolName !== undefined) this.attach(entry, poolName);
    }
    this.indexConfigs(entry, node);
    if (poolName === undefined) {
      if (entry.record) this.rowRemoved(name, result);
      entry.record = undefined;
      entry.availability = undefined;
      this.insightful.delete(name);
      return;
    }
    const pool = this.pools.get(poolName)!.pool;
    const { record, availability } = evaluateNode(node, pool, this.ctx);
    this.stats.nodeEvaluations++;
    const previous = entry.record;
    const current = previous && sameRecord(previous, record) ? previous : record;
    // nodeInsights() yields nothing for an updating node that is not degraded.
    if (current.isDegraded || (availability.reasons.length > 0 && !current.isUpdating)) {
      this.insightful.add(name);
      entry.availability = availability;
    } else {
      this.insightful.delete(name);
      entry.availability = undefined;
    }
    if (current === previous) return;
    if (!previous) this.sortedRows = undefined;
    entry.record = record;
    this.dirtyPools.add(poolName);
    if (!previous || previous.assessment !== record.assessment || previous.phase !== record.phase) {
      entry.since = now;
      if (previous) {
        result.transitions.push({
          node: name,
          pool: poolName,
          previousAssessment: previous.assessment,
          previousPhase: previous.phase,
          record,
          inputsRevision: this.inputsRevision(entry),
        });
      }
    }
    result.changed.push({ record, since: entry.since });
  }

  private rowRemoved(name: string, result: FlushResult): void {
    result.removed.push(name);
    this.sortedRows = undefined;
  }

  /** Keeps the pool counters equal to countNodes() of each pool's rows. */
  private recount(entry: NodeEntry): void {
    const row = entry.pool !== undefined && this.nodes.get(entry.name) === entry ? entry.record : undefined;
    if (entry.countedPool === entry.pool && entry.counted === row) return;
    if (entry.countedPool !== undefined && entry.counted) adjustCounters(this.counters.get(entry.countedPool)!, entry.counted, -1);
    entry.countedPool = undefined;
    entry.counted = undefined;
    if (row && entry.pool !== undefined) {
      let c = this.counters.get(entry.pool);
      if (!c) this.counters.set(entry.pool, (c = zeroCounters()));
      adjustCounters(c, row, 1);
      entry.countedPool = entry.pool;
      entry.counted = row;
    }
  }

  /** The node records and their transition times, in name order; filtered by pool and assessment. */
  nodeRecords(filter: { pool?: string; assessment?: string } = {}): Array<{ record: NodeRecord; since: bigint }> {
    const out: Array<{ record: NodeRecord; since: bigint }> = [];
    for (const e of this.nodes.values()) {
      if (!e.record) continue;
      if (filter.pool && e.record.pool !== filter.pool) continue;
      if (filter.assessment && e.record.assessment !== filter.assessment) continue;
      out.push({ record: e.record, since: e.since });
    }
    return out.sort((a, b) => byName(a.record.name, b.record.name));
  }

  nodeRecord(name: string): { record: NodeRecord; since: bigint } | undefined {
    const e = this.nodes.get(name);
    return e?.record ? { record: e.record, since: e.since } : undefined;
  }

  /** The names of the nodes with a row (nodeRecords() without the filter), in name order; as of the last flush. */
  rowNames(): readonly string[] {
    if (!this.sortedRows) {
      const names: string[] = [];
      for (const e of this.nodes.values()) if (e.record) names.push(e.name);
      this.sortedRows = names.sort(byName);
    }
    return this.sortedRows;
  }

  /** The node's snapshot as last set. */
  nodeState(name: string): NodeState | undefined {
    return this.deletedNodes.has(name) ? undefined : this.nodes.get(name)?.state;
  }

  poolSummary(name: string): PoolSummary | undefined {
    if (this.staleSummaries.has(name)) this.summarize(name);
    return this.summaries.get(name);
  }

  private summarize(name: string): void {
    this.staleSummaries.delete(name);
    const entry = this.pools.get(name);
    if (!entry) {
      this.summaries.delete(name);
      return;
    }
    // Rows are collected and sorted only if something reads them (rendering, in the same turn as
    // the evaluation); status answers need the counters, kept row by row in flush.
    const rows = (): NodeRecord[] => {
      const records: NodeRecord[] = [];
      for (const n of this.poolNodes.get(name) ?? []) {
        const r = this.nodes.get(n)?.record;
        if (r) records.push(r);
      }
      return records;
    };
    this.summaries.set(name, summarizeCountedPool(entry.pool, this.counters.get(name) ?? zeroCounters(), rows));
    this.stats.poolSummaries++;
  }

  /** Pool names in the API's (name) order (the per-pool metrics). */
  poolNames(): string[] {
    return this.poolList().map((p) => p.metadata.name);
  }

  /** Names of the nodes a pool selects (the pool summary's inputs). */
  poolNodeNames(pool: string): string[] {
    return [...(this.poolNodes.get(pool) ?? [])];
  }

  /**
   * The full evaluation at `now`, exactly as `evaluate()` would compute it from the same objects,
   * plus `extra` health insights (Lockstep's own). Throws StatusError like evaluate().
   */
  evaluation(now: bigint, wallClock: bigint, extra: readonly HealthInsight[] = [], alerts?: AlertsResponse): Evaluation {
    if (this.pending) this.flush(now);
    const operators = this.operatorList();
    const { cv, progressing } = requireClusterInputs(this.cv?.state, operators);

    const collected: HealthInsight[] = [];
    let masterPool: PoolSummary | undefined;
    const workerPools: PoolSummary[] = [];
    const insightfulByPool = new Map<string, NodeEntry[]>();
    for (const n of this.insightful) {
      const e = this.nodes.get(n);
      if (!e?.record || !e.availability || e.pool === undefined) continue;
      let list = insightfulByPool.get(e.pool);
      if (!list) insightfulByPool.set(e.pool, (list = []));
      list.push(e);
    }
    for (const pool of this.poolList()) {
      const name = pool.metadata.name;
      const summary = this.poolSummary(name) ?? summarizePool(pool, []);
      // Node insights in node-list (name) order, as evaluate() collects them.
      const insightful = insightfulByPool.get(name) ?? [];
      insightful.sort((a, b) => byName(a.name, b.name));
      for (const e of insightful) collected.push(...nodeInsights(e.record!, e.availability!, wallClock));
      const paused = pausedPoolInsight(summary);
      if (paused) collected.push(paused);
      if (name === MASTER_POOL) masterPool = summary;
      else workerPools.push(summary);
    }

    // Alerts come from the alert source (alerts/), not the state plane; undefined = unavailable (no
    // alert insights), as oc without access. The state plane has no MCO deployment (its image "").
    return completeEvaluation({ now, cv, progressing, operators, mcoImage: "", alerts, masterPool, workerPools, collected, extra });
  }

  /** The ClusterVersion `version` and the ClusterOperators (by name) as the rules read them. */
  get clusterVersion(): ClusterVersion | undefined {
    return this.cv?.state;
  }

  get clusterOperators(): readonly ClusterOperator[] {
    return this.operatorList();
  }

  /** The ClusterVersion target (history[0].version), if known. */
  get target(): string | undefined {
    return this.ctx.target;
  }

  private poolList(): MachineConfigPool[] {
    if (!this.sortedPools) this.sortedPools = [...this.pools.keys()].sort(byName).map((n) => this.pools.get(n)!.pool);
    return this.sortedPools;
  }

  private operatorList(): ClusterOperator[] {
    if (!this.sortedOperators) this.sortedOperators = [...this.operators.keys()].sort(byName).map((n) => this.operators.get(n)!);
    return this.sortedOperators;
  }

  private attach(entry: NodeEntry, pool: string): void {
    let set = this.poolNodes.get(pool);
    if (!set) this.poolNodes.set(pool, (set = new Set()));
    set.add(entry.name);
    this.dirtyPools.add(pool);
  }

  private detach(entry: NodeEntry): void {
    if (entry.pool !== undefined) {
      this.poolNodes.get(entry.pool)?.delete(entry.name);
      this.dirtyPools.add(entry.pool);
    }
    for (const c of entry.configs) this.configIndex.get(c)?.delete(entry.name);
    entry.configs = ["", ""];
  }

  private indexConfigs(entry: NodeEntry, node: Node): void {
    const ann = node.metadata.annotations ?? {};
    const next: [string, string] = [ann["machineconfiguration.openshift.io/currentConfig"] ?? "", ann["machineconfiguration.openshift.io/desiredConfig"] ?? ""];
    if (next[0] === entry.configs[0] && next[1] === entry.configs[1]) return;
    for (const c of entry.configs) this.configIndex.get(c)?.delete(entry.name);
    for (const c of next) {
      let set = this.configIndex.get(c);
      if (!set) this.configIndex.set(c, (set = new Set()));
      set.add(entry.name);
    }
    entry.configs = next;
  }

  private inputsRevision(entry: NodeEntry): number {
    let rev = Math.max(entry.revision, this.cv?.revision ?? 0);
    if (entry.pool !== undefined) rev = Math.max(rev, this.pools.get(entry.pool)?.nodeInputsRevision ?? 0);
    for (const c of entry.configs) rev = Math.max(rev, this.mcRevisions.get(c) ?? 0);
    return rev;
  }
}
