// Custom-object calls as plain JSON over KubeHttp, with client-node's CustomObjectsApi method names
// and parameter objects: services call them as they would the typed client (and chart-test's RBAC
// scanner reads them the same way), without loading client-node. Patches are JSON merge patches,
// the only kind Lockstep sends.
import type { KubeConfigLike } from "./access.js";
import { KubeHttp } from "./http.js";

/** Names the API for makeJsonApiClient, as client-node's class of the same name would. */
export const CustomObjectsApi = "CustomObjectsApi" as const;

interface Ref {
  group: string;
  version: string;
  plural: string;
}
type Named = Ref & { name: string };
type Obj = Record<string, any>;

export interface JsonCustomObjectsApi {
  getClusterCustomObject(p: Named): Promise<Obj>;
  getNamespacedCustomObject(p: Named & { namespace: string }): Promise<Obj>;
  createClusterCustomObject(p: Ref & { body: object }): Promise<Obj>;
  createNamespacedCustomObject(p: Ref & { namespace: string; body: object }): Promise<Obj>;
  replaceClusterCustomObject(p: Named & { body: object }): Promise<Obj>;
  replaceClusterCustomObjectStatus(p: Named & { body: object }): Promise<Obj>;
  patchClusterCustomObject(p: Named & { body: object }): Promise<Obj>;
  patchClusterCustomObjectStatus(p: Named & { body: object }): Promise<Obj>;
  patchNamespacedCustomObject(p: Named & { namespace: string; body: object }): Promise<Obj>;
  patchNamespacedCustomObjectStatus(p: Named & { namespace: string; body: object }): Promise<Obj>;
}

const enc = encodeURIComponent;
const cluster = (r: Ref) => `/apis/${enc(r.group)}/${enc(r.version)}/${enc(r.plural)}`;
const namespaced = (r: Ref & { namespace: string }) => `/apis/${enc(r.group)}/${enc(r.version)}/namespaces/${enc(r.namespace)}/${enc(r.plural)}`;

/** A JSON client for `api` (only CustomObjectsApi), sharing one keep-alive agent. */
export function makeJsonApiClient(kc: KubeConfigLike, api: typeof CustomObjectsApi, maxSockets?: number): JsonCustomObjectsApi {
  if (api !== CustomObjectsApi) throw new Error(`makeJsonApiClient: ${String(api)} is not supported`);
  const h = new KubeHttp(kc, maxSockets);
  const get = (path: string) => h.request<Obj>("GET", path);
  const post = (path: string, body: object) => h.request<Obj>("POST", path, { body });
  const put = (path: string, body: object) => h.request<Obj>("PUT", path, { body });
  const patch = (path: string, body: object) => h.request<Obj>("PATCH", path, { body, contentType: "application/merge-patch+json" });
  return {
    getClusterCustomObject: (p) => get(`${cluster(p)}/${enc(p.name)}`),
    getNamespacedCustomObject: (p) => get(`${namespaced(p)}/${enc(p.name)}`),
    createClusterCustomObject: (p) => post(cluster(p), p.body),
    createNamespacedCustomObject: (p) => post(namespaced(p), p.body),
    replaceClusterCustomObject: (p) => put(`${cluster(p)}/${enc(p.name)}`, p.body),
    replaceClusterCustomObjectStatus: (p) => put(`${cluster(p)}/${enc(p.name)}/status`, p.body),
    patchClusterCustomObject: (p) => patch(`${cluster(p)}/${enc(p.name)}`, p.body),
    patchClusterCustomObjectStatus: (p) => patch(`${cluster(p)}/${enc(p.name)}/status`, p.body),
    patchNamespacedCustomObject: (p) => patch(`${namespaced(p)}/${enc(p.name)}`, p.body),
    patchNamespacedCustomObjectStatus: (p) => patch(`${namespaced(p)}/${enc(p.name)}/status`, p.body),
  };
}
