// The pods/eviction subresource (kube-api.md §12; kubernetes pkg/registry/core/pod/storage/eviction.go).
import { badRequest, failure, KubeError, notFound, tooManyRequests } from "./errors.js";
import { isPlainObject } from "./json.js";
import type { DisruptionController } from "./disruption.js";
import { isPodReady, selectsPod } from "./disruption.js";
import type { DeleteOptions, Store } from "./store.js";

const EVICTION_BLOCKED = "Cannot evict pod as it would violate the pod's disruption budget.";

export interface EvictionResult {
  code: number;
  body: unknown;
}

/** The checks made on an Eviction body before admission; returns the Eviction the webhooks see. */
export function checkEviction(namespace: string, name: string, body: unknown): Record<string, unknown> {
  if (!isPlainObject(body)) throw badRequest("the object provided is not a valid Eviction");
  const em = isPlainObject(body.metadata) ? body.metadata : {};
  if (em.name !== undefined && em.name !== name) throw badRequest("name in URL does not match name in Eviction object");
  if (em.namespace !== undefined && em.namespace !== namespace) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  return { ...body, apiVersion: typeof body.apiVersion === "string" ? body.apiVersion : "policy/v1", kind: "Eviction", metadata: { ...em, name, namespace } };
}

export function evict(store: Store, disruption: DisruptionController | undefined, namespace: string, name: string, body: unknown): EvictionResult {
  const pods = store.registry.get("", "pods")!;
  const pdbType = store.registry.get("policy", "poddisruptionbudgets")!;
  if (!isPlainObject(body)) throw badRequest("the object provided is not a valid Eviction");
  const em = isPlainObject(body.metadata) ? body.metadata : {};
  if (em.name !== undefined && em.name !== name) throw badRequest("name in URL does not match name in Eviction object");
  if (em.namespace !== undefined && em.namespace !== namespace) throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
  const deleteOptions = (isPlainObject(body.deleteOptions) ? body.deleteOptions : {}) as DeleteOptions;
  const podEntry = store.getEntry(pods, namespace, name);
  if (!podEntry) throw notFound(pods, name);
  const pod = podEntry.obj;
  const ok = (): EvictionResult => {
    store.delete(pods, namespace, name, deleteOptions);
    disruption?.flush(namespace);
    return { code: 201, body: { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 } };
  };
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed" || phase === "Pending" || pod.metadata?.deletionTimestamp) return ok();
  disruption?.flush(namespace);
  const pdbs = store.entries(pdbType, namespace).filter((e) => selectsPod(e.obj, pod));
  if (pdbs.length === 0) return ok();
  if (pdbs.length > 1)
    throw new KubeError(failure(500, "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", "InternalError"));
  const pdb = pdbs[0]!.obj;
  const st = pdb.status ?? {};
  const pdbName = pdb.metadata!.name!;
  if ((st.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 1))
    throw tooManyRequests(EVICTION_BLOCKED, [{ reason: "DisruptionBudget", message: `The disruption budget ${pdbName} is still being processed by the server.` }]);
  // An unready pod may go while the budget is otherwise healthy (IfHealthyBudget).
  if (!isPodReady(pod) && (st.currentHealthy ?? 0) >= (st.desiredHealthy ?? 0) && (st.desiredHealthy ?? 0) > 0) return ok();
  const allowed = st.disruptionsAllowed ?? 0;
  if (allowed < 0) throw new KubeError(failure(403, "pdb disruptions allowed is negative", "Forbidden", {}));
  if (allowed === 0)
    throw tooManyRequests(EVICTION_BLOCKED, [
      { reason: "DisruptionBudget", message: `The disruption budget ${pdbName} needs ${st.desiredHealthy ?? 0} healthy pods and has ${st.currentHealthy ?? 0} currently` },
    ]);
  store.update(pdbType, namespace, pdbName, { ...pdb, status: { ...st, disruptionsAllowed: allowed - 1 } }, { subresource: "status" });
  return ok();
}
