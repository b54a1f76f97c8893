// The Kubernetes resources Lockstep reads or writes, in one place.
export interface ResourceType {
  apiVersion: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  /** Served only by OpenShift or by Lockstep's CRDs (may be absent on plain Kubernetes). */
  optional?: boolean;
  /**
   * Older versions of the same kind, newest first, that a server without `apiVersion` serves instead
   * (chosen through discovery: discovery.ts). Same fields for what Lockstep reads and writes.
   */
  olderVersions?: readonly string[];
}

export const Resources = {
  node: { apiVersion: "v1", kind: "Node", plural: "nodes", namespaced: false },
  configMap: { apiVersion: "v1", kind: "ConfigMap", plural: "configmaps", namespaced: true },
  pod: { apiVersion: "v1", kind: "Pod", plural: "pods", namespaced: true },
  lease: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", plural: "leases", namespaced: true },
  /** Written by the event recorder (event-recorder.ts), never watched. */
  event: { apiVersion: "events.k8s.io/v1", kind: "Event", plural: "events", namespaced: true },
  // policy/v1 from Kubernetes 1.21; older servers (the 1.20 oracle) serve only policy/v1beta1.
  podDisruptionBudget: { apiVersion: "policy/v1", kind: "PodDisruptionBudget", plural: "poddisruptionbudgets", namespaced: true, olderVersions: ["v1beta1"] },
  machineConfigPool: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool", plural: "machineconfigpools", namespaced: false, optional: true },
  machineConfig: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig", plural: "machineconfigs", namespaced: false, optional: true },
  clusterVersion: { apiVersion: "config.openshift.io/v1", kind: "ClusterVersion", plural: "clusterversions", namespaced: false, optional: true },
  clusterOperator: { apiVersion: "config.openshift.io/v1", kind: "ClusterOperator", plural: "clusteroperators", namespaced: false, optional: true },
  infrastructure: { apiVersion: "config.openshift.io/v1", kind: "Infrastructure", plural: "infrastructures", namespaced: false, optional: true },
  machineSet: { apiVersion: "machine.openshift.io/v1beta1", kind: "MachineSet", plural: "machinesets", namespaced: true, optional: true },
  nodeDisruptionPolicy: { apiVersion: "lockstep.io/v1alpha1", kind: "NodeDisruptionPolicy", plural: "nodedisruptionpolicies", namespaced: false, optional: true },
  bootImagePolicy: { apiVersion: "lockstep.io/v1alpha1", kind: "BootImagePolicy", plural: "bootimagepolicies", namespaced: false, optional: true },
  disruptionBudget: { apiVersion: "lockstep.io/v1alpha1", kind: "DisruptionBudget", plural: "disruptionbudgets", namespaced: false, optional: true },
  // Other disruptors' own kinds, read for the lease adapters (groups and versions from their
  // projects' sources; see packages/normalize/src/signals.ts). Often not installed.
  machine: { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", plural: "machines", namespaced: true, optional: true },
  nodeMaintenance: { apiVersion: "nodemaintenance.medik8s.io/v1beta1", kind: "NodeMaintenance", plural: "nodemaintenances", namespaced: false, optional: true },
  selfNodeRemediation: { apiVersion: "self-node-remediation.medik8s.io/v1alpha1", kind: "SelfNodeRemediation", plural: "selfnoderemediations", namespaced: true, optional: true },
  fenceAgentsRemediation: { apiVersion: "fence-agents-remediation.medik8s.io/v1alpha1", kind: "FenceAgentsRemediation", plural: "fenceagentsremediations", namespaced: true, optional: true },
  /** kured's reboot lock is an annotation on its own DaemonSet. */
  daemonSet: { apiVersion: "apps/v1", kind: "DaemonSet", plural: "daemonsets", namespaced: true },
} as const satisfies Record<string, ResourceType>;

export type ResourceName = keyof typeof Resources;

export function groupOf(r: ResourceType): string {
  return r.apiVersion.includes("/") ? r.apiVersion.split("/")[0]! : "";
}

export function versionOf(r: ResourceType): string {
  return r.apiVersion.includes("/") ? r.apiVersion.split("/")[1]! : r.apiVersion;
}

/** Collection path, e.g. `/apis/coordination.k8s.io/v1/namespaces/ns/leases` or `/api/v1/nodes`. */
export function collectionPath(r: ResourceType, namespace?: string): string {
  const base = r.apiVersion.includes("/") ? `/apis/${r.apiVersion}` : `/api/${r.apiVersion}`;
  return namespace && r.namespaced ? `${base}/namespaces/${namespace}/${r.plural}` : `${base}/${r.plural}`;
}
