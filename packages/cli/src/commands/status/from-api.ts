// `lockstep status --from-api`: the `oc adm upgrade status` view drawn from the Update Status API
// objects (update.openshift.io/v1alpha1) alone, read with the kubeconfig's identity.
import { type Details, render, wallClockNow } from "@lockstep/insights";
import { KubeHttp, loadKubeAccess } from "@lockstep/kube";
import { evaluationFromApi } from "./from-api-model.js";
import { INSIGHT_KINDS, type InsightObject, type InsightObjects, PLURALS, UPDATE_GROUP, UPDATE_VERSION } from "@lockstep/contracts";

interface ListPage {
  items?: InsightObject[];
  metadata?: { continue?: string };
}

/** Every object of the five kinds (Lockstep's or the cluster's own producer's), page by page. */
export async function readInsightObjects(kubeconfig?: string): Promise<InsightObjects> {
  const http = new KubeHttp(await loadKubeAccess(kubeconfig), 4);
  const out = {} as InsightObjects;
  for (const kind of INSIGHT_KINDS) {
    const items: InsightObject[] = [];
    let token: string | undefined;
    do {
      const page = await http.request<ListPage>("GET", `/apis/${UPDATE_GROUP}/${UPDATE_VERSION}/${PLURALS[kind]}`, { query: { limit: 500, continue: token } });
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
