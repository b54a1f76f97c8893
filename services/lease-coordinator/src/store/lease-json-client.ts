// The three Lease calls the coordinator makes, as plain JSON over kube-http: bodies go out as the
// policy encoded them (already wire-ready, MicroTime with six digits) and come back parsed, with no
// model (de)serialisation. Method names and parameters are client-node's CoordinationV1Api ones and
// the factory takes the API class as makeApiClient does, so chart-test's RBAC scanner reads the
// calls on its receivers as it reads typed ones (keep both when adding a call).
import { CoordinationV1Api, type KubeConfig } from "@kubernetes/client-node";
import { kubeHttp, type HttpResult } from "./kube-http.js";

const GROUP_PATH = "/apis/coordination.k8s.io/v1";

export interface LeaseJsonClient {
  createNamespacedLease(p: { namespace: string; body: object }): Promise<HttpResult>;
  replaceNamespacedLease(p: { name: string; namespace: string; body: object }): Promise<HttpResult>;
  readNamespacedLease(p: { name: string; namespace: string }): Promise<HttpResult>;
}

export function makeJsonApiClient(kc: KubeConfig, api: typeof CoordinationV1Api, maxSockets?: number): LeaseJsonClient {
  if (api !== CoordinationV1Api) throw new Error(`makeJsonApiClient: ${(api as { name?: string }).name} is not supported`);
  const http = kubeHttp(kc, maxSockets);
  const leases = (namespace: string) => `${GROUP_PATH}/namespaces/${encodeURIComponent(namespace)}/leases`;
  return {
    createNamespacedLease: ({ namespace, body }) => http.request("POST", leases(namespace), JSON.stringify(body)),
    replaceNamespacedLease: ({ name, namespace, body }) => http.request("PUT", `${leases(namespace)}/${encodeURIComponent(name)}`, JSON.stringify(body)),
    readNamespacedLease: ({ name, namespace }) => http.request("GET", `${leases(namespace)}/${encodeURIComponent(name)}`),
  };
}
