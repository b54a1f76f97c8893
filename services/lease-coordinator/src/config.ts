import { hostname } from "node:os";
import { env, serviceConfigSchema } from "@lockstep/runtime";
import { z } from "zod";
import { ADAPTER_NAMES, type AdapterName } from "./adapters/plan.js";
import { DEFAULT_ACTS_FOR, type ActsFor } from "./admission/verdict.js";
import type { ClassifyOptions } from "./admission/disruption.js";
import { POD_DELETE_POLICIES } from "./admission/pod-delete.js";
import { DEFAULT_TAINT_EXEMPT_KEYS } from "./admission/taints.js";
import { parseAuthMode, type AuthMode } from "./auth/lease-auth.js";
import { validatePolicy, type ForeignLeaseSource, type PolicyConfig } from "@lockstep/lease-policy";

/**
 * lease-coordinator settings (plus the runtime's base variables):
 *
 * | variable | meaning | default |
 * |---|---|---|
 * | KUBECONFIG | kubeconfig file; in-cluster config when unset inside a pod | client-node default |
 * | LEASE_NAMESPACE | namespace of Lockstep's node and budget-slot Leases | lockstep-leases |
 * | LEASE_FOREIGN_SOURCES | `namespace:naming` pairs (naming `node` or `medik8s`) whose Leases are respected | medik8s-leases:medik8s,kube-node-maintenance:node |
 * | LEASE_POLICY | JSON object overriding fields of the default conflict/budget policy (packages/lease-policy/src/config.ts) | {} |
 * | SWEEP_INTERVAL | how often expired leases are looked for (lease.expired events) | 2s |
 * | BUDGET_RESYNC | how often budget status is re-evaluated without any change (schedules open and close) | 30s |
 * | COORDINATOR_ID | this replica's name in events, logs and the shared wait queue | POD_NAME, else the hostname |
 * | LEASE_AUTH | how callers prove who they are: `token` (bearer tokens, TokenReview), `mtls` (client certificates; needs GRPC_TLS_CA and GRPC_TLS_REQUIRE_CLIENT_CERT=true), `token,mtls` (a certificate from every caller; a token, when sent, names the caller), or `none` (anyone may act as any holder: local and test runs only) | token |
 * | LEASE_AUTH_CACHE_TTL | how long TokenReview and SubjectAccessReview answers are reused | 10s |
 * | ADMISSION_TLS_CERT, ADMISSION_TLS_KEY | PEM files of the lease webhook's serving certificate; the webhook (HTTPS, POST /validate) runs only when both are set | (off) |
 * | ADMISSION_PORT | the lease webhook's port | 9443 |
 * | ADMISSION_BREAK_GLASS_GROUPS | groups whose requests the webhook always admits, audited (log and a warning.raised event) | lockstep:break-glass |
 * | ADMISSION_ACTS_FOR | JSON list of `{ "subject": "<user>" or "group:<name>", "holders": [...] }`: requesters whose requests count as those holders' own (default: the machine-config controller and daemon act for each other) | (built in) |
 * | ADMISSION_TAINT_EXEMPT_KEYS | NoExecute taint keys anyone may add on a leased node (Kubernetes' own: the node lifecycle controller's, the cloud provider's); an entry ending in `/` exempts every key with that prefix. Any other NoExecute taint is judged as a Drain; `node.kubernetes.io/out-of-service` is always judged, as a Fence | node.kubernetes.io/{not-ready,unreachable,unschedulable,memory-pressure,disk-pressure,pid-pressure,network-unavailable}, node.cloudprovider.kubernetes.io/{uninitialized,shutdown} |
 * | ADMISSION_POD_DELETE | a pod deletion on a node another holds, by neither the pod's kubelet nor a kube-system service account: `Warn` (admitted with a warning and a warning.raised event, refused for acts-for subjects), `Refuse` (refused), `Ignore` (not judged) | Warn |
 * | LEASE_AUTH_AUDIENCES | audiences a token must carry (TokenReview spec.audiences); empty means the API server's | (empty) |
 * | LEASE_ADAPTERS | disruptors whose own objects (as the watcher publishes them) are recorded as leases (adapters/): nodemaintenance, remediation, kured, machine, machineconfig; `none` for none. All on by default: without machineconfig a node the MCO is updating looks free, and a maintenance could be granted on it. An MCO that holds its own Update lease (cluster-sim's cooperating one) covers its node's signal | nodemaintenance,remediation,kured,machine,machineconfig |
 * | LEASE_ADAPTER_DURATION | term of an adapted lease, renewed at half of it while the signal lasts (at most the policy's maxDurationSeconds) | 2m |
 * | LEASE_ADAPTER_RESYNC | how often the adapters look again without any change (kured's TTL, refused leases) | 10s |
 * | LEASE_QUEUE_REFRESH | how often a replica rewrites the entries of the callers waiting on it in the shared wait queue; an entry not rewritten for 3 intervals (a dead replica's) stops holding others back | 2s |
 * | GRPC_PORT / HTTP_PORT | LeaseService / health and metrics | 9091 / 8091 |
 */
