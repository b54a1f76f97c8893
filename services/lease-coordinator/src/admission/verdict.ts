// The lease webhook's decision. Pure: a disruption on a node, the hold on the node as the
// coordinator judges it (if any), who asks — allowed, or refused with a message naming the holder,
// the operation and how long the lease lasts. The conflict table is the coordinator's own
// (evaluateConflict, packages/lease-policy/src/conflict.ts), so a request refused here is one an
// Acquire for the same operation would be refused too.
import { OperationType } from "@lockstep/contracts";
import { evaluateConflict, operationName, type OperationName, type PolicyConfig } from "@lockstep/lease-policy";
import type { NodeHold } from "../coordinator/coordinator.js";
import type { AdmissionUser } from "./review.js";

/** Requesters that act for a holder: e.g. the machine-config daemon drains under the controller's Update lease. */
export interface ActsFor {
  /** A user name or `group:<name>`. */
  subject: string;
  holders: string[];
}

const MCO = "system:serviceaccount:openshift-machine-config-operator";

const sa = (namespace: string, name: string) => `system:serviceaccount:${namespace}:${name}`;
/** medik8s operators' namespace when installed from OperatorHub on OpenShift (the CSVs' suggested namespace). */
const WORKLOAD_AVAILABILITY = "openshift-workload-availability";

/**
 * OpenShift's update components act for one another: the controller starts it, the daemon cordons
 * and drains. A disruptor whose own object was adapted into a lease (adapters/: holders
 * "adapter:<kind>/…") acts for that lease, so its own cordon, drain or deletion is not refused on
 * the node it holds. Service accounts as the upstream projects deploy them:
 * - node-maintenance-operator: node-maintenance-operator-controller-manager (its Deployment and
 *   ServiceAccount as its bundle installs them), namespace openshift-workload-availability (the
 *   CSV's suggested-namespace) or node-maintenance-operator-system (config/default's namespace);
 * - self-node-remediation, fence-agents-remediation: <name>-controller-manager in
 *   openshift-workload-availability;
 * - kured: ServiceAccount kured in kube-system (kured-rbac.yaml);
 * - the machine-api: machine-api-controllers in openshift-machine-api;
 * - the MCO: its daemon and controller for the MCO update adapter.
 * Other installs set ADMISSION_ACTS_FOR.
 */
export const DEFAULT_ACTS_FOR: ActsFor[] = [
  { subject: `${MCO}:machine-config-controller`, holders: [`${MCO}:machine-config-daemon`, "adapter:machineconfig"] },
  { subject: `${MCO}:machine-config-daemon`, holders: [`${MCO}:machine-config-controller`, "adapter:machineconfig"] },
  { subject: sa(WORKLOAD_AVAILABILITY, "node-maintenance-operator-controller-manager"), holders: ["adapter:nodemaintenance"] },
  { subject: sa("node-maintenance-operator-system", "node-maintenance-operator-controller-manager"), holders: ["adapter:nodemaintenance"] },
  { subject: sa(WORKLOAD_AVAILABILITY, "self-node-remediation-controller-manager"), holders: ["adapter:selfnoderemediation"] },
  { subject: sa(WORKLOAD_AVAILABILITY, "fence-agents-remediation-controller-manager"), holders: ["adapter:fenceagentsremediation"] },
  { subject: sa("kube-system", "kured"), holders: ["adapter:kured"] },
  { subject: sa("openshift-machine-api", "machine-api-controllers"), holders: ["adapter:machine"] },
];

export interface Requester {
  username: string;
  /** Holders whose leases are the requester's own: its user name and those it acts for. */
  holders: string[];
  breakGlass: boolean;
}

export function requesterOf(user: AdmissionUser, actsFor: readonly ActsFor[], breakGlassGroups: readonly string[]): Requester {
  const subjects = new Set([user.username, ...user.groups.map((g) => `group:${g}`)]);
  const holders = new Set([user.username]);
  for (const a of actsFor) if (subjects.has(a.subject)) for (const h of a.holders) holders.add(h);
  return { username: user.username, holders: [...holders].filter((h) => h !== ""), breakGlass: user.groups.some((g) => breakGlassGroups.includes(g)) };
}

/** A holder is the requester's when it is one of its holders or one of them with a suffix ("<sa>/<node>"). */
function owns(r: Requester, holder: string): boolean {
  return r.holders.some((h) => holder === h || holder.startsWith(`${h}/`));
}

/** Refused: `held` says who holds the node and how long, `requester` who asked (for warnings built on it). */
export type Verdict = { allowed: true; audit?: string } | { allowed: false; message: string; held: string; requester: string };

function remaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.round((s % 3600) / 60)}m`;
}

export function verdict(
  disruption: { node: string; operation: OperationName; what: string; onlyWhileHeldFor?: readonly OperationName[] },
  hold: NodeHold | undefined,
  requester: Requester,
  nowMs: number,
  policy: PolicyConfig,
): Verdict {
  if (hold === undefined || owns(requester, hold.lease.holder)) return { allowed: true };
  const { lease } = hold;
  const op = lease.operation === OperationType.OPERATION_TYPE_UNSPECIFIED ? undefined : operationName(lease.operation);
  // A power-on or a remediation undoes nothing of a hold for another purpose (an admin hold is a maintenance).
  const only = disruption.onlyWhileHeldFor;
  if (only !== undefined && !hold.adminHold && (op === undefined || !only.includes(op))) return { allowed: true };
  const c = evaluateConflict(disruption.node, { holder: requester.username, operation: disruption.operation, force: false }, { holder: lease.holder, operation: op, reason: lease.reason, foreign: lease.foreign, adminHold: hold.adminHold }, policy);
  if (c.kind !== "blocked") return { allowed: true };
  const term = Number.isFinite(hold.expiresInSeconds)
    ? `until ${new Date(nowMs + hold.expiresInSeconds * 1000).toISOString()} (${remaining(hold.expiresInSeconds * 1000)} left)`
    : "until it is released (an admin hold)";
  const held = `node ${disruption.node} is leased to ${lease.holder} for ${op ?? "an unknown operation"}${lease.reason ? ` ("${lease.reason}")` : ""} ${term}`;
  if (requester.breakGlass) return { allowed: true, audit: `break-glass: ${requester.username} may ${disruption.what} although ${held}` };
  const who = requester.username || "this request";
  return { allowed: false, message: `${held}: ${who} may not ${disruption.what} until it is released or expires [${c.code}]`, held, requester: who };
}
