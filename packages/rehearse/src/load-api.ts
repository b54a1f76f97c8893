// `--kubeconfig`: the snapshot read from a live API server with GETs only (lists; nothing is ever
// written). Pods are read only in namespaces that have a PodDisruptionBudget (the only pods that can
// hold a drain back), Leases only in the namespaces the lease policy reads.
import { collectionPath, KubeHttp, Resources, statusCode, type KubeConfigLike, type ResourceType } from "@lockstep/kube";
import type { KubeObject } from "@lockstep/cluster-sim";
import { DEFAULT_POLICY, type PolicyConfig } from "@lockstep/lease-policy";
import { snapshotOf, type RehearsalSnapshot } from "./snapshot.js";

async function list(http: KubeHttp, r: ResourceType, namespace?: string): Promise<KubeObject[]> {
  try {
    const res = await http.request<{ items?: KubeObject[] }>("GET", collectionPath(r, namespace));
    return (res.items ?? []).map((o) => ({ ...o, apiVersion: r.apiVersion, kind: r.kind }));
  } catch (err) {
    // A kind the server does not serve (an optional CRD, a namespace that does not exist): none.
    if (statusCode(err) === 404) return [];
    throw err;
  }
}

export async function loadSnapshotApi(kc: KubeConfigLike, policy: PolicyConfig = DEFAULT_POLICY as PolicyConfig): Promise<RehearsalSnapshot> {
  const http = new KubeHttp(kc, 8);
  const [cv, co, mc, mcp, nodes, pdbs, budgets, ndps, infra] = await Promise.all([
    list(http, Resources.clusterVersion),
    list(http, Resources.clusterOperator),
    list(http, Resources.machineConfig),
    list(http, Resources.machineConfigPool),
    list(http, Resources.node),
    list(http, Resources.podDisruptionBudget),
    list(http, Resources.disruptionBudget),
    list(http, Resources.nodeDisruptionPolicy),
    list(http, Resources.infrastructure),
  ]);
  const podNamespaces = [...new Set(pdbs.map((p) => p.metadata.namespace ?? ""))].sort();
  const leaseNamespaces = [policy.namespace, ...policy.foreignSources.map((s) => s.namespace)];
  const [pods, leases] = await Promise.all([
    Promise.all(podNamespaces.map((ns) => list(http, Resources.pod, ns))).then((l) => l.flat()),
    Promise.all(leaseNamespaces.map((ns) => list(http, Resources.lease, ns))).then((l) => l.flat()),
  ]);
  return snapshotOf([...cv, ...co, ...mc, ...mcp, ...nodes, ...pdbs, ...budgets, ...ndps, ...infra, ...pods, ...leases]);
}
