// The skew rules' declarations (reads.ts: POOL_MEMBERSHIP_INPUTS, NODE_TALLY_INPUTS, RELEASE_INPUTS,
// each beside its rule) merged into the StateCache projections of the kinds the enforcer keeps only
// part of (nodes, MachineConfigs). Each rule's input type is picked from its own declaration, so a
// rule that reads another field does not compile; the projections keep the union, so what a rule
// reads is never dropped. Every other kind is kept whole.
import type { MachineConfigState, NodeState } from "@lockstep/contracts";
import { NODE_TALLY_INPUTS, type TallyNode } from "./node-tally.js";
import { type MembershipNode, POOL_MEMBERSHIP_INPUTS, RELEASE_INPUTS } from "./pools.js";
import type { MachineConfigFieldOf, MachineConfigOf, McoFieldOf, SkewRuleInputs } from "./reads.js";

export type { SkewRuleInputs } from "./reads.js";

const DECLARED = [POOL_MEMBERSHIP_INPUTS, NODE_TALLY_INPUTS, RELEASE_INPUTS] as const satisfies readonly SkewRuleInputs[];
type Declared = (typeof DECLARED)[number];

/** The MCO fields some rule declares. */
export type SkewMcoField = McoFieldOf<Declared>;
/** The MachineConfig fields some rule declares. */
export type SkewMachineConfigField = MachineConfigFieldOf<Declared>;

/** A node as the skew-enforcer keeps it: what every rule reading nodes reads. */
export type SkewNode = MembershipNode & TallyNode;
/** A MachineConfig as the skew-enforcer keeps it. */
export type SkewMachineConfig = MachineConfigOf<typeof RELEASE_INPUTS>;

/** Everything the skew rules read of a node and a MachineConfig. */
export const SKEW_INPUTS = {
  node: {
    labels: DECLARED.some((d: SkewRuleInputs) => d.node?.labels === "all"),
    mco: [...new Set(DECLARED.flatMap((d: SkewRuleInputs) => d.node?.mco ?? []))] as readonly SkewMcoField[],
  },
  machineConfig: [...new Set(DECLARED.flatMap((d: SkewRuleInputs) => d.machineConfig ?? []))] as readonly SkewMachineConfigField[],
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
