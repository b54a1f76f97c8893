import type { Condition } from "./types.js";

/** First condition of the given type, like upstream's findClusterOperatorStatusCondition. */
export function findCondition(conditions: readonly Condition[] | null | undefined, type: string): Condition | undefined {
  return (conditions ?? []).find((c) => c.type === type);
}

/** Last condition of the given type: upstream's per-operator loop keeps the last match. */
export function findLastCondition(conditions: readonly Condition[] | null | undefined, type: string): Condition | undefined {
  let found: Condition | undefined;
  for (const c of conditions ?? []) if (c.type === type) found = c;
  return found;
}
