// ~30 ClusterOperators as a 4.1x release ships them: release annotations, capability names, operand
// versions, and the runlevel groups in which the CVO updates them.
import { kubeVersion } from "../release.js";
import type { KubeObject } from "../types.js";

export interface OperatorDef {
  name: string;
  /** Operand version names besides `operator` ("raw-internal" carries the release version too). */
  operands?: string[];
  /** Operands that carry the Kubernetes version rather than the release version. */
  kubeOperands?: string[];
  capability?: string;
  /** Not shipped on hosted control planes. */
  excludeHosted?: boolean;
  /** CVO runlevel group; operators of one group progress in parallel, groups in order. */
  group: number;
}

export const OPERATORS: OperatorDef[] = [
  { name: "config-operator", operands: ["feature-gates"], group: 0 },
  { name: "etcd", operands: ["raw-internal", "etcd"], group: 1, excludeHosted: true },
  { name: "kube-apiserver", operands: ["raw-internal"], kubeOperands: ["kube-apiserver"], group: 2, excludeHosted: true },
  { name: "kube-controller-manager", operands: ["raw-internal"], kubeOperands: ["kube-controller-manager"], group: 3, excludeHosted: true },
  { name: "kube-scheduler", operands: ["raw-internal"], kubeOperands: ["kube-scheduler"], group: 3, excludeHosted: true },
  { name: "cloud-controller-manager", group: 4 },
  { name: "cloud-credential", group: 4 },
  { name: "cluster-autoscaler", capability: "MachineAPI", group: 4 },
  { name: "control-plane-machine-set", capability: "MachineAPI", group: 4 },
  { name: "machine-api", capability: "MachineAPI", group: 4 },
  { name: "openshift-apiserver", operands: ["openshift-apiserver"], group: 5 },
  { name: "openshift-controller-manager", group: 5 },
  { name: "authentication", operands: ["oauth-apiserver", "oauth-openshift"], group: 5 },
  { name: "kube-storage-version-migrator", group: 5 },
  { name: "service-ca", group: 5 },
  { name: "csi-snapshot-controller", operands: ["csi-snapshot-controller"], capability: "CSISnapshot", group: 6 },
  { name: "image-registry", capability: "ImageRegistry", group: 6 },
  { name: "ingress", group: 6 },
  { name: "machine-approver", group: 6 },
  { name: "node-tuning", capability: "NodeTuning", group: 6 },
  { name: "storage", capability: "Storage", group: 6 },
  { name: "network", group: 7 },
  { name: "dns", operands: ["coredns", "openshift-cli"], group: 7 },
  { name: "machine-config", group: 8 },
  { name: "baremetal", capability: "baremetal", group: 9 },
  { name: "console", capability: "Console", group: 9 },
  { name: "insights", capability: "Insights", group: 9 },
  { name: "marketplace", capability: "marketplace", group: 9 },
  { name: "monitoring", group: 9 },
  { name: "openshift-samples", capability: "openshift-samples", group: 9 },
  { name: "operator-lifecycle-manager", group: 9 },
  { name: "operator-lifecycle-manager-catalog", group: 9 },
  { name: "operator-lifecycle-manager-packageserver", group: 9 },
];

export const MACHINE_CONFIG_OPERATOR = "machine-config";

export function operatorVersions(def: OperatorDef, version: string): Array<{ name: string; version: string }> {
  const out = [{ name: "operator", version }];
  for (const o of def.operands ?? []) out.push({ name: o, version });
  for (const o of def.kubeOperands ?? []) out.push({ name: o, version: kubeVersion(version) });
  return out;
}

export function settledConditions(version: string, now: string): Array<Record<string, string>> {
  return [
    { type: "Degraded", status: "False", reason: "AsExpected", message: "All is well", lastTransitionTime: now },
    { type: "Progressing", status: "False", reason: "AsExpected", message: `Cluster version is ${version}`, lastTransitionTime: now },
    { type: "Available", status: "True", reason: "AsExpected", message: "All is well", lastTransitionTime: now },
    { type: "Upgradeable", status: "True", reason: "AsExpected", message: "All is well", lastTransitionTime: now },
  ];
}

export function clusterOperator(def: OperatorDef, version: string, now: string, cvUid?: string): KubeObject {
  const annotations: Record<string, string> = {
    "include.release.openshift.io/self-managed-high-availability": "true",
    "include.release.openshift.io/single-node-developer": "true",
  };
  if (def.excludeHosted) annotations["exclude.release.openshift.io/internal-openshift-hosted"] = "true";
  else annotations["include.release.openshift.io/ibm-cloud-managed"] = "true";
  if (def.capability) annotations["capability.openshift.io/name"] = def.capability;
  return {
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterOperator",
    metadata: {
      name: def.name,
      annotations,
      ...(cvUid ? { ownerReferences: [{ apiVersion: "config.openshift.io/v1", kind: "ClusterVersion", name: "version", uid: cvUid, controller: true }] } : {}),
    },
    spec: {},
    status: {
      conditions: settledConditions(version, now),
      versions: operatorVersions(def, version),
      relatedObjects: [{ group: "", resource: "namespaces", name: `openshift-${def.name}` }],
      extension: null,
    },
  };
}
