import { OPERATION_NAMES, isOperationName, type OperationName } from "./operations.js";

/** A namespace (and naming rule) whose node Leases are written by someone else and must be respected. */
export interface ForeignLeaseSource {
  namespace: string;
  /** "node": Lease named exactly after the Node (2019 KEP); "medik8s": lower-cased "node-<name>". */
  naming: "node" | "medik8s";
}

/**
 * The conflict and budget policy. DEFAULT_POLICY documents the default; callers override fields and
 * pass the result through validatePolicy once, at start-up.
 */
export interface PolicyConfig {
  /** Namespace of Lockstep's own node Leases (never kube-node-lease, which the kubelet owns). */
  namespace: string;
  foreignSources: ForeignLeaseSource[];
  /** Holder prefix reserved for admins using plain kubectl: such a hold never expires (KEP). */
  adminHolderPrefix: string;
  /** Automated holds: at most this long per term (KEP: 1 h, renew to keep longer). */
  maxDurationSeconds: number;
  /** Maintenance holds are admin holds and may be requested for longer terms. */
  maxMaintenanceDurationSeconds: number;
  /** A holder may not renew past acquireTime + this (bounded holds); 0 disables the cap. */
  maxHoldSeconds: Partial<Record<OperationName, number>>;
  /** Drift allowance added to every expiry comparison (KEP: 3 s). */
  skewAllowanceSeconds: number;
  /** A renewTime further than this in the future is a clock fault: held, but only for duration + this. */
  maxClockSkewSeconds: number;
  /** Operations that count as "an update in progress" for the maintenance warning. */
  updateOperations: OperationName[];
  /** requester -> holders' operations it may take over with force (always audited). */
  forceTakeover: Partial<Record<OperationName, OperationName[]>>;
  /** requester -> holders' operations it may ask, through the Lease, to step down at a safe point. */
  cooperativePreemption: Partial<Record<OperationName, OperationName[]>>;
  /** Operations bounded by the MachineConfigPool's maxUnavailable. */
  poolBoundedOperations: OperationName[];
  /** Operations a DisruptionBudget without `operations` bounds. */
  defaultBudgetOperations: OperationName[];
  /** Persisted pause between the end of one bounded disruption in a pool and the next grant. */
  postReleaseDelaySeconds: number;
  /** Suggested retry when denied and nothing better is known. */
  defaultRetryAfterSeconds: number;
}

const AUTOMATED: OperationName[] = ["Update", "Reboot", "Drain", "Fence", "Deprovision", "PowerOff"];

export const DEFAULT_POLICY: Readonly<PolicyConfig> = Object.freeze<PolicyConfig>({
  namespace: "lockstep-leases",
  foreignSources: [
    { namespace: "medik8s-leases", naming: "medik8s" },
    { namespace: "kube-node-maintenance", naming: "node" },
  ],
  adminHolderPrefix: "kubeadm",
  maxDurationSeconds: 3600,
  maxMaintenanceDurationSeconds: 7 * 24 * 3600,
  // NHC-style caps: a stuck fencer or updater cannot hold a node forever.
  maxHoldSeconds: { Update: 4 * 3600, Reboot: 3600, Drain: 2 * 3600, Fence: 3 * 3600, Deprovision: 3600, PowerOff: 3600 },
  skewAllowanceSeconds: 3,
  maxClockSkewSeconds: 600,
  updateOperations: ["Update", "Reboot", "Drain"],
  // Only an admin's maintenance may force; fencing never takes a node from a valid holder.
  forceTakeover: { Maintenance: ["Update", "Reboot", "Drain", "Deprovision", "PowerOff"] },
  cooperativePreemption: { Maintenance: ["Update", "Reboot", "Drain", "Deprovision", "PowerOff"] },
  poolBoundedOperations: ["Update", "Reboot", "Drain"],
  defaultBudgetOperations: AUTOMATED,
  postReleaseDelaySeconds: 0,
  defaultRetryAfterSeconds: 30,
});

/** Merges overrides into the default and lists every problem (config is validated once, at the edge). */
export function validatePolicy(overrides: Partial<PolicyConfig> = {}): { policy: PolicyConfig; errors: string[] } {
  const policy: PolicyConfig = { ...structuredClone(DEFAULT_POLICY as PolicyConfig), ...overrides };
  const errors: string[] = [];
  const dns = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
  if (!dns.test(policy.namespace) || policy.namespace.length > 63) errors.push(`namespace "${policy.namespace}" is not a DNS-1123 label`);
  if (policy.namespace === "kube-node-lease") errors.push("namespace kube-node-lease is owned by the kubelet's heartbeats");
  for (const src of policy.foreignSources) {
    if (!dns.test(src.namespace)) errors.push(`foreign namespace "${src.namespace}" is not a DNS-1123 label`);
    if (src.naming !== "node" && src.naming !== "medik8s") errors.push(`foreign naming "${String(src.naming)}" is not node or medik8s`);
  }
  if (policy.adminHolderPrefix.trim() === "") errors.push("adminHolderPrefix must not be empty");
  for (const key of ["maxDurationSeconds", "maxMaintenanceDurationSeconds", "maxClockSkewSeconds", "defaultRetryAfterSeconds"] as const) {
    if (!Number.isInteger(policy[key]) || policy[key] <= 0) errors.push(`${key} must be a positive integer`);
  }
  for (const key of ["skewAllowanceSeconds", "postReleaseDelaySeconds"] as const) {
    if (!Number.isInteger(policy[key]) || policy[key] < 0) errors.push(`${key} must be a non-negative integer`);
  }
  const checkOps = (where: string, ops: readonly string[]) => {
    for (const op of ops) if (!isOperationName(op)) errors.push(`${where}: unknown operation "${op}" (known: ${OPERATION_NAMES.join(", ")})`);
  };
  checkOps("updateOperations", policy.updateOperations);
  checkOps("poolBoundedOperations", policy.poolBoundedOperations);
  checkOps("defaultBudgetOperations", policy.defaultBudgetOperations);
  for (const [table, name] of [
    [policy.forceTakeover, "forceTakeover"],
    [policy.cooperativePreemption, "cooperativePreemption"],
  ] as const) {
    for (const [op, victims] of Object.entries(table)) {
      checkOps(`${name} key`, [op]);
      checkOps(`${name}.${op}`, victims ?? []);
      if ((victims ?? []).includes("Maintenance")) errors.push(`${name}.${op}: a maintenance hold cannot be preempted`);
    }
  }
  if ((policy.forceTakeover.Fence ?? []).length > 0) errors.push("forceTakeover.Fence: fencing never takes a node from a valid holder");
  for (const [op, secs] of Object.entries(policy.maxHoldSeconds)) {
    checkOps("maxHoldSeconds key", [op]);
    if (!Number.isInteger(secs) || (secs as number) < 0) errors.push(`maxHoldSeconds.${op} must be a non-negative integer`);
  }
  return { policy, errors };
}
