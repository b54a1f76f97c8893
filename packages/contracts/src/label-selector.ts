// Kubernetes LabelSelector matching (metav1.LabelSelectorAsSelector semantics), shared by every
// service that selects nodes, pools or MachineSets from state-plane snapshots.

import type { LabelSelector } from "./gen/lockstep/common/v1/common.js";

export type SelectorResult = { ok: true; matches: (labels: Readonly<Record<string, string>>) => boolean } | { ok: false; message: string };

/** Compiles a selector; an empty selector matches everything, an invalid one is reported. */
export function compileSelector(selector: LabelSelector): SelectorResult {
  const reqs: ((labels: Readonly<Record<string, string>>) => boolean)[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    reqs.push((l) => Object.hasOwn(l, key) && l[key] === value);
  }
  for (const e of selector.matchExpressions ?? []) {
    const has = (l: Readonly<Record<string, string>>) => Object.hasOwn(l, e.key);
    switch (e.operator) {
      case "In":
      case "NotIn": {
        if (e.values.length === 0) return { ok: false, message: `label selector: values must be non-empty for ${e.operator} on ${e.key}` };
        const set = new Set(e.values);
        reqs.push(e.operator === "In" ? (l) => has(l) && set.has(l[e.key] as string) : (l) => !has(l) || !set.has(l[e.key] as string));
        break;
      }
      case "Exists":
      case "DoesNotExist":
        if (e.values.length > 0) return { ok: false, message: `label selector: values must be empty for ${e.operator} on ${e.key}` };
        reqs.push(e.operator === "Exists" ? has : (l) => !has(l));
        break;
      default:
        return { ok: false, message: `label selector: ${JSON.stringify(e.operator)} is not a valid operator` };
    }
  }
  return { ok: true, matches: (labels) => reqs.every((r) => r(labels)) };
}

/**
 * Whether `labels` match; an absent or empty selector matches everything, an invalid one matches
 * nothing (the API server would have rejected it, so it may only narrow, never widen a selection).
 */
export function matchesLabelSelector(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (!selector) return true;
  const compiled = compileSelector(selector);
  return compiled.ok && compiled.matches(labels);
}

/** True when the selector has no requirement at all. */
export function labelSelectorIsEmpty(selector: LabelSelector | undefined): boolean {
  return !selector || (Object.keys(selector.matchLabels ?? {}).length === 0 && (selector.matchExpressions ?? []).length === 0);
}
