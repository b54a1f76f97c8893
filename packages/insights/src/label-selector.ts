// Kubernetes label selector semantics (metav1.LabelSelectorAsSelector + Matches).
import type { LabelSelector } from "./types.js";

export class InvalidSelectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvalidSelectorError";
  }
}

/** True when the labels satisfy the selector; an absent selector matches nothing, `{}` matches everything. */
export function selectorMatches(selector: LabelSelector | null | undefined, labels: Record<string, string> | null | undefined): boolean {
  if (selector === null || selector === undefined) return false;
  const l = labels ?? {};
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(l, k);
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) {
    if (!has(k) || l[k] !== v) return false;
  }
  for (const req of selector.matchExpressions ?? []) {
    const values = req.values ?? [];
    switch (req.operator) {
      case "In":
        if (!has(req.key) || !values.includes(l[req.key] ?? "")) return false;
        break;
      case "NotIn":
        if (has(req.key) && values.includes(l[req.key] ?? "")) return false;
        break;
      case "Exists":
        if (!has(req.key)) return false;
        break;
      case "DoesNotExist":
        if (has(req.key)) return false;
        break;
      default:
        throw new InvalidSelectorError(`unsupported label selector operator ${JSON.stringify(req.operator)}`);
    }
  }
  return true;
}