export const leaseCoordinatorConfigSchema = serviceConfigSchema({
  GRPC_PORT: env.port().default(9091),
  HTTP_PORT: env.port().default(8091),
  KUBECONFIG: env.string().optional(),
  LEASE_NAMESPACE: env.string().default("lockstep-leases"),
  LEASE_FOREIGN_SOURCES: env.list().default(["medik8s-leases:medik8s", "kube-node-maintenance:node"]),
  LEASE_POLICY: env.string().default("{}"),
  SWEEP_INTERVAL: env.duration().default(2_000),
  BUDGET_RESYNC: env.duration().default(30_000),
  COORDINATOR_ID: env.string().optional(),
  LEASE_AUTH: env.string().default("token"),
  LEASE_AUTH_CACHE_TTL: env.duration().default(10_000),
  LEASE_AUTH_AUDIENCES: env.list().default([]),
  ADMISSION_TLS_CERT: env.string().optional(),
  ADMISSION_TLS_KEY: env.string().optional(),
  ADMISSION_PORT: env.port().default(9443),
  ADMISSION_BREAK_GLASS_GROUPS: env.list().default(["lockstep:break-glass"]),
  ADMISSION_ACTS_FOR: env.string().optional(),
  ADMISSION_TAINT_EXEMPT_KEYS: env.list().default([...DEFAULT_TAINT_EXEMPT_KEYS]),
  ADMISSION_POD_DELETE: z.enum(POD_DELETE_POLICIES).default("Warn"),
  LEASE_ADAPTERS: env.list().default(["nodemaintenance", "remediation", "kured", "machine", "machineconfig"]),
  LEASE_ADAPTER_DURATION: env.duration().default(120_000),
  LEASE_ADAPTER_RESYNC: env.duration().default(10_000),
  LEASE_QUEUE_REFRESH: env.duration().default(2_000),
}).superRefine((c, ctx) => {
  const adapters = c.LEASE_ADAPTERS as unknown;
  if (Array.isArray(adapters)) {
    for (const a of adapters) {
      if (a === "none" && adapters.length === 1) continue;
      if (!(ADAPTER_NAMES as string[]).includes(a)) ctx.addIssue({ code: "custom", path: ["LEASE_ADAPTERS"], message: `unknown adapter "${a}" (known: ${ADAPTER_NAMES.join(", ")}, or none alone)` });
    }
  }
  const duration = c.LEASE_ADAPTER_DURATION as unknown;
  if (typeof duration === "number") {
    const max = policyFromSettings(c as Settings).policy.maxDurationSeconds;
    if (duration < 10_000 || duration % 1000 !== 0 || duration / 1000 > max) ctx.addIssue({ code: "custom", path: ["LEASE_ADAPTER_DURATION"], message: `must be whole seconds between 10s and the policy's maxDurationSeconds (${max}s)` });
  }
  const resync = c.LEASE_ADAPTER_RESYNC as unknown;
  if (typeof resync === "number" && resync < 100) ctx.addIssue({ code: "custom", path: ["LEASE_ADAPTER_RESYNC"], message: "must be at least 100ms" });
  // Above 10 s a dead replica's waiters would hold others back for over 30 s.
  const refresh = c.LEASE_QUEUE_REFRESH as unknown;
  if (typeof refresh === "number" && (refresh < 100 || refresh > 10_000)) ctx.addIssue({ code: "custom", path: ["LEASE_QUEUE_REFRESH"], message: "must be between 100ms and 10s" });
  if ((c.ADMISSION_TLS_CERT === undefined) !== (c.ADMISSION_TLS_KEY === undefined)) {
    ctx.addIssue({ code: "custom", path: [c.ADMISSION_TLS_CERT === undefined ? "ADMISSION_TLS_CERT" : "ADMISSION_TLS_KEY"], message: "ADMISSION_TLS_CERT and ADMISSION_TLS_KEY go together" });
  }
  if (c.ADMISSION_ACTS_FOR !== undefined) {
    const r = parseActsFor(c.ADMISSION_ACTS_FOR);
    if ("error" in r) ctx.addIssue({ code: "custom", path: ["ADMISSION_ACTS_FOR"], message: r.error });
  }
  const exempt = c.ADMISSION_TAINT_EXEMPT_KEYS as unknown;
  if (Array.isArray(exempt)) {
    // A bare "/" or an empty entry would exempt every taint: the check would be off by accident.
    for (const k of exempt) if (k === "" || k === "/") ctx.addIssue({ code: "custom", path: ["ADMISSION_TAINT_EXEMPT_KEYS"], message: `"${k}" would exempt every taint key` });
  }
  const auth = parseAuthMode(c.LEASE_AUTH);
  if ("error" in auth) ctx.addIssue({ code: "custom", path: ["LEASE_AUTH"], message: auth.error });
  else if (auth.mode !== "none" && auth.mode.mtls && !(c.GRPC_TLS_CA && c.GRPC_TLS_REQUIRE_CLIENT_CERT)) {
    // grpc-js asks for a client certificate only when it requires one.
    ctx.addIssue({ code: "custom", path: ["LEASE_AUTH"], message: "mtls needs GRPC_TLS_CERT, GRPC_TLS_KEY, GRPC_TLS_CA and GRPC_TLS_REQUIRE_CLIENT_CERT=true" });
  }
  const { errors } = policyFromSettings(c as Settings);
  for (const message of errors) ctx.addIssue({ code: "custom", path: [message.startsWith("LEASE_") ? message.split(":")[0]! : "LEASE_POLICY"], message: message.replace(/^LEASE_[A-Z_]+: /, "") });
});

