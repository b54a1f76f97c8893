// The I/O edge of the lease webhook: which node a pod runs on (an eviction names only the pod) and
// which node a Machine is (a BareMetalHost names only its consumer Machine). Read from the API
// server at review time; undefined when the object does not exist (the request will fail on its
// own then), a thrown error when the API server cannot tell (the webhook answers 500 and the
// webhook's failurePolicy decides).
import type { KubeConfigLike } from "@lockstep/kube";
import { CoreV1Api, CustomObjectsApi, makeJsonApiClient, type CustomObjectsJsonClient, type NamespaceJsonClient } from "../store/lease-json-client.js";
import type { HttpResult } from "../store/kube-http.js";

const MACHINES = { group: "machine.openshift.io", version: "v1beta1", plural: "machines" } as const;

export interface NodeLookups {
  podNode(namespace: string, pod: string): Promise<string | undefined>;
  machineNode(namespace: string, machine: string): Promise<string | undefined>;
}

function body(r: HttpResult, what: string): any {
  if ("error" in r) throw new Error(`reading ${what} failed: ${r.error}`);
  if (r.status === 404) return undefined;
  if (r.status < 200 || r.status > 299) throw new Error(`reading ${what} answered HTTP ${r.status}`);
  return JSON.parse(r.text);
}

export class KubeNodeLookups implements NodeLookups {
  private readonly core: NamespaceJsonClient;
  private readonly custom: CustomObjectsJsonClient;

  constructor(kc: KubeConfigLike) {
    this.core = makeJsonApiClient(kc, CoreV1Api, 8);
    this.custom = makeJsonApiClient(kc, CustomObjectsApi, 8);
  }

  async podNode(namespace: string, name: string): Promise<string | undefined> {
    const pod = body(await this.core.readNamespacedPod({ name, namespace }), `pod ${namespace}/${name}`);
    return typeof pod?.spec?.nodeName === "string" && pod.spec.nodeName !== "" ? pod.spec.nodeName : undefined;
  }

  async machineNode(namespace: string, name: string): Promise<string | undefined> {
    const answer = await this.custom.getNamespacedCustomObject({ ...MACHINES, namespace, name });
    // Not named "machine": chart-test's RBAC scanner substitutes a file's const names, even inside the group string.
    const found = body(answer, `machine ${namespace}/${name}`);
    return typeof found?.status?.nodeRef?.name === "string" && found.status.nodeRef.name !== "" ? found.status.nodeRef.name : undefined;
  }
}
