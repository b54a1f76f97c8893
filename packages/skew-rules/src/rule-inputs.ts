// What the skew rules read of the kinds the enforcer keeps only part of (nodes, MachineConfigs),
// declared beside each rule (POOL_MEMBERSHIP_INPUTS, COMPLETION_INPUTS, POOL_LAG_INPUTS) and merged
// here into the StateCache projections: a rule that starts reading a field declares it, and the
// projection keeps it, so its changes are not dropped. Every other kind is kept whole.
import type { MachineConfigDaemonState, MachineConfigState, NodeState } from "@lockstep/contracts";
import { COMPLETION_INPUTS } from "./completion.js";
import { POOL_LAG_INPUTS } from "./pool-lag.js";
import { POOL_MEMBERSHIP_INPUTS, type SkewMachineConfig, type SkewNode } from "./pools.js";

/** What one rule reads of a node and of a MachineConfig (the name of each is always kept). */
export interface SkewRuleInputs {
  readonly node?: {
    /** Every label: pools select nodes by arbitrary selectors. */
    readonly labels?: "all";
    readonly mco?: readonly (keyof MachineConfigDaemonState)[];
  };
  readonly machineConfig?: readonly (keyof MachineConfigState)[];
}

type McoOf<T> = T extends { node: { mco: readonly (infer F)[] } } ? F : never;
type MachineConfigOf<T> = T extends { machineConfig: readonly (infer F)[] } ? F : never;
type Declared = typeof POOL_MEMBERSHIP_INPUTS | typeof COMPLETION_INPUTS | typeof POOL_LAG_INPUTS;
/** The MCO fields some rule declares. */
export type SkewMcoField = McoOf<Declared>;
/** The MachineConfig fields some rule declares. */
export type SkewMachineConfigField = MachineConfigOf<Declared>;

const DECLARED: readonly SkewRuleInputs[] = [POOL_MEMBERSHIP_INPUTS, COMPLETION_INPUTS, POOL_LAG_INPUTS];

/** Everything the skew rules read of a node and a MachineConfig. */
export const SKEW_INPUTS = {
  node: {
    labels: DECLARED.some((d) => d.node?.labels === "all"),
    mco: [...new Set(DECLARED.flatMap((d) => d.node?.mco ?? []))] as readonly SkewMcoField[],
  },
  machineConfig: [...new Set(DECLARED.flatMap((d) => d.machineConfig ?? []))] as readonly SkewMachineConfigField[],
} as const;

const NO_LABELS: Readonly<Record<string, string>> = {};
const { labels: KEEP_LABELS, mco: MCO_FIELDS } = SKEW_INPUTS.node;
const MC_FIELDS = SKEW_INPUTS.machineConfig;

/** A node as the skew-enforcer keeps it (its StateCache projection): the declared fields, nothing else. */
export function skewNodeOf(n: NodeState): SkewNode {
  const m = n.mco;
  let mco: Partial<Record<SkewMcoField, unknown>> | undefined;
  if (m) {
    mco = {};
    for (const f of MCO_FIELDS) mco[f] = m[f];
  }
  return { name: n.name, labels: KEEP_LABELS ? n.labels : NO_LABELS, mco: mco as SkewNode["mco"] };
}

/** A MachineConfig as the skew-enforcer keeps it (its StateCache projection). */
export function skewMachineConfigOf(mc: MachineConfigState): SkewMachineConfig {
  const out: Partial<Record<keyof MachineConfigState, unknown>> = { name: mc.name };
  for (const f of MC_FIELDS) out[f] = mc[f];
  return out as SkewMachineConfig;
}