export type LeaseCoordinatorConfig = z.output<typeof leaseCoordinatorConfigSchema>;

type Settings = Pick<LeaseCoordinatorConfig, "LEASE_NAMESPACE" | "LEASE_FOREIGN_SOURCES" | "LEASE_POLICY">;

function parseSources(items: readonly string[], errors: string[]): ForeignLeaseSource[] {
  const out: ForeignLeaseSource[] = [];
  for (const item of items) {
    const [namespace = "", naming = "", ...rest] = item.split(":");
    if (rest.length > 0 || (naming !== "node" && naming !== "medik8s") || namespace === "") {
      errors.push(`LEASE_FOREIGN_SOURCES: "${item}" is not namespace:node or namespace:medik8s`);
      continue;
    }
    out.push({ namespace, naming });
  }
  return out;
}

/** The validated policy for these settings, or every problem (each prefixed with its variable). */
export function policyFromSettings(s: Settings): { policy: PolicyConfig; errors: string[] } {
  const errors: string[] = [];
  let overrides: Partial<PolicyConfig> = {};
  if (typeof s.LEASE_POLICY === "string") {
    try {
      const parsed: unknown = JSON.parse(s.LEASE_POLICY);
      if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) errors.push("LEASE_POLICY: expected a JSON object");
      else overrides = parsed as Partial<PolicyConfig>;
    } catch (err) {
      errors.push(`LEASE_POLICY: not valid JSON (${(err as Error).message})`);
    }
  }
  const sources = Array.isArray(s.LEASE_FOREIGN_SOURCES) ? parseSources(s.LEASE_FOREIGN_SOURCES, errors) : [];
  const { policy, errors: policyErrors } = validatePolicy({
    ...overrides,
    namespace: typeof s.LEASE_NAMESPACE === "string" ? s.LEASE_NAMESPACE : "lockstep-leases",
    foreignSources: sources,
  });
  for (const e of policyErrors) errors.push(e.startsWith("namespace") ? `LEASE_NAMESPACE: ${e}` : `LEASE_POLICY: ${e}`);
  return { policy, errors };
}

