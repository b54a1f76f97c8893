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
 * | HEARTBEAT_INTERVAL | how often `heartbeat.watcher` is written while the watches are current; at most half of STATE_MAX_AGE | 5s |
 */
export const watcherConfigSchema = serviceConfigSchema({
  KUBECONFIG: env.string().optional(),
  LEASE_NAMESPACES: env.list().default(["lockstep-leases"]),
  BOOTIMAGES_NAMESPACE: env.string().default("openshift-machine-config-operator"),
  BOOTIMAGES_CONFIGMAP: env.string().default("coreos-bootimages"),
  WATCHER_ID: env.string().optional(),
  HEARTBEAT_INTERVAL: env.duration().default(5_000),
}).superRefine((c, ctx) => {
  // Consumers call the view stale after STATE_MAX_AGE without a heartbeat: one missed beat must not do it.
  const interval = c.HEARTBEAT_INTERVAL as unknown;
  const maxAge = c.STATE_MAX_AGE as unknown;
  if (typeof interval !== "number") return;
  if (interval < 100) ctx.addIssue({ code: "custom", path: ["HEARTBEAT_INTERVAL"], message: "must be at least 100ms" });
  else if (typeof maxAge === "number" && interval * 2 > maxAge) ctx.addIssue({ code: "custom", path: ["HEARTBEAT_INTERVAL"], message: `must be at most half of STATE_MAX_AGE (${maxAge}ms), so one missed heartbeat does not make the state plane stale` });
});
