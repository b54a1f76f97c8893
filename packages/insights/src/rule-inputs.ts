// What the status rules read, declared beside each rule (NODE_AVAILABILITY_INPUTS, NODE_STATUS_INPUTS,
// POOL_ASSIGNMENT_INPUTS; each rule's input types are picked from its declaration, reads.ts) and
// merged here. Whoever keeps or compares only part of an object (the aggregator's node projection and
// its re-evaluation keys) derives what it keeps from these, so a rule cannot read a field (it would
// not compile) whose changes are dropped on the way.
// Pure; the derived functions are built once, by the caller, at module load.
import type { MachineConfigDaemonState } from "@lockstep/contracts";
import { ANNOTATION_SOURCES } from "./from-state.js";
import { POOL_ASSIGNMENT_INPUTS } from "./assign-pools.js";
import { NODE_AVAILABILITY_INPUTS } from "./node-availability.js";
import { NODE_STATUS_INPUTS } from "./node-status.js";
import type { RuleInputs } from "./reads.js";
import type { MachineConfigPool } from "./types.js";

export type { RuleInputs } from "./reads.js";

const union = (a: readonly string[] | undefined, b: readonly string[] | undefined): readonly string[] | undefined =>
  a === undefined && b === undefined ? undefined : [...new Set([...(a ?? []), ...(b ?? [])])];
const either = (a: boolean | undefined, b: boolean | undefined): boolean | undefined => (a === undefined && b === undefined ? undefined : a === true || b === true);

/** Everything any of the declarations reads. */
export function mergeInputs(...all: readonly RuleInputs[]): RuleInputs {
  return all.reduce<RuleInputs>(
    (m, d) => ({
      node: {
        labels: m.node?.labels ?? d.node?.labels,
        annotations: union(m.node?.annotations, d.node?.annotations),
        conditions: union(m.node?.conditions, d.node?.conditions),
        unschedulable: either(m.node?.unschedulable, d.node?.unschedulable),
      },
      pool: {
        nodeSelector: either(m.pool?.nodeSelector, d.pool?.nodeSelector),
        configuration: either(m.pool?.configuration, d.pool?.configuration),
        paused: either(m.pool?.paused, d.pool?.paused),
        labels: union(m.pool?.labels, d.pool?.labels),
        annotations: union(m.pool?.annotations, d.pool?.annotations),
      },
      machineConfig: { annotations: union(m.machineConfig?.annotations, d.machineConfig?.annotations) },
    }),
    {},
  );
}

/** What the per-node rules (evaluateNode, whichPool) read: the inputs of a node's row. */
export const NODE_RULE_INPUTS: RuleInputs = mergeInputs(NODE_AVAILABILITY_INPUTS, NODE_STATUS_INPUTS, POOL_ASSIGNMENT_INPUTS);

export type McoField = keyof MachineConfigDaemonState;

/** What of a NodeState (the state plane's form) carries the node inputs: see nodeFromState. */
export interface NodeStateFields {
  readonly labels: boolean;
  readonly conditions: ReadonlySet<string>;
  readonly mco: readonly McoField[];
  readonly unschedulable: boolean;
}

/** The NodeState fields behind `inputs.node`. Throws for an annotation no NodeState field carries. */
export function nodeStateFields(inputs: RuleInputs): NodeStateFields {
  const mco = new Set<McoField>();
  for (const a of inputs.node?.annotations ?? []) {
    const sources = ANNOTATION_SOURCES[a];
    if (!sources) throw new Error(`rule input annotation ${a} is carried by no NodeState field (ANNOTATION_SOURCES)`);
    for (const f of sources) mco.add(f);
  }
  return {
    labels: inputs.node?.labels === "all",
    conditions: new Set(inputs.node?.conditions ?? []),
    mco: [...mco],
    unschedulable: inputs.node?.unschedulable === true,
  };
}

const has = (m: Record<string, string> | undefined, k: string): boolean => m !== undefined && Object.prototype.hasOwnProperty.call(m, k);

/**
 * A key of what `inputs.pool` reads of a pool, the selector left out (a selector change is a
 * reassignment, told apart by the caller): equal keys give the pool's nodes equal rows.
 */
export function poolInputsKey(inputs: RuleInputs): (pool: MachineConfigPool) => string {
  const p = inputs.pool ?? {};
  const labels = p.labels ?? [];
  const annotations = p.annotations ?? [];
  return (pool) => {
    const key: unknown[] = [];
    if (p.configuration) key.push(pool.spec?.configuration?.name ?? "");
    if (p.paused) key.push(pool.spec?.paused === true);
    const l = pool.metadata.labels ?? undefined;
    for (const k of labels) key.push(has(l, k) ? l![k] : null);
    const a = pool.metadata.annotations ?? undefined;
    for (const k of annotations) key.push(has(a, k) ? a![k] : null);
    return JSON.stringify(key);
  };
}
