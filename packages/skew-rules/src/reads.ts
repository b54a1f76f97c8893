// How a skew rule says what it reads of the kinds the skew-enforcer keeps only part of (nodes,
// MachineConfigs): one declaration `as const` beside the rule, and the rule's input type picked from
// it (NodeOf, MachineConfigOf), so a rule that reads an undeclared field does not compile. The
// StateCache projections are built from the same declarations (rule-inputs.ts). A leaf: rules import
// it, it imports no rule (the declarations once imported a type back from the file merging them).
import type { MachineConfigDaemonState, MachineConfigState } from "@lockstep/contracts";

/** What one rule reads of a node and of a MachineConfig (the name of each is always kept). */
export interface SkewRuleInputs {
  readonly node?: {
    /** Every label: pools select nodes by arbitrary selectors. */
    readonly labels?: "all";
    readonly mco?: readonly (keyof MachineConfigDaemonState)[];
  };
  readonly machineConfig?: readonly (keyof MachineConfigState)[];
}

type Mco = MachineConfigDaemonState;
/** The MCO fields a declaration lists. */
export type McoFieldOf<D extends SkewRuleInputs> = D extends { node: { mco: readonly (infer F extends keyof Mco)[] } } ? F : never;
/** The MachineConfig fields a declaration lists. */
export type MachineConfigFieldOf<D extends SkewRuleInputs> = D extends { machineConfig: readonly (infer F extends keyof MachineConfigState)[] } ? F : never;

/** A node as a rule with declaration D sees it: its name and the declared fields, nothing else. */
export type NodeOf<D extends SkewRuleInputs> = { readonly name: string } & ([D] extends [{ node: { labels: "all" } }] ? { readonly labels: Readonly<Record<string, string>> } : unknown) &
  ([McoFieldOf<D>] extends [never] ? unknown : { readonly mco?: Readonly<Pick<Mco, McoFieldOf<D>>> | undefined });

/** A MachineConfig as a rule with declaration D sees it. */
export type MachineConfigOf<D extends SkewRuleInputs> = Readonly<Pick<MachineConfigState, "name" | MachineConfigFieldOf<D>>>;
