// `lockstep status --from-api`: the `oc adm upgrade status` view drawn from the Update Status API
// objects (update.openshift.io/v1alpha1) alone, read with the kubeconfig's identity.
import { type Details, render, wallClockNow } from "@lockstep/insights";
import { loadKubeAccess } from "@lockstep/kube/lite";
import { INSIGHT_KINDS, type InsightObjects, insightApi } from "@lockstep/status-aggregator";
import { evaluationFromApi } from "./from-api-model.js";

/** Every object of the five kinds (Lockstep's or the cluster's own producer's). */
export async function readInsightObjects(kubeconfig?: string): Promise<InsightObjects> {
  const api = insightApi(await loadKubeAccess(kubeconfig));
  const out = {} as InsightObjects;
  for (const kind of INSIGHT_KINDS) {
    const items: InsightObjects[typeof kind] = [];
    let token: string | undefined;
    do {
      const page = await api.kinds[kind].list({ limit: 500, _continue: token });
      items.push(...(page.items ?? []));
      token = page.metadata?.continue || undefined;
    } while (token);
    out[kind] = items;
  }
  return out;
}

export async function runFromApi(o: { kubeconfig?: string; details: Details; now?: bigint }): Promise<string> {
  const objects = await readInsightObjects(o.kubeconfig);
  return render(evaluationFromApi(objects, o.now ?? wallClockNow()), o.details);
}
