import type { LabelSelector } from "@lockstep/contracts";

// Matching is shared (contracts): an unknown operator matches nothing, so a malformed selector can
// only narrow what a budget covers, never widen it silently; validateSelector reports it.
export { matchesLabelSelector as matchesSelector } from "@lockstep/contracts";

/** Problems with a selector, as messages; empty when valid. */
export function validateSelector(selector: LabelSelector): string[] {
  const problems: string[] = [];
  for (const req of selector.matchExpressions ?? []) {
    if (!["In", "NotIn", "Exists", "DoesNotExist"].includes(req.operator)) {
      problems.push(`unknown selector operator "${req.operator}" for key "${req.key}"`);
    } else if ((req.operator === "In" || req.operator === "NotIn") && req.values.length === 0) {
      problems.push(`selector operator ${req.operator} for key "${req.key}" needs values`);
    } else if ((req.operator === "Exists" || req.operator === "DoesNotExist") && req.values.length > 0) {
      problems.push(`selector operator ${req.operator} for key "${req.key}" takes no values`);
    }
  }
  return problems;
}

export { labelSelectorIsEmpty as isEmptySelector } from "@lockstep/contracts";
