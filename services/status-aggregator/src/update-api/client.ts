// The Update Status API calls, as JSON over @lockstep/kube's KubeHttp (no client-node at run time).
// Method names and argument objects are client-node's CustomObjectsApi ones, written out per kind
// with literal group and plural, so chart-test's RBAC scanner derives the grants from this file.
import { CustomObjectsApi, KubeHttp, type KubeConfigLike } from "@lockstep/kube";
import type { InsightKind, InsightObject } from "@lockstep/contracts";

type Ref = { group: string; version: string; plural: string };
type Obj = Record<string, any>;

interface ListQuery {
  labelSelector?: string;
  limit?: number;
  _continue?: string;
}

interface InsightCustomObjectsApi {
  listClusterCustomObject(p: Ref & ListQuery): Promise<Obj>;
  getClusterCustomObject(p: Ref & { name: string }): Promise<Obj>;
  createClusterCustomObject(p: Ref & { body: object }): Promise<Obj>;
  patchClusterCustomObjectStatus(p: Ref & { name: string; body: object }): Promise<Obj>;
  deleteClusterCustomObject(p: Ref & { name: string }): Promise<Obj>;
}

const enc = encodeURIComponent;
const path = (r: Ref) => `/apis/${enc(r.group)}/${enc(r.version)}/${enc(r.plural)}`;

/** client-node's CustomObjectsApi subset the writer needs (list and delete are not in @lockstep/kube's). */
export function makeInsightApiClient(kc: KubeConfigLike, _api: typeof CustomObjectsApi): InsightCustomObjectsApi {
  const h = new KubeHttp(kc, 16);
  return {
    listClusterCustomObject: (p) => h.request<Obj>("GET", path(p), { query: { labelSelector: p.labelSelector, limit: p.limit, continue: p._continue } }),
    getClusterCustomObject: (p) => h.request<Obj>("GET", `${path(p)}/${enc(p.name)}`),
    createClusterCustomObject: (p) => h.request<Obj>("POST", path(p), { body: p.body }),
    patchClusterCustomObjectStatus: (p) => h.request<Obj>("PATCH", `${path(p)}/${enc(p.name)}/status`, { body: p.body, contentType: "application/merge-patch+json" }),
    deleteClusterCustomObject: (p) => h.request<Obj>("DELETE", `${path(p)}/${enc(p.name)}`),
  };
}

const NODES = { group: "update.openshift.io", version: "v1alpha1", plural: "nodeprogressinsights" };
const POOLS = { group: "update.openshift.io", version: "v1alpha1", plural: "machineconfigpoolprogressinsights" };
const VERSIONS = { group: "update.openshift.io", version: "v1alpha1", plural: "clusterversionprogressinsights" };
const OPERATORS = { group: "update.openshift.io", version: "v1alpha1", plural: "clusteroperatorprogressinsights" };
const HEALTH = { group: "update.openshift.io", version: "v1alpha1", plural: "healthinsights" };
const CRDS = { group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions" };

export interface KindCalls {
  list(q: ListQuery): Promise<Obj>;
  create(body: object): Promise<Obj>;
  patchStatus(name: string, body: object): Promise<Obj>;
  delete(name: string): Promise<Obj>;
}

export interface InsightApi {
  kinds: Record<InsightKind, KindCalls>;
  /** A CustomResourceDefinition by name (to tell Lockstep's CRDs from upstream's). */
  getCrd(name: string): Promise<Obj>;
}

export function insightApi(kc: KubeConfigLike): InsightApi {
  const api = makeInsightApiClient(kc, CustomObjectsApi);
  return {
    kinds: {
      NodeProgressInsight: {
        list: (q) => api.listClusterCustomObject({ ...NODES, ...q }),
        create: (body) => api.createClusterCustomObject({ ...NODES, body }),
        patchStatus: (name, body) => api.patchClusterCustomObjectStatus({ ...NODES, name, body }),
        delete: (name) => api.deleteClusterCustomObject({ ...NODES, name }),
      },
      MachineConfigPoolProgressInsight: {
        list: (q) => api.listClusterCustomObject({ ...POOLS, ...q }),
        create: (body) => api.createClusterCustomObject({ ...POOLS, body }),
        patchStatus: (name, body) => api.patchClusterCustomObjectStatus({ ...POOLS, name, body }),
        delete: (name) => api.deleteClusterCustomObject({ ...POOLS, name }),
      },
      ClusterVersionProgressInsight: {
        list: (q) => api.listClusterCustomObject({ ...VERSIONS, ...q }),
        create: (body) => api.createClusterCustomObject({ ...VERSIONS, body }),
        patchStatus: (name, body) => api.patchClusterCustomObjectStatus({ ...VERSIONS, name, body }),
        delete: (name) => api.deleteClusterCustomObject({ ...VERSIONS, name }),
      },
      ClusterOperatorProgressInsight: {
        list: (q) => api.listClusterCustomObject({ ...OPERATORS, ...q }),
        create: (body) => api.createClusterCustomObject({ ...OPERATORS, body }),
        patchStatus: (name, body) => api.patchClusterCustomObjectStatus({ ...OPERATORS, name, body }),
        delete: (name) => api.deleteClusterCustomObject({ ...OPERATORS, name }),
      },
      HealthInsight: {
        list: (q) => api.listClusterCustomObject({ ...HEALTH, ...q }),
        create: (body) => api.createClusterCustomObject({ ...HEALTH, body }),
        patchStatus: (name, body) => api.patchClusterCustomObjectStatus({ ...HEALTH, name, body }),
        delete: (name) => api.deleteClusterCustomObject({ ...HEALTH, name }),
      },
    },
    getCrd: (name) => api.getClusterCustomObject({ ...CRDS, name }),
  };
}

/** Every object of one kind matching a label selector, page by page. */
export async function listAll(calls: KindCalls, labelSelector?: string): Promise<InsightObject[]> {
  const out: InsightObject[] = [];
  let token: string | undefined;
  do {
    const page = await calls.list({ labelSelector, limit: 500, _continue: token });
    out.push(...((page.items ?? []) as InsightObject[]));
    token = page.metadata?.continue || undefined;
  } while (token);
  return out;
}
