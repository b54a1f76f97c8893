// Nodes counted per pool and per MCO progress (state, current and desired config): what completion
// reads. A rolling update moves thousands of nodes, but they fall into a handful of such classes, so
// an evaluation reads a few counts per pool instead of walking every node.
import type { MachineConfigDaemonState, PoolState } from "@lockstep/contracts";
import { primaryPoolOf } from "./pools.js";
import type { NodeOf, SkewRuleInputs } from "./reads.js";

/**
 * A node's MCO progress: the fields completion reads of a node, through the tally. A class holds
 * these fields and nothing else.
 */
export const PROGRESS_FIELDS = ["state", "currentConfig", "desiredConfig"] as const satisfies readonly (keyof MachineConfigDaemonState)[];
export type ProgressField = (typeof PROGRESS_FIELDS)[number];

/** What the tally reads of a node: its labels (its pool, by primaryPoolOf) and its progress. */
export const NODE_TALLY_INPUTS = { node: { labels: "all", mco: PROGRESS_FIELDS } } as const satisfies SkewRuleInputs;
export type TallyNode = NodeOf<typeof NODE_TALLY_INPUTS>;

/** Nodes sharing one MCO progress (undefined: the node carries no MCO annotations). */
export interface ProgressClass {
  readonly mco: TallyNode["mco"];
  readonly count: number;
}

/** Per pool (every pool present), its members by progress class; classes with no node are absent. */
export type PoolTally = ReadonlyMap<string, ReadonlyMap<string, ProgressClass>>;

function classKey(mco: TallyNode["mco"]): string {
  if (mco === undefined) return "";
  let key = "+";
  for (let i = 0; i < PROGRESS_FIELDS.length; i++) key += (i === 0 ? "" : "\n") + mco[PROGRESS_FIELDS[i]!];
  return key;
}

function progressOf(mco: NonNullable<TallyNode["mco"]>): NonNullable<TallyNode["mco"]> {
  const out: Partial<Record<ProgressField, string>> = {};
  for (const f of PROGRESS_FIELDS) out[f] = mco[f];
  return out as NonNullable<TallyNode["mco"]>;
}

function add(tally: Map<string, Map<string, { mco: TallyNode["mco"]; count: number }>>, pool: string | undefined, key: string, mco: TallyNode["mco"], delta: 1 | -1): void {
  if (pool === undefined) return;
  const classes = tally.get(pool);
  if (!classes) return;
  const c = classes.get(key);
  if (c === undefined) {
    if (delta === 1) classes.set(key, { mco: mco === undefined ? undefined : progressOf(mco), count: 1 });
    return;
  }
  c.count += delta;
  if (c.count === 0) classes.delete(key);
}

/** The tally computed from scratch. */
export function tallyNodes(nodes: readonly TallyNode[], pools: readonly PoolState[]): PoolTally {
  const tally = new Map(pools.map((p) => [p.name, new Map<string, { mco: TallyNode["mco"]; count: number }>()]));
  for (const n of nodes) add(tally, primaryPoolOf(n, pools), classKey(n.mco), n.mco, 1);
  return tally;
}

/** What decides membership: pool names and selectors (pool status changes leave it alone). */
function selectorsOf(pools: readonly PoolState[]): string {
  return JSON.stringify(pools.map((p) => [p.name, p.nodeSelector]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)));
}

/**
 * The tally kept current from changes: put/delete a node, set the pools. Equals
 * tallyNodes(all nodes put and not deleted, the pools last set) at every moment (node-tally.test.ts).
 */
export class NodeTally {
  private pools: readonly PoolState[] = [];
  private selectors = selectorsOf([]);
  private readonly nodes = new Map<string, { node: TallyNode; pool: string | undefined }>();
  private counts = new Map<string, Map<string, { mco: TallyNode["mco"]; count: number }>>();

  get tally(): PoolTally {
    return this.counts;
  }

  /** Pools changed: members are found again only when a pool's name or selector changed. */
  setPools(pools: readonly PoolState[]): void {
    this.pools = pools;
    const selectors = selectorsOf(pools);
    if (selectors === this.selectors) return;
    this.selectors = selectors;
    this.counts = new Map(pools.map((p) => [p.name, new Map()]));
    for (const e of this.nodes.values()) {
      e.pool = primaryPoolOf(e.node, pools);
      add(this.counts, e.pool, classKey(e.node.mco), e.node.mco, 1);
    }
  }

  put(node: TallyNode): void {
    this.delete(node.name);
    const e = { node, pool: primaryPoolOf(node, this.pools) };
    this.nodes.set(node.name, e);
    add(this.counts, e.pool, classKey(node.mco), node.mco, 1);
  }

  delete(name: string): void {
    const e = this.nodes.get(name);
    if (!e) return;
    this.nodes.delete(name);
    add(this.counts, e.pool, classKey(e.node.mco), e.node.mco, -1);
  }
}
