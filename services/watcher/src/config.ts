import { env, serviceConfigSchema } from "@lockstep/runtime";

/**
 * Watcher settings (plus the runtime's base variables):
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | KUBECONFIG | kubeconfig file; in-cluster config when unset inside a pod | client-node default |
 * | LEASE_NAMESPACES | namespaces whose Leases are published | lockstep-leases |
 * | BOOTIMAGES_NAMESPACE / BOOTIMAGES_CONFIGMAP | the release's boot image ConfigMap | openshift-machine-config-operator / coreos-bootimages |
 * | WATCHER_ID | identity in meta.synced | hostname |
 */
export const watcherConfigSchema = serviceConfigSchema({
  KUBECONFIG: env.string().optional(),
  LEASE_NAMESPACES: env.list().default(["lockstep-leases"]),
  BOOTIMAGES_NAMESPACE: env.string().default("openshift-machine-config-operator"),
  BOOTIMAGES_CONFIGMAP: env.string().default("coreos-bootimages"),
  WATCHER_ID: env.string().optional(),
});
