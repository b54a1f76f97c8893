import { env, serviceConfigSchema } from "@lockstep/runtime";
import { KURED_DEFAULTS, SIGNAL_SOURCES, type SignalSourceName } from "./sync/watched.js";

/**
 * Watcher settings (plus the runtime's base variables):
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | KUBECONFIG | kubeconfig file; in-cluster config when unset inside a pod | client-node default |
 * | LEASE_NAMESPACES | namespaces whose Leases are published | lockstep-leases |
 * | BOOTIMAGES_NAMESPACE / BOOTIMAGES_CONFIGMAP | the release's boot image ConfigMap | openshift-machine-config-operator / coreos-bootimages |
 * | WATCHER_ID | identity in meta.synced | hostname |
 * | HEARTBEAT_INTERVAL | how often `heartbeat.watcher` is written while the watches are current; at most half of STATE_MAX_AGE | 3s |
 * | WATCH_TIMEOUT | server-side timeout of each watch (`timeoutSeconds`, whole seconds); a healthy watch ends (after a bookmark) and is re-opened at least this often | 10s |
 * | WATCH_IDLE_TIMEOUT | a list or watch that brings nothing (no event, bookmark or end) for this long is declared hung: the heartbeat is withheld and the resource relisted; longer than WATCH_TIMEOUT | 15s |
 * | LEADER_ELECTION_LEASE_DURATION / _RENEW_DEADLINE / _RETRY_PERIOD | as every service (runtime's base config), with shorter defaults: a new leader must be writing heartbeats before consumers call the view stale (the last heartbeat + STATE_MAX_AGE); the worst case after a crash is one retry period to observe the last renewal, the lease duration, one more retry period, then the bucket read | 6s / 4s / 1s |
 * | SIGNAL_SOURCES | disruptors whose own objects become node signals for the lease adapters: nodemaintenance, selfnoderemediation, fenceagentsremediation, kured, machine, machineconfig (`none`: none) | all |
 * | KURED_NAMESPACE / KURED_DAEMONSET / KURED_LOCK_ANNOTATION | kured's DaemonSet and its lock annotation (kured's --ds-namespace, --ds-name, --lock-annotation) | kube-system / kured / weave.works/kured-node-lock |
 */
