import type { DisruptionBudgetState, LeaseState, NodeLease, PoolState, Warning } from "@lockstep/contracts";
import type { ClusterIndex } from "./cluster.js";
import type { LeaseNode } from "./lease-node.js";
import type { LeaseBody, LeaseRecord, LeaseWrite } from "./lease-record.js";
import type { ObservationLog } from "./observations.js";
import type { WaitQueue, Waiter } from "./queue.js";

/** Everything one decision reads: the state plane's view plus this replica's memory. */
export interface ObservedState {
  nodes: readonly LeaseNode[];
  pools: readonly PoolState[];
  budgets: readonly DisruptionBudgetState[];
  /** Lockstep's own node and slot Leases plus foreign ones from the configured namespaces. */
  leases: readonly LeaseState[];
  /** The same leases already decoded (the caller's index keeps them so); used instead of `leases`. */
  records?: readonly LeaseRecord[];
  /** nodes, pools and budgets indexed (the caller's memo per snapshot); built per call when absent. */
  cluster?: ClusterIndex;
  observations?: ObservationLog;
  /**
   * True when `observations` already holds the first sighting of every given lease's current
   * record (the caller keeps it up to date): it is read as it is, not rebuilt per decision.
   */
  observationsCurrent?: boolean;
  queue?: WaitQueue;
}

export type PolicyEventType =
  | "lease.granted"
  | "lease.denied"
  | "lease.released"
  | "lease.expired"
  | "lease.preempted"
  | "lease.preemption-withdrawn"
  | "warning.raised";

/** A fact for the caller to publish once its writes have succeeded. */
export interface PolicyEvent {
  type: PolicyEventType;
  node: string;
  message: string;
  lease?: NodeLease;
  previous?: NodeLease;
  warning?: Warning;
}

export type DenyCode =
  | "Invalid"
  | "Held"
  | "MaintenanceFlagged"
  | "UpdateInProgress"
  | "BudgetExhausted"
  | "Spacing"
  | "Queued"
  | "AlreadyHeld"
  | "MaxHoldExceeded"
  /** A forced request marked the holder preempted (or the node is reserved for a preemptor). */
  | "PreemptionPending"
  /** A renew by a holder whose lease is marked preempted: it must stop and release. */
  | "Preempted"
  /** A waiting forced request whose preemption was withdrawn (CancelPreemption) while it waited. */
  | "PreemptionCancelled"
  /** The state plane is older than the bound (policy/freshness.ts): nothing observed can be trusted. */
  | "StateStale";

interface Common {
  warnings: Warning[];
  events: PolicyEvent[];
  /** The replica's updated observation log and queue; keep them for the next decision. */
  observations: ObservationLog;
  queue: Waiter[];
}

export interface GrantDecision extends Common {
  kind: "grant";
  lease: NodeLease;
  leaseBody: LeaseBody;
  /** CAS writes in order: budget slots first (reserve before act), the node Lease last. */
  writes: LeaseWrite[];
  renewal: boolean;
  /** Someone asked this holder to step down at its next safe point. */
  preemptionRequestedBy: string;
}

export interface DenyDecision extends Common {
  kind: "deny";
  code: DenyCode;
  reason: string;
  current: NodeLease | undefined;
  retryAfterSeconds: number;
  /** Only clean-up of this requester's own orphaned budget slots; empty in the ordinary case. */
  writes: LeaseWrite[];
}

export interface WaitDecision extends Common {
  kind: "wait";
  code: DenyCode;
  reason: string;
  current: NodeLease | undefined;
  retryAfterSeconds: number;
  /** 1-based place in line. */
  position: number;
  /** A cooperative preemption request on the holder's Lease, when the policy allows one. */
  writes: LeaseWrite[];
}

export type Decision = GrantDecision | DenyDecision | WaitDecision;
