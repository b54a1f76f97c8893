// Workload pods on worker nodes with PodDisruptionBudgets, so drains meet real eviction rules.
import { SIM_LABEL, SIM_WORKLOAD_LABEL } from "../constants.js";
import { stableHex } from "../rng.js";
import type { ClusterSpec, WorkloadSpec } from "../spec.js";
import type { KubeObject } from "../types.js";

export function workloadPod(w: Pick<WorkloadSpec, "name" | "namespace">, nodeName: string, salt: string | number): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      name: `${w.name}-${stableHex(10, w.name, salt)}`,
      namespace: w.namespace,
      labels: { app: w.name, [SIM_WORKLOAD_LABEL]: w.name, [SIM_LABEL]: "true" },
    },
    spec: {
      nodeName,
      terminationGracePeriodSeconds: 30,
      containers: [{ name: "app", image: "registry.access.redhat.com/ubi9/ubi-minimal:9.4", resources: { requests: { cpu: "10m", memory: "32Mi" } } }],
    },
  };
}

export function pdbFor(w: WorkloadSpec): KubeObject | undefined {
  if (!w.pdb) return undefined;
  return {
    apiVersion: "policy/v1",
    kind: "PodDisruptionBudget",
    metadata: { name: w.name, namespace: w.namespace, labels: { [SIM_LABEL]: "true" } },
    spec: { ...w.pdb, selector: { matchLabels: { [SIM_WORKLOAD_LABEL]: w.name } } },
  };
}

/** PDBs and pods, pods spread round-robin over the pool's nodes. */
export function workloadObjects(spec: ClusterSpec, members: Map<string, KubeObject[]>): KubeObject[] {
  const out: KubeObject[] = [];
  for (const w of spec.workloads) {
    const pdb = pdbFor(w);
    if (pdb) out.push(pdb);
    const nodes = members.get(w.pool) ?? [];
    if (!nodes.length) continue;
    for (let i = 0; i < w.replicas; i++) out.push(workloadPod(w, nodes[i % nodes.length]!.metadata.name, i));
  }
  return out;
}
