import { env, serviceConfigSchema } from "@lockstep/runtime";
import { z } from "zod";

/**
 * Status-aggregator settings (plus the runtime's base variables; GRPC_PORT defaults to 9094 and
 * HTTP_PORT to 8094 when unset):
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | DEBOUNCE_MS | at most one recomputation per window (the first change after a quiet spell at once); also the spacing of watch messages. A flush costs ~0.2 ms at 10,000 nodes | 10 |
 * | WATCH_REFRESH_MS | WatchUpdateStatus sends a fresh status this often even without changes (durations move) | 10000 |
 * | LEASE_NAMESPACE | namespace of Lockstep's own node Leases | lockstep-leases |
 * | FOREIGN_NODE_LEASE_NAMESPACES | KEP-style namespaces (Lease named after the node) | kube-node-maintenance |
 * | MEDIK8S_LEASE_NAMESPACES | medik8s namespaces (Lease named node-<name>) | medik8s-leases |
 * | ADMIN_HOLDER_PREFIX | holder prefix of admin holds that never expire | kubeadm |
 * | WRITE_POLICY_STATUS | write each NodeDisruptionPolicy's Accepted/Conflicting status (the only Kubernetes write) | true |
 * | KUBECONFIG | kubeconfig for the Kubernetes writes; in-cluster config when unset in a pod | client-node default |
 * | UPDATE_API_ENABLED | maintain the OpenShift Update Status API objects (update.openshift.io; see src/update-api) | false |
 * | UPDATE_API_WRITES_PER_SECOND | cap on those writes, all kinds together | 20 |
 * | UPDATE_API_WRITE_BURST | writes allowed at once after a quiet period | 50 |
 * | UPDATE_API_REFRESH_MS | cluster-level objects recomputed this often without changes (estimates move) | 30000 |
 * | UPDATE_API_RESYNC_MS | owned objects re-listed and CRD ownership re-checked this often | 600000 |
 * | ALERTS_URL | Prometheus-compatible alerts API (`…/api/v1/alerts`, e.g. the thanos-querier's) read for "Alert is firing" insights; unset: no alert source | |
 * | ALERTS_TOKEN_FILE | bearer token sent to it, read at every poll (projected tokens rotate) | |
 * | ALERTS_CA_FILE | PEM CAs trusted for its TLS certificate (read at start) | system CAs |
 * | ALERTS_INTERVAL | how often it is read | 30s |
 * | ALERTS_MAX_AGE | an answer older than this is not shown (monitoring is reported unreachable) | 3 × ALERTS_INTERVAL |
 */
export const aggregatorConfigSchema = serviceConfigSchema({
  GRPC_PORT: env.port().default(9094),
  HTTP_PORT: env.port().default(8094),
  DEBOUNCE_MS: env.int({ min: 0, max: 10_000 }).default(10),
  WATCH_REFRESH_MS: env.int({ min: 100 }).default(10_000),
  LEASE_NAMESPACE: env.string().default("lockstep-leases"),
  FOREIGN_NODE_LEASE_NAMESPACES: env.list().default(["kube-node-maintenance"]),
  MEDIK8S_LEASE_NAMESPACES: env.list().default(["medik8s-leases"]),
  ADMIN_HOLDER_PREFIX: env.string().default("kubeadm"),
  WRITE_POLICY_STATUS: env.bool().default(true),
  KUBECONFIG: env.string().optional(),
  UPDATE_API_ENABLED: env.bool().default(false),
  UPDATE_API_WRITES_PER_SECOND: env.int({ min: 1, max: 1_000 }).default(20),
  UPDATE_API_WRITE_BURST: env.int({ min: 1, max: 10_000 }).default(50),
  UPDATE_API_REFRESH_MS: env.int({ min: 1_000 }).default(30_000),
  UPDATE_API_RESYNC_MS: env.int({ min: 10_000 }).default(600_000),
  ALERTS_URL: z
    .string()
    .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), "expected an http(s) URL such as https://thanos-querier.openshift-monitoring.svc:9091/api/v1/alerts")
    .optional(),
  ALERTS_TOKEN_FILE: env.string().optional(),
  ALERTS_CA_FILE: env.string().optional(),
  ALERTS_INTERVAL: env.duration().default(30_000),
  ALERTS_MAX_AGE: env.duration().optional(),
}).superRefine((c, ctx) => {
  const issue = (path: string, message: string) => ctx.addIssue({ code: "custom", path: [path], message });
  for (const k of ["ALERTS_TOKEN_FILE", "ALERTS_CA_FILE", "ALERTS_MAX_AGE"] as const) if (c[k] !== undefined && !c.ALERTS_URL) issue(k, "needs ALERTS_URL");
  if (typeof c.ALERTS_INTERVAL === "number" && c.ALERTS_INTERVAL < 1_000) issue("ALERTS_INTERVAL", "must be at least 1s");
  if (typeof c.ALERTS_MAX_AGE === "number" && typeof c.ALERTS_INTERVAL === "number" && c.ALERTS_MAX_AGE <= c.ALERTS_INTERVAL)
    issue("ALERTS_MAX_AGE", `must be longer than ALERTS_INTERVAL (${c.ALERTS_INTERVAL}ms), or every answer would expire before the next`);
}, { when: () => true });
