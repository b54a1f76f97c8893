// The disruption controller's arithmetic (pure) and a small controller that keeps every
// PodDisruptionBudget's status current from the pods it selects (kube-api.md §12).
import { fromSelectorObject, matchesLabels } from "./selectors.js";
import type { Store } from "./store.js";
import type { KubeObject, ResourceType } from "./types.js";

export function isPodReady(pod: KubeObject): boolean {
  const conds = pod.status?.conditions;
  return Array.isArray(conds) && conds.some((c) => c?.type === "Ready" && c.status === "True");
}

export function isPodHealthy(pod: KubeObject): boolean {
  return !pod.metadata?.deletionTimestamp && isPodReady(pod);
}

function scaled(v: unknown, expected: number): number {
  if (typeof v === "number") return v;
  if (typeof v === "string" && v.endsWith("%")) return Math.ceil((Number(v.slice(0, -1)) * expected) / 100);
  if (typeof v === "string" && /^\d+$/.test(v)) return Number(v);
  return 0;
}

export function selectsPod(pdb: KubeObject, pod: KubeObject): boolean {
  if (pdb.metadata?.namespace !== pod.metadata?.namespace) return false;
  const sel = fromSelectorObject(pdb.spec?.selector);
  // A nil selector selects nothing; an empty one selects every pod of the namespace (policy/v1).
  if (!sel) return false;
  return matchesLabels(sel, pod.metadata?.labels);
}

/** The status the disruption controller would write for `pdb` given the pods of its namespace. */
export function computePdbStatus(pdb: KubeObject, pods: KubeObject[], now: string): Record<string, unknown> {
  const selected = pods.filter((p) => selectsPod(pdb, p));
  const expectedPods = selected.length;
  const currentHealthy = selected.filter(isPodHealthy).length;
  let desiredHealthy: number;
  if (pdb.spec?.maxUnavailable !== undefined) desiredHealthy = Math.max(0, expectedPods - scaled(pdb.spec.maxUnavailable, expectedPods));
  else if (pdb.spec?.minAvailable !== undefined) desiredHealthy = scaled(pdb.spec.minAvailable, expectedPods);
  else desiredHealthy = 1;
  const disruptionsAllowed = Math.max(0, currentHealthy - desiredHealthy);
  const generation = pdb.metadata?.generation ?? 1;
  const allowed = disruptionsAllowed > 0;
  const prevCond = (pdb.status?.conditions ?? []).find((c: { type?: string }) => c?.type === "DisruptionAllowed");
  const status = allowed ? "True" : "False";
  return {
    observedGeneration: generation,
    disruptionsAllowed,
    currentHealthy,
    desiredHealthy,
    expectedPods,
    conditions: [
      {
        type: "DisruptionAllowed",
        status,
        reason: allowed ? "SufficientPods" : "InsufficientPods",
        message: "",
        observedGeneration: generation,
        lastTransitionTime: prevCond?.status === status && prevCond.lastTransitionTime ? prevCond.lastTransitionTime : now,
      },
    ],
  };
}

export class DisruptionController {
  private readonly dirty = new Set<string>();
  private scheduled = false;
  private readonly pods: ResourceType;
  private readonly pdbs: ResourceType;
  enabled = true;

  constructor(private readonly store: Store, private readonly now: () => string) {
    this.pods = store.registry.get("", "pods")!;
    this.pdbs = store.registry.get("policy", "poddisruptionbudgets")!;
    store.onCommit((t, ev) => {
      if (!this.enabled) return;
      const ns = ev.entry.obj.metadata?.namespace;
      if (!ns) return;
      if (t === this.pdbs) {
        // Status writes keep the generation; only spec changes and create/delete need a recompute.
        if (ev.type === "MODIFIED" && ev.prev?.obj.metadata?.generation === ev.entry.obj.metadata?.generation) return;
      } else if (t !== this.pods) return;
      if (this.store.state(this.pdbs).byNamespace.get(ns)?.size) this.mark(ns);
    });
  }

  private mark(ns: string): void {
    this.dirty.add(ns);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Recomputes dirty namespaces now (or just `ns`). */
  flush(ns?: string): void {
    if (ns !== undefined) {
      if (this.dirty.delete(ns)) this.recompute(ns);
      return;
    }
    this.scheduled = false;
    const list = [...this.dirty];
    this.dirty.clear();
    for (const n of list) this.recompute(n);
  }

  recompute(ns: string): void {
    const pdbs = this.store.entries(this.pdbs, ns);
    if (pdbs.length === 0) return;
    const pods = this.store.entries(this.pods, ns).map((e) => e.obj);
    for (const e of pdbs) {
      // Written through the normal path: an unchanged status is a no-op (no RV bump, no event).
      const status = computePdbStatus(e.obj, pods, this.now());
      this.store.update(this.pdbs, ns, e.obj.metadata!.name!, { ...e.obj, status }, { subresource: "status" });
    }
  }
}
