// Status conditions of a NodeDisruptionPolicy object: whether it was accepted, and why not.
import type { MergeConflict } from "./types.js";
import { formatProblem, type ValidationResult } from "./validate.js";

export const CONDITION_ACCEPTED = "Accepted";
export const CONDITION_CONFLICTING = "Conflicting";
export const REASON_VALID = "Valid";
export const REASON_INVALID = "InvalidSpec";
export const REASON_NO_CONFLICT = "NoConflict";
export const REASON_OVERRIDDEN = "RuleOverridden";

export interface PolicyCondition {
  type: string;
  status: "True" | "False";
  reason: string;
  message: string;
}

/** The `Accepted` condition for one object's validation result. */
export function acceptedCondition(result: ValidationResult): PolicyCondition {
  if (result.ok) return { type: CONDITION_ACCEPTED, status: "True", reason: REASON_VALID, message: "The policy is valid and in effect." };
  return {
    type: CONDITION_ACCEPTED,
    status: "False",
    reason: REASON_INVALID,
    message: result.problems.map(formatProblem).join("; "),
  };
}

/**
 * The `Conflicting` condition for one accepted object: True when another admin object's rule for the same
 * path, unit or ssh key replaces one of this object's rules (see merge.ts for the order).
 */
export function conflictingCondition(policyName: string, conflicts: readonly MergeConflict[]): PolicyCondition {
  const mine = conflicts.filter((c) => c.overridden.policy === policyName);
  if (mine.length === 0)
    return { type: CONDITION_CONFLICTING, status: "False", reason: REASON_NO_CONFLICT, message: "" };
  return {
    type: CONDITION_CONFLICTING,
    status: "True",
    reason: REASON_OVERRIDDEN,
    message: mine.map((c) => c.message).join("; "),
  };
}

/** Both conditions an object's status carries. */
export function policyConditions(
  policyName: string,
  result: ValidationResult,
  conflicts: readonly MergeConflict[],
): PolicyCondition[] {
  const accepted = acceptedCondition(result);
  return result.ok ? [accepted, conflictingCondition(policyName, conflicts)] : [accepted];
}