export const watcherConfigSchema = serviceConfigSchema({
  KUBECONFIG: env.string().optional(),
  LEASE_NAMESPACES: env.list().default(["lockstep-leases"]),
  BOOTIMAGES_NAMESPACE: env.string().default("openshift-machine-config-operator"),
  BOOTIMAGES_CONFIGMAP: env.string().default("coreos-bootimages"),
  WATCHER_ID: env.string().optional(),
  HEARTBEAT_INTERVAL: env.duration().default(3_000),
  // A hung watch (no bytes, no close) is noticed only by silence: a short server-side timeout makes
  // silence longer than it impossible for a healthy watch, whatever the API server's bookmark pace.
  WATCH_TIMEOUT: env.duration().default(10_000),
  WATCH_IDLE_TIMEOUT: env.duration().default(15_000),
  LEADER_ELECTION_LEASE_DURATION: env.duration().default(6_000),
  LEADER_ELECTION_RENEW_DEADLINE: env.duration().default(4_000),
  LEADER_ELECTION_RETRY_PERIOD: env.duration().default(1_000),
  SIGNAL_SOURCES: env.list().default([...SIGNAL_SOURCES]),
  KURED_NAMESPACE: env.string().default(KURED_DEFAULTS.namespace),
  KURED_DAEMONSET: env.string().default(KURED_DEFAULTS.name),
  KURED_LOCK_ANNOTATION: env.string().default(KURED_DEFAULTS.annotation),
}).superRefine((c, ctx) => {
  const sources = c.SIGNAL_SOURCES as unknown;
  if (Array.isArray(sources)) {
    for (const s of sources) {
      if (s === "none" && sources.length === 1) continue;
      if (!(SIGNAL_SOURCES as readonly string[]).includes(s)) ctx.addIssue({ code: "custom", path: ["SIGNAL_SOURCES"], message: `unknown source "${s}" (known: ${SIGNAL_SOURCES.join(", ")}, or none alone)` });
    }
  }
  const dns = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  for (const key of ["KURED_NAMESPACE", "KURED_DAEMONSET"] as const) {
    const v = c[key] as unknown;
    if (typeof v === "string" && (!dns.test(v) || v.length > 63)) ctx.addIssue({ code: "custom", path: [key], message: `"${v}" is not a DNS-1123 label` });
  }
  // An annotation key: an optional DNS-subdomain prefix and "/", then a name of up to 63 characters.
  const ann = c.KURED_LOCK_ANNOTATION as unknown;
  if (typeof ann === "string" && !/^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/.test(ann)) {
    ctx.addIssue({ code: "custom", path: ["KURED_LOCK_ANNOTATION"], message: `"${ann}" is not an annotation key` });
  }
  const watchTimeout = c.WATCH_TIMEOUT as unknown, idle = c.WATCH_IDLE_TIMEOUT as unknown;
  if (typeof watchTimeout === "number" && (watchTimeout < 1_000 || watchTimeout % 1_000 !== 0)) ctx.addIssue({ code: "custom", path: ["WATCH_TIMEOUT"], message: "must be a whole number of seconds, at least 1s (it is the watch's timeoutSeconds)" });
  else if (typeof watchTimeout === "number" && typeof idle === "number" && idle <= watchTimeout) {
    ctx.addIssue({ code: "custom", path: ["WATCH_IDLE_TIMEOUT"], message: `must be longer than WATCH_TIMEOUT (${watchTimeout}ms), or every healthy but quiet watch is declared hung before the server ends it` });
  }
  // Consumers call the view stale after STATE_MAX_AGE without a heartbeat: one missed beat must not do it.
  const interval = c.HEARTBEAT_INTERVAL as unknown;
  const maxAge = c.STATE_MAX_AGE as unknown;
  if (typeof interval !== "number") return;
  // A crashed leader's successor must beat before consumers turn stale: heartbeat + worst-case failover.
  const lease = c.LEADER_ELECTION_LEASE_DURATION as unknown, retry = c.LEADER_ELECTION_RETRY_PERIOD as unknown;
  if (c.LEADER_ELECTION === true && typeof lease === "number" && typeof retry === "number" && typeof maxAge === "number" && interval + lease + 2 * retry >= maxAge) {
    ctx.addIssue({ code: "custom", path: ["LEADER_ELECTION_LEASE_DURATION"], message: `HEARTBEAT_INTERVAL + LEADER_ELECTION_LEASE_DURATION + 2 × LEADER_ELECTION_RETRY_PERIOD (${interval + lease + 2 * retry}ms) must be below STATE_MAX_AGE (${maxAge}ms), or a watcher crash makes every consumer's view stale before another replica takes over` });
  }
  if (interval < 100) ctx.addIssue({ code: "custom", path: ["HEARTBEAT_INTERVAL"], message: "must be at least 100ms" });
  else if (typeof maxAge === "number" && interval * 2 > maxAge) ctx.addIssue({ code: "custom", path: ["HEARTBEAT_INTERVAL"], message: `must be at most half of STATE_MAX_AGE (${maxAge}ms), so one missed heartbeat does not make the state plane stale` });
});

/** The watcher's signal settings, already validated by the schema. */
/** The informers' watch timings, already validated by the schema. */
export function watchSettings(c: Pick<ReturnType<typeof watcherConfigSchema.parse>, "WATCH_TIMEOUT" | "WATCH_IDLE_TIMEOUT">): { watchTimeoutSeconds: number; idleTimeoutMs: number } {
  return { watchTimeoutSeconds: c.WATCH_TIMEOUT / 1000, idleTimeoutMs: c.WATCH_IDLE_TIMEOUT };
}

export function signalSettings(c: Pick<ReturnType<typeof watcherConfigSchema.parse>, "SIGNAL_SOURCES" | "KURED_NAMESPACE" | "KURED_DAEMONSET" | "KURED_LOCK_ANNOTATION">) {
  const sources = c.SIGNAL_SOURCES as string[];
  return {
    signalSources: (sources.length === 1 && sources[0] === "none" ? [] : sources) as SignalSourceName[],
    kured: { namespace: c.KURED_NAMESPACE, name: c.KURED_DAEMONSET, annotation: c.KURED_LOCK_ANNOTATION },
  };
}
