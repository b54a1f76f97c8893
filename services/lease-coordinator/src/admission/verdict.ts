// The lease webhook's decision. Pure: a disruption on a node, the lease that holds the node (if
// any), who asks — allowed, or refused with a message naming the holder, the operation and how long
// the lease lasts. The conflict table is the coordinator's own (policy/conflict.ts), so a request
// refused here is one an Acquire for the same operation would be refused too.
import { OperationType, type NodeLease } from "@lockstep/contracts";
import { evaluateConflict } from "../policy/conflict.js";
import type { PolicyConfig } from "../policy/config.js";
import { operationName, type OperationName } from "../policy/operations.js";
import type { AdmissionUser } from "./review.js";

/** Requesters that act for a holder: e.g. the machine-config daemon drains under the controller's Update lease. */
export interface ActsFor {
  /** A user name or `group:<name>`. */
  subject: string;
  holders: string[];
}

const MCO = "system:serviceaccount:openshift-machine-config-operator";

/** OpenShift's update components act for one another: the controller starts it, the daemon cordons and drains. */
export const DEFAULT_ACTS_FOR: ActsFor[] = [
  { subject: `${MCO}:machine-config-controller`, holders: [`${MCO}:machine-config-daemon`] },
  { subject: `${MCO}:machine-config-daemon`, holders: [`${MCO}:machine-config-controller`] },
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

export type Verdict = { allowed: true; audit?: string } | { allowed: false; message: string };

function remaining(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.round((s % 3600) / 60)}m`;
}

/** When the lease stops holding the node, or undefined when it does not hold it now. */
export function heldUntil(lease: NodeLease | undefined, nowMs: number): number | undefined {
  if (lease === undefined || lease.holder === "") return undefined;
  const from = (lease.renewTime ?? lease.acquireTime)?.getTime();
  if (from === undefined) return undefined;
  const until = from + lease.durationSeconds * 1000;
  return until > nowMs ? until : undefined;
}

export function verdict(
  disruption: { node: string; operation: OperationName; what: string },
  lease: NodeLease | undefined,
  requester: Requester,
  nowMs: number,
  policy: PolicyConfig,
): Verdict {
  const until = heldUntil(lease, nowMs);
  if (lease === undefined || until === undefined || owns(requester, lease.holder)) return { allowed: true };
  const op = lease.operation === OperationType.OPERATION_TYPE_UNSPECIFIED ? undefined : operationName(lease.operation);
  const c = evaluateConflict(disruption.node, { holder: requester.username, operation: disruption.operation, force: false }, { holder: lease.holder, operation: op, reason: lease.reason, foreign: lease.foreign, adminHold: false }, policy);
  if (c.kind !== "blocked") return { allowed: true };
  const held = `node ${disruption.node} is leased to ${lease.holder} for ${op ?? "an unknown operation"}${lease.reason ? ` ("${lease.reason}")` : ""} until ${new Date(until).toISOString()} (${remaining(until - nowMs)} left)`;
  if (requester.breakGlass) return { allowed: true, audit: `break-glass: ${requester.username} may ${disruption.what} although ${held}` };
  return { allowed: false, message: `${held}: ${requester.username || "this request"} may not ${disruption.what} until it is released or expires [${c.code}]` };
}
