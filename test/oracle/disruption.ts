// The oracle runs no kube-controller-manager, so nothing keeps PodDisruptionBudget status, and
// kube-apiserver refuses (429) every eviction of a pod a PDB covers until status.observedGeneration
// catches up. This stands in for the controller-manager's disruption controller, only as far as
// evictions need it: every PDB's status recomputed from the pods it selects, written with the PDB's
// resourceVersion as precondition (an eviction in between wins; the next round sees it).
// Upstream rules kept: healthy = Running and Ready, not being deleted, not in status.disruptedPods
// (the eviction records a pod there; entries drop once the pod is gone or deleting, or after 2 min).
import { KubeHttp, statusCode, type KubeConfigLike } from "@lockstep/kube";

const DELETION_TIMEOUT_MS = 120_000;

interface Obj {
  metadata: { name: string; namespace?: string; generation?: number; resourceVersion?: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: any;
  status?: any;
}

function matches(selector: { matchLabels?: Record<string, string> } | undefined, labels: Record<string, string> = {}): boolean {
  // Only matchLabels: cluster-sim's PDBs use nothing else (an empty selector matches nothing in policy/v1beta1).
  const want = Object.entries(selector?.matchLabels ?? {});
  return want.length > 0 && want.every(([k, v]) => labels[k] === v);
}

function ready(p: Obj): boolean {
  return p.status?.phase === "Running" && (p.status?.conditions ?? []).some((c: any) => c.type === "Ready" && c.status === "True");
}

function scaled(v: number | string | undefined, expected: number, roundUp: boolean): number | undefined {
  if (v === undefined) return undefined;
  if (typeof v === "number") return v;
  const pct = Number(v.replace(/%$/, ""));
  return roundUp ? Math.ceil((pct * expected) / 100) : Math.floor((pct * expected) / 100);
}

/** Pure: the status the disruption controller would write for `pdb` given the pods of its namespace. */
export function pdbStatus(pdb: Obj, pods: Obj[], nowMs: number): Record<string, unknown> {
  const selected = pods.filter((p) => matches(pdb.spec?.selector, p.metadata.labels));
  const byName = new Map(selected.map((p) => [p.metadata.name, p]));
  const disruptedPods: Record<string, string> = {};
  for (const [name, at] of Object.entries<string>(pdb.status?.disruptedPods ?? {})) {
    const p = byName.get(name);
    if (p && !p.metadata.deletionTimestamp && nowMs - Date.parse(at) < DELETION_TIMEOUT_MS) disruptedPods[name] = at;
  }
  const expectedPods = selected.length;
  const currentHealthy = selected.filter((p) => ready(p) && !p.metadata.deletionTimestamp && !(p.metadata.name in disruptedPods)).length;
  const maxUnavailable = scaled(pdb.spec?.maxUnavailable, expectedPods, true);
  const desiredHealthy = maxUnavailable !== undefined ? Math.max(0, expectedPods - maxUnavailable) : (scaled(pdb.spec?.minAvailable, expectedPods, true) ?? 0);
  return {
    observedGeneration: pdb.metadata.generation ?? 0,
    disruptedPods,
    disruptionsAllowed: Math.max(0, currentHealthy - desiredHealthy),
    currentHealthy,
    desiredHealthy,
    expectedPods,
  };
}

/** Keeps every PDB's status (in `apiVersion`, e.g. policy/v1beta1) until stopped; returns stop(). */
export function startDisruptionController(kc: KubeConfigLike, apiVersion: string, intervalMs = 500): { stop(): Promise<void>; rounds(): number; writes(): number; lastError(): string | undefined } {
  const http = new KubeHttp(kc, 4);
  let stopped = false;
  let rounds = 0;
  let writes = 0;
  let lastError: string | undefined;
  const round = async () => {
    const pdbs = (await http.request<{ items: Obj[] }>("GET", `/apis/${apiVersion}/poddisruptionbudgets`)).items;
    if (pdbs.length === 0) return;
    const pods = (await http.request<{ items: Obj[] }>("GET", "/api/v1/pods")).items;
    const now = Date.now();
    await Promise.all(
      pdbs.map(async (pdb) => {
        const ns = pdb.metadata.namespace!;
        const status = pdbStatus(pdb, pods.filter((p) => p.metadata.namespace === ns), now);
        if (JSON.stringify(status) === JSON.stringify({ ...status, ...pdb.status })) return;
        const path = `/apis/${apiVersion}/namespaces/${ns}/poddisruptionbudgets/${pdb.metadata.name}/status`;
        // Whole status (disruptedPods replaced, not merged) under the read resourceVersion.
        await http
          .request("PUT", path, { body: { ...pdb, apiVersion, kind: "PodDisruptionBudget", status } })
          .then(() => writes++)
          .catch((err) => {
            if (statusCode(err) !== 409 && statusCode(err) !== 404) throw err;
          });
      }),
    );
  };
  const loop = (async () => {
    while (!stopped) {
      await round().catch((err) => (lastError = (err as Error).message));
      rounds++;
      await new Promise((r) => setTimeout(r, intervalMs));
    }
  })();
  return {
    rounds: () => rounds,
    writes: () => writes,
    lastError: () => lastError,
    stop: async () => {
      stopped = true;
      await loop;
    },
  };
}
