// Desired vs observed: the status to write, and whether writing it changes anything. Pure.
import type { ApiCondition, ClusterVersionProgressStatus, InsightStatus } from "@lockstep/contracts";

/** An estimate that moved less than this is not worth a write (it is recomputed from a moving now). */
export const ESTIMATE_TOLERANCE_MS = 60_000;

/**
 * The status to write: desired, with each condition's lastTransitionTime settled like
 * meta.SetStatusCondition (an explicit time wins; otherwise the observed time while the status
 * holds, else `now`), and an estimate that barely moved left as observed.
 */
export function settleStatus(desired: InsightStatus, observed: InsightStatus | undefined, now: string): InsightStatus {
  const out: InsightStatus & { conditions?: ApiCondition[] } = { ...desired };
  const conditions = (desired as { conditions?: Array<Partial<ApiCondition>> }).conditions;
  if (conditions) {
    const before = new Map(((observed as { conditions?: ApiCondition[] } | undefined)?.conditions ?? []).map((c) => [c.type, c]));
    out.conditions = conditions.map((c) => {
      if (c.lastTransitionTime) return c as ApiCondition;
      const prev = before.get(c.type ?? "");
      return { ...c, lastTransitionTime: prev && prev.status === c.status ? prev.lastTransitionTime : now } as ApiCondition;
    });
  }
  const est = (desired as ClusterVersionProgressStatus).estimatedCompletedAt;
  const seen = (observed as ClusterVersionProgressStatus | undefined)?.estimatedCompletedAt;
  if (est !== undefined && seen !== undefined && Math.abs(Date.parse(est) - Date.parse(seen)) < ESTIMATE_TOLERANCE_MS) {
    (out as ClusterVersionProgressStatus).estimatedCompletedAt = seen;
  }
  return out;
}

/** JSON text with object keys sorted: equal for equal content whatever the key order. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

export const sameStatus = (a: InsightStatus | undefined, b: InsightStatus | undefined): boolean => canonical(a) === canonical(b);

/**
 * A JSON merge patch body that turns `observed` into `next`: `next`, plus an explicit null for every
 * field (at any depth of nested objects) that `observed` has and `next` lacks; arrays are replaced.
 */
export function statusPatch(next: InsightStatus, observed: InsightStatus | undefined): Record<string, unknown> {
  return mergePatch(next as unknown as Record<string, unknown>, observed as unknown as Record<string, unknown> | undefined);
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

function mergePatch(next: Record<string, unknown>, observed: Record<string, unknown> | undefined): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(next)) {
    if (v === undefined) continue;
    const before = observed?.[k];
    patch[k] = isObject(v) && isObject(before) ? mergePatch(v, before) : v;
  }
  for (const k of Object.keys(observed ?? {})) if (next[k] === undefined) patch[k] = null;
  return patch;
}
