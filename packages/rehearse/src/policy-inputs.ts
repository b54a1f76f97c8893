// API objects → what the lease policy reads (@lockstep/lease-policy's ObservedState). Field mapping
// only, as the watcher's normaliser does for the state plane; every rule stays in lease-policy.
import type { KubeObject } from "@lockstep/cluster-sim";
import type { DisruptionBudgetState, LabelSelector, PoolState } from "@lockstep/contracts";
import type { LeaseNode } from "@lockstep/lease-policy";

const str = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" ? String(v) : "");
const strMap = (v: unknown): Record<string, string> => {
  const out: Record<string, string> = {};
  if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) if (typeof x === "string") out[k] = x;
  return out;
};

function selector(v: unknown): LabelSelector | undefined {
  if (!v || typeof v !== "object") return undefined;
  const s = v as { matchLabels?: unknown; matchExpressions?: unknown };
  const exprs = Array.isArray(s.matchExpressions) ? (s.matchExpressions as Array<Record<string, unknown>>) : [];
  return { matchLabels: strMap(s.matchLabels), matchExpressions: exprs.map((e) => ({ key: str(e.key), operator: str(e.operator), values: Array.isArray(e.values) ? e.values.map(str) : [] })) };
}

export function leaseNodeOfObject(n: KubeObject): LeaseNode {
  const conds = Array.isArray(n.status?.conditions) ? (n.status.conditions as Array<{ type?: string; status?: string }>) : [];
  const ready = conds.find((c) => c.type === "Ready");
  return {
    name: n.metadata.name,
    uid: str(n.metadata.uid) || `uid-${n.metadata.name}`,
    labels: strMap(n.metadata.labels),
    unschedulable: n.spec?.unschedulable === true,
    deletionTime: undefined,
    conditions: ready ? [{ type: "Ready", status: str(ready.status) }] : [],
  };
}

export function poolStateOfObject(p: KubeObject): PoolState {
  const sel = selector(p.spec?.nodeSelector);
  return {
    name: p.metadata.name,
    uid: str(p.metadata.uid),
    generation: str(p.metadata.generation ?? "1"),
    labels: strMap(p.metadata.labels),
    nodeSelector: sel,
    nodeSelectorPresent: sel !== undefined,
    paused: p.spec?.paused === true,
    maxUnavailable: str(p.spec?.maxUnavailable),
    targetConfig: str(p.spec?.configuration?.name),
    currentConfig: str(p.status?.configuration?.name),
    counters: undefined,
    conditions: [],
    observedGeneration: str(p.status?.observedGeneration ?? ""),
    newestImageEquivalentConfig: "",
    layered: false,
  };
}

export function budgetStateOfObject(b: KubeObject): DisruptionBudgetState {
  const spec = (b.spec ?? {}) as Record<string, unknown>;
  const schedules = Array.isArray(spec.schedules) ? (spec.schedules as Array<Record<string, unknown>>) : [];
  return {
    name: b.metadata.name,
    uid: str(b.metadata.uid),
    generation: str(b.metadata.generation ?? "1"),
    pool: str(spec.pool),
    nodeSelector: selector(spec.nodeSelector),
    maxDisrupted: str(spec.maxDisrupted),
    schedules: schedules.map((s) => ({ cron: str(s.cron), duration: str(s.duration), timeZone: str(s.timeZone), maxDisrupted: str(s.maxDisrupted) })),
    operations: Array.isArray(spec.operations) ? spec.operations.map(str) : [],
  };
}
