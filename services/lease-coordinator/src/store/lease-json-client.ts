// The API calls the coordinator makes, as plain JSON over kube-http: Lease bodies go out as the
// policy encoded them (already wire-ready, MicroTime with six digits) and come back unparsed, with
// no model (de)serialisation and without loading client-node. Method names and parameters are
// client-node's CoordinationV1Api / CoreV1Api ones and the factory takes the API's name as
// makeApiClient takes its class, so chart-test's RBAC scanner reads the calls on its receivers as
// it reads typed ones (keep both when adding a call).
import type { KubeConfigLike } from "@lockstep/kube";
import { kubeHttp, type HttpResult } from "./kube-http.js";

/** Names the APIs for makeJsonApiClient, as client-node's classes of the same names would. */
export const CoordinationV1Api = "CoordinationV1Api" as const;
export const CoreV1Api = "CoreV1Api" as const;
export const AuthenticationV1Api = "AuthenticationV1Api" as const;
export const AuthorizationV1Api = "AuthorizationV1Api" as const;
export const CustomObjectsApi = "CustomObjectsApi" as const;

type ApiName = typeof CoordinationV1Api | typeof CoreV1Api | typeof AuthenticationV1Api | typeof AuthorizationV1Api | typeof CustomObjectsApi;

const GROUP_PATH = "/apis/coordination.k8s.io/v1";

export interface LeaseJsonClient {
  createNamespacedLease(p: { namespace: string; body: object }): Promise<HttpResult>;
  replaceNamespacedLease(p: { name: string; namespace: string; body: object }): Promise<HttpResult>;
  readNamespacedLease(p: { name: string; namespace: string }): Promise<HttpResult>;
}

export interface NamespaceJsonClient {
  readNamespace(p: { name: string }): Promise<HttpResult>;
  createNamespace(p: { body: { metadata: { name: string } } }): Promise<HttpResult>;
  readNamespacedPod(p: { name: string; namespace: string }): Promise<HttpResult>;
}

export interface CustomObjectsJsonClient {
  getNamespacedCustomObject(p: { group: string; version: string; namespace: string; plural: string; name: string }): Promise<HttpResult>;
}

export interface TokenReviewJsonClient {
  createTokenReview(p: { body: object }): Promise<HttpResult>;
}

export interface AccessReviewJsonClient {
  createSubjectAccessReview(p: { body: object }): Promise<HttpResult>;
}

export function makeJsonApiClient(kc: KubeConfigLike, api: typeof CoordinationV1Api, maxSockets?: number): LeaseJsonClient;
export function makeJsonApiClient(kc: KubeConfigLike, api: typeof CoreV1Api, maxSockets?: number): NamespaceJsonClient;
export function makeJsonApiClient(kc: KubeConfigLike, api: typeof AuthenticationV1Api, maxSockets?: number): TokenReviewJsonClient;
export function makeJsonApiClient(kc: KubeConfigLike, api: typeof AuthorizationV1Api, maxSockets?: number): AccessReviewJsonClient;
export function makeJsonApiClient(kc: KubeConfigLike, api: typeof CustomObjectsApi, maxSockets?: number): CustomObjectsJsonClient;
export function makeJsonApiClient(
  kc: KubeConfigLike,
  api: ApiName,
  maxSockets?: number,
): LeaseJsonClient | NamespaceJsonClient | TokenReviewJsonClient | AccessReviewJsonClient | CustomObjectsJsonClient {
  const http = kubeHttp(kc, maxSockets);
  const enc = encodeURIComponent;
  switch (api) {
    case CoordinationV1Api: {
      const leases = (namespace: string) => `${GROUP_PATH}/namespaces/${enc(namespace)}/leases`;
      return {
        createNamespacedLease: ({ namespace, body }) => http.request("POST", leases(namespace), body),
        replaceNamespacedLease: ({ name, namespace, body }) => http.request("PUT", `${leases(namespace)}/${enc(name)}`, body),
        readNamespacedLease: ({ name, namespace }) => http.request("GET", `${leases(namespace)}/${enc(name)}`),
      };
    }
    case CoreV1Api:
      return {
        readNamespace: ({ name }) => http.request("GET", `/api/v1/namespaces/${enc(name)}`),
        createNamespace: ({ body }) => http.request("POST", "/api/v1/namespaces", body),
        readNamespacedPod: ({ name, namespace }) => http.request("GET", `/api/v1/namespaces/${enc(namespace)}/pods/${enc(name)}`),
      };
    case CustomObjectsApi:
      return {
        getNamespacedCustomObject: ({ group, version, namespace, plural, name }) =>
          http.request("GET", `/apis/${enc(group)}/${enc(version)}/namespaces/${enc(namespace)}/${enc(plural)}/${enc(name)}`),
      };
    case AuthenticationV1Api:
      return { createTokenReview: ({ body }) => http.request("POST", "/apis/authentication.k8s.io/v1/tokenreviews", body) };
    case AuthorizationV1Api:
      return { createSubjectAccessReview: ({ body }) => http.request("POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", body) };
    default:
      throw new Error(`makeJsonApiClient: ${String(api)} is not supported`);
  }
}