/** ADMISSION_ACTS_FOR: a JSON list of { subject, holders }. */
export function parseActsFor(text: string): { actsFor: ActsFor[] } | { error: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    return { error: `not valid JSON (${(err as Error).message})` };
  }
  const ok = (a: any): a is ActsFor =>
    a !== null && typeof a === "object" && typeof a.subject === "string" && a.subject !== "" && Array.isArray(a.holders) && a.holders.every((h: unknown) => typeof h === "string" && h !== "");
  if (!Array.isArray(parsed) || !parsed.every(ok)) return { error: 'expected a list of { "subject": "<user>" or "group:<name>", "holders": ["<holder>", …] }' };
  return { actsFor: parsed };
}

/** The webhook's acts-for rules: ADMISSION_ACTS_FOR, already validated, else the defaults. */
export function actsForOf(config: Pick<LeaseCoordinatorConfig, "ADMISSION_ACTS_FOR">): ActsFor[] {
  if (config.ADMISSION_ACTS_FOR === undefined) return DEFAULT_ACTS_FOR;
  const r = parseActsFor(config.ADMISSION_ACTS_FOR);
  if ("error" in r) throw new Error(`ADMISSION_ACTS_FOR: ${r.error}`);
  return r.actsFor;
}

/** What the webhook judges of taints and pod deletions, already validated by the schema. */
export function classifyOptionsOf(config: Pick<LeaseCoordinatorConfig, "ADMISSION_TAINT_EXEMPT_KEYS" | "ADMISSION_POD_DELETE">): ClassifyOptions {
  return { taintExemptKeys: config.ADMISSION_TAINT_EXEMPT_KEYS, podDelete: config.ADMISSION_POD_DELETE };
}

/** LEASE_AUTH, already validated by the schema. */
export function authModeOf(config: Pick<LeaseCoordinatorConfig, "LEASE_AUTH">): AuthMode {
  const r = parseAuthMode(config.LEASE_AUTH);
  if ("error" in r) throw new Error(`LEASE_AUTH: ${r.error}`);
  return r.mode;
}

export function coordinatorId(config: Pick<LeaseCoordinatorConfig, "COORDINATOR_ID" | "POD_NAME">): string {
  // Replicas on one host (lockstep up --replicas) share a hostname: the pod name tells them apart.
  return config.COORDINATOR_ID ?? config.POD_NAME ?? hostname();
}

/** The lease adapters' settings, already validated by the schema (undefined: none enabled). */
export function adaptersOf(config: Pick<LeaseCoordinatorConfig, "LEASE_ADAPTERS" | "LEASE_ADAPTER_DURATION" | "LEASE_ADAPTER_RESYNC">): { enabled: AdapterName[]; durationSeconds: number; resyncMs: number } | undefined {
  const enabled = config.LEASE_ADAPTERS.filter((a): a is AdapterName => (ADAPTER_NAMES as string[]).includes(a));
  if (enabled.length === 0) return undefined;
  return { enabled, durationSeconds: config.LEASE_ADAPTER_DURATION / 1000, resyncMs: config.LEASE_ADAPTER_RESYNC };
}
