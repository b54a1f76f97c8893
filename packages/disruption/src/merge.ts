// Merging NodeDisruptionPolicy objects into the effective rules (mco-behaviors.md §2.5).
//
// Upstream has one spec merged onto one ordered default list. Lockstep has many objects, so the order is:
//   1. objects labelled lockstep.io/default=true, by ascending name, form the default list;
//   2. admin objects, by ascending name (ordinal), are merged onto it with upstream's algorithm:
//      an entry with exactly the same path (or unit name) replaces the existing entry in place,
//      otherwise it is appended; a non-empty sshkey list replaces the sshkey rule.
// So between admin objects the later name wins, as with MachineConfigs (`99-…` overrides `50-…`).
// Every admin rule that replaces another admin rule is reported as a conflict.
import { isDefaultPolicy, validateNodeDisruptionPolicy, type ValidationResult } from "./validate.js";
import { policyConditions, type PolicyCondition } from "./status.js";
import type {
  EffectiveFileRule,
  EffectiveRules,
  EffectiveSshKeyRule,
  EffectiveUnitRule,
  NodeDisruptionPolicy,
  RuleSource,
} from "./types.js";
import { DEFAULT_POLICY_LABEL, type MergeConflict } from "./types.js";


export interface MergeResult {
  rules: EffectiveRules;
  conflicts: MergeConflict[];
}

const byName = (a: NodeDisruptionPolicy, b: NodeDisruptionPolicy): number =>
  a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0;

function isDefault(p: NodeDisruptionPolicy): boolean {
  return p.metadata.labels?.[DEFAULT_POLICY_LABEL] === "true";
}

function describe(s: RuleSource): string {
  return `NodeDisruptionPolicy ${JSON.stringify(s.policy)} ${s.rule}`;
}

function mergeList<R extends EffectiveFileRule | EffectiveUnitRule>(
  list: R[],
  entry: R,
  keyOf: (r: R) => string,
  kind: "file" | "unit",
  conflicts: MergeConflict[],
): void {
  const key = keyOf(entry);
  const i = list.findIndex((r) => keyOf(r) === key);
  if (i < 0) {
    list.push(entry);
    return;
  }
  const existing = list[i]!;
  // Replacing a default is the purpose of an admin rule; replacing another admin's rule is a conflict.
  if (existing.source.default === entry.source.default) {
    conflicts.push({
      kind,
      key,
      overridden: existing.source,
      by: entry.source,
      message: `${kind} rule ${JSON.stringify(key)} of ${describe(existing.source)} is overridden by ${describe(entry.source)}`,
    });
  }
  list[i] = entry;
}

/**
 * Merges valid policy objects into the effective rules. Invalid objects must be filtered out first
 * (see resolvePolicies). The result does not depend on the order of `policies`.
 */
export function mergePolicies(policies: readonly NodeDisruptionPolicy[]): MergeResult {
  const defaults = policies.filter(isDefault).sort(byName);
  const admins = policies.filter((p) => !isDefault(p)).sort(byName);
  const files: EffectiveFileRule[] = [];
  const units: EffectiveUnitRule[] = [];
  let sshkey: EffectiveSshKeyRule | undefined;
  const conflicts: MergeConflict[] = [];
  for (const p of [...defaults, ...admins]) {
    const policy = p.metadata.name;
    const dflt = isDefault(p);
    (p.spec.files ?? []).forEach((f, i) =>
      mergeList(files, { path: f.path, actions: f.actions, source: { policy, default: dflt, rule: `spec.files[${i}]` } }, (r) => r.path, "file", conflicts),
    );
    (p.spec.units ?? []).forEach((u, i) =>
      mergeList(units, { name: u.name, actions: u.actions, source: { policy, default: dflt, rule: `spec.units[${i}]` } }, (r) => r.name, "unit", conflicts),
    );
    const ssh = p.spec.sshkey;
    if (ssh && ssh.actions.length > 0) {
      const entry: EffectiveSshKeyRule = { actions: ssh.actions, source: { policy, default: dflt, rule: "spec.sshkey" } };
      if (sshkey && sshkey.source.default === dflt) {
        conflicts.push({
          kind: "sshkey",
          key: "sshkey",
          overridden: sshkey.source,
          by: entry.source,
          message: `sshkey rule of ${describe(sshkey.source)} is overridden by ${describe(entry.source)}`,
        });
      }
      sshkey = entry;
    }
  }
  const rules: EffectiveRules = { files, units };
  if (sshkey) rules.sshkey = sshkey;
  return { rules, conflicts };
}

export interface PolicyStatus {
  name: string;
  default: boolean;
  validation: ValidationResult;
  conditions: PolicyCondition[];
}

export interface ResolvedPolicies extends MergeResult {
  /** One entry per input object that has a name, in ascending name order. */
  statuses: PolicyStatus[];
}

/**
 * Validates raw objects, merges the accepted ones, and computes each object's status conditions.
 * Rejected objects take no part in the merge.
 */
export function resolvePolicies(objects: readonly unknown[]): ResolvedPolicies {
  const validated = objects.map((o) => ({ raw: o, validation: validateNodeDisruptionPolicy(o) }));
  const accepted = validated.flatMap((v) => (v.validation.ok ? [v.validation.policy] : []));
  const merged = mergePolicies(accepted);
  const statuses: PolicyStatus[] = [];
  for (const v of validated) {
    const name = objectName(v.raw);
    if (name === undefined) continue;
    statuses.push({
      name,
      default: isDefaultPolicy(v.raw),
      validation: v.validation,
      conditions: policyConditions(name, v.validation, merged.conflicts),
    });
  }
  statuses.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { ...merged, statuses };
}

function objectName(o: unknown): string | undefined {
  if (typeof o !== "object" || o === null) return undefined;
  const meta = (o as Record<string, unknown>)["metadata"];
  if (typeof meta !== "object" || meta === null) return undefined;
  const name = (meta as Record<string, unknown>)["name"];
  return typeof name === "string" && name !== "" ? name : undefined;
}
