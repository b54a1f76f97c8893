// Applies rendered manifests to an API server the way `kubectl apply` does for a first install:
// CRDs first, then namespaces, then everything else; create, and on AlreadyExists replace with the
// stored resourceVersion. Every request goes over HTTP through client-node's KubernetesObjectApi.
import { KubernetesObjectApi, type KubeConfig, type KubernetesObject } from "@kubernetes/client-node";
import { isNotFound, statusCode } from "@lockstep/kube";
import { resourceType, type KubeSim, type ResourceType } from "@lockstep/kube-sim";
import type { Manifest } from "./chart.js";

/**
 * Kinds of other projects' CRDs the chart emits with ci/max-values.yaml (a cluster with the
 * Prometheus operator and cert-manager has them). They are registered as schemaless types so the
 * apply path is real (discovery, routing, names, namespaces, create/replace); their content is
 * checked by validate.ts instead. Built-in kinds are kube-sim's own.
 */
const MISSING: Array<Pick<ResourceType, "group" | "plural" | "singular" | "kind" | "namespaced">> = [
  { group: "monitoring.coreos.com", plural: "servicemonitors", singular: "servicemonitor", kind: "ServiceMonitor", namespaced: true },
  { group: "cert-manager.io", plural: "certificates", singular: "certificate", kind: "Certificate", namespaced: true },
];

export function registerMissingKinds(sim: KubeSim): string[] {
  const added: string[] = [];
  for (const t of MISSING) {
    if (sim.store.registry.get(t.group, t.plural)) continue;
    // Schemaless, kube-sim's defaults otherwise.
    const type = resourceType(t);
    sim.store.registry.add(type);
    sim.store.state(type);
    added.push(t.group ? `${t.plural}.${t.group}` : t.plural);
  }
  return added;
}

const order = (m: Manifest) => (m.kind === "CustomResourceDefinition" ? 0 : m.kind === "Namespace" ? 1 : 2);

/** Strips the renderer's bookkeeping before sending. */
function body(m: Manifest): KubernetesObject {
  const { source: _source, ...rest } = m;
  return rest as KubernetesObject;
}

export interface ApplyResult {
  created: number;
  replaced: number;
}

export async function applyManifests(kc: KubeConfig, manifests: Manifest[]): Promise<ApplyResult> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  const result: ApplyResult = { created: 0, replaced: 0 };
  for (const m of [...manifests].sort((a, b) => order(a) - order(b))) {
    const obj = body(m);
    try {
      await api.create(obj);
      result.created++;
    } catch (err) {
      if (statusCode(err) !== 409) throw new Error(`apply ${m.kind}/${m.metadata.name} (${m.source}) failed: ${describe(err)}`, { cause: err });
      const current = await api.read({ apiVersion: m.apiVersion, kind: m.kind, metadata: { name: m.metadata.name, namespace: m.metadata.namespace } });
      await api.replace({ ...obj, metadata: { ...obj.metadata, resourceVersion: current.metadata?.resourceVersion } });
      result.replaced++;
    }
  }
  return result;
}

/** Reads an applied object back (undefined when absent). */
export async function readBack(kc: KubeConfig, m: Pick<Manifest, "apiVersion" | "kind" | "metadata">): Promise<KubernetesObject | undefined> {
  const api = KubernetesObjectApi.makeApiClient(kc);
  try {
    return await api.read({ apiVersion: m.apiVersion, kind: m.kind, metadata: { name: m.metadata.name, namespace: m.metadata.namespace } });
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

function describe(err: unknown): string {
  const b = (err as { body?: unknown }).body;
  return typeof b === "string" ? b : (err as Error).message;
}
