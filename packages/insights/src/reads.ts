// How a status rule says what it reads: one declaration `as const` beside the rule (RuleInputs), and
// the rule's input types picked from it (NodeOf, PoolOf, MachineConfigOf), so a rule that reads an
// undeclared annotation, label or field does not compile. Whole Kubernetes objects still fit these
// types (they are narrower views, not copies). What keeps or compares part of an object is derived
// from the same declarations (rule-inputs.ts). A leaf: rules import it, it imports no rule (the
// declarations once imported their type back from the file merging them).
import type { Condition, LabelSelector } from "./types.js";

/** What one rule reads, in the Kubernetes shape the rules see (the state form is derived). */
export interface RuleInputs {
  readonly node?: {
    /** Every label: pools select nodes by arbitrary selectors. */
    readonly labels?: "all";
    /** Annotation keys. */
    readonly annotations?: readonly string[];
    /** Condition types (each condition is read whole). */
    readonly conditions?: readonly string[];
    readonly unschedulable?: boolean;
  };
  readonly pool?: {
    /** spec.nodeSelector: decides which nodes the pool has. */
    readonly nodeSelector?: boolean;
    /** spec.configuration.name */
    readonly configuration?: boolean;
    /** spec.paused */
    readonly paused?: boolean;
    /** Label keys: their presence and value. */
    readonly labels?: readonly string[];
    /** Annotation keys: their presence and value. */
    readonly annotations?: readonly string[];
  };
  readonly machineConfig?: {
    readonly annotations?: readonly string[];
  };
}

/** A string map of which only the declared keys can be read. */
export type KeysRead<K extends string> = { readonly [k in K]?: string };
type KeyOf<L> = L extends readonly (infer K extends string)[] ? K : never;
type Part<D, P extends keyof RuleInputs> = D extends { readonly [p in P]: infer X } ? X : unknown;
/** `T` when the declaration part has `flag: true` (or "all"), else nothing readable. */
type If<Decl, Flag extends string, T> = Decl extends { readonly [f in Flag]: true | "all" } ? T : unknown;
/** A map field holding the declared keys of a part, or nothing readable. */
type MapRead<Decl, Field extends string> = Decl extends { readonly [f in Field]: infer L extends readonly string[] } ? { readonly [f in Field]?: KeysRead<KeyOf<L>> | null } : unknown;

/**
 * A node as a rule with declaration D sees it: its name, and only the declared labels ("all"),
 * annotations, unschedulable flag and conditions. Which condition types a rule reads is declared but
 * not typed (a condition list is read by comparing types): the property tests cover it.
 */
export type NodeOf<D extends RuleInputs> = {
  readonly metadata: { readonly name: string } & If<Part<D, "node">, "labels", { readonly labels?: Readonly<Record<string, string>> | null }> & MapRead<Part<D, "node">, "annotations">;
} & If<Part<D, "node">, "unschedulable", { readonly spec?: { readonly unschedulable?: boolean | null } | null }> &
  (Part<D, "node"> extends { readonly conditions: readonly string[] } ? { readonly status?: { readonly conditions?: readonly Condition[] | null } | null } : unknown);

/** A MachineConfigPool as a rule with declaration D sees it. */
export type PoolOf<D extends RuleInputs> = {
  readonly metadata: { readonly name: string } & MapRead<Part<D, "pool">, "labels"> & MapRead<Part<D, "pool">, "annotations">;
  readonly spec?:
    | (If<Part<D, "pool">, "nodeSelector", { readonly nodeSelector?: LabelSelector | null }> &
        If<Part<D, "pool">, "paused", { readonly paused?: boolean | null }> &
        If<Part<D, "pool">, "configuration", { readonly configuration?: { readonly name?: string } | null }>)
    | null;
};

/** A MachineConfig as a rule with declaration D sees it. */
export type MachineConfigOf<D extends RuleInputs> = { readonly metadata: { readonly name: string } & MapRead<Part<D, "machineConfig">, "annotations"> };

/** Whether a read map has the key (present with any value, "" included). */
export const hasKey = <K extends string>(m: KeysRead<K> | null | undefined, k: K): boolean => m !== null && m !== undefined && Object.prototype.hasOwnProperty.call(m, k);
