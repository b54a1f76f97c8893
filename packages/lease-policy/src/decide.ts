import type { AcquireRequest, Warning } from "@lockstep/contracts";
import { planSlot, requiredScopes, type Scope } from "./capacity.js";
import { clusterOf } from "./cluster.js";
import type { PolicyConfig } from "./config.js";
import { evaluateConflict, type ConflictOutcome } from "./conflict.js";
import type { Validity } from "./expiry.js";
import {
  ANN_FORCED_BY,
  ANN_PREEMPT,
  ANN_PREEMPTED_AT,
  ANN_PREEMPTED_BY,
  ANN_PREEMPTED_REASON,
  ANN_PREEMPTION_WITHDRAWN_AT,
  ANN_PREEMPTION_WITHDRAWN_BY,
  ANN_RELEASED_AT,
  encodeLease,
  formatMicroTime,
  preemptorLabel,
  slotLeaseName,
  type LeaseRecord,
  type LeaseWrite,
} from "./lease-record.js";
import type { LeaseNode } from "./lease-node.js";
import { toNodeLease } from "./node-lease.js";
import { operationName, type OperationName } from "./operations.js";
import { dequeue, enqueue, pruneQueue, waitersAhead, type Waiter } from "./queue.js";
import type { Decision, DenyCode, PolicyEvent, ObservedState } from "./types.js";
import { validateRequest } from "./validate.js";
import { buildView, type LeaseView } from "./view.js";

function retryFor(v: Validity, policy: PolicyConfig): number {
  if (v.status !== "held" || !Number.isFinite(v.expiresInSeconds)) return policy.defaultRetryAfterSeconds;
  return Math.min(policy.defaultRetryAfterSeconds, Math.max(1, Math.ceil(v.expiresInSeconds)));
}

/** Rewrites a record unchanged except for `annotations` (used for preemption requests and releases). */
export function reencode(rec: LeaseRecord, nodeUid: string, changes: { annotations?: Record<string, string>; holder?: string; durationSeconds?: number; renewTime?: Date; acquireTime?: Date }): LeaseWrite {
  const kind = rec.kind === "slot" ? "slot" : "node";
  const body = encodeLease({
    namespace: rec.namespace,
    name: rec.name,
    kind,
    node: rec.node,
    nodeUid,
    holder: changes.holder ?? rec.holder,
    operation: rec.operation,
    reason: rec.reason,
    durationSeconds: changes.durationSeconds ?? Math.max(1, rec.durationSeconds),
    acquireTime: changes.acquireTime ?? rec.acquireTime,
    renewTime: changes.renewTime ?? rec.renewTime,
    transitions: rec.transitions,
    resourceVersion: rec.resourceVersion,
    annotations: { ...rec.annotations, ...(changes.annotations ?? {}) },
    scope: rec.scope,
  });
  return { namespace: rec.namespace, name: rec.name, expectedResourceVersion: rec.resourceVersion, body };
}

/** Releases of this holder's budget slots for a node that no longer back a grant (e.g. a lost race). */
function orphanSlotReleases(view: LeaseView, holder: string, node: string, nodeUid: string, now: Date): LeaseWrite[] {
  const ours = view.nodeLease(node);
  if (ours !== undefined && ours.holder === holder && view.validity(ours).status === "held") return [];
  return view.records
    .filter((r) => r.kind === "slot" && r.holder === holder && r.node === node && view.validity(r).status === "held")
    .map((r) => reencode(r, nodeUid, { holder: "", durationSeconds: 1, renewTime: now, acquireTime: now, annotations: { [ANN_RELEASED_AT]: formatMicroTime(now) } }));
}

/**
 * The invariant every decision keeps: at no instant do two holders each hold an unexpired,
 * un-preempted grant for one node. Grants are CAS writes on the node Lease; expiry counts from this
 * replica's first sighting of the record, so it comes after the holder's own deadline; and a forced
 * request only marks the holder preempted (it can no longer renew) — the preemptor is granted after
 * the holder released or the lease expired. model.ts checks it against what requesters believe.
 *
 * Decides an Acquire (a renew when the requester already holds the node). Pure: the caller performs
 * `writes` in order as compare-and-swap updates; on any 409 it re-reads and decides again, and it
 * answers the requester only after every write succeeded (reserve before act).
 */
export function decide(req: AcquireRequest, observed: ObservedState, now: Date, policy: PolicyConfig): Decision {
  const nowMs = now.getTime();
  const view = buildView(observed, nowMs, policy);
  let queue: Waiter[] = pruneQueue(observed.queue ?? [], nowMs);
  const warnings: Warning[] = [];
  const events: PolicyEvent[] = [];
  const cluster = clusterOf(observed);
  const errors = validateRequest(req, cluster, policy);
  if (errors.length > 0) {
    const reason = `invalid request: ${errors.join("; ")}`;
    return {
      kind: "deny", code: "Invalid", reason, current: undefined, retryAfterSeconds: 0, writes: [], warnings,
      events: [{ type: "lease.denied", node: String(req.node ?? ""), message: reason }],
      observations: view.observations, queue,
    };
  }
  const op = operationName(req.operation) as OperationName;
  const nodeState = cluster.node(req.node) as LeaseNode;
  const scopes: Scope[] = requiredScopes(req.node, op, { ...observed, cluster }, now, policy);
  const scopeKeys = scopes.map((s) => s.key);

  const refuse = (
    code: DenyCode,
    reason: string,
    current: LeaseRecord | undefined,
    retryAfterSeconds: number,
    extraWrites: LeaseWrite[] = [],
    canWait = true,
    extraEvents: PolicyEvent[] = [],
  ): Decision => {
    const cleanup = orphanSlotReleases(view, req.holder, req.node, nodeState.uid, now);
    const raised: PolicyEvent[] = warnings.map((w) => ({ type: "warning.raised", node: req.node, message: w.message, warning: w }));
    const currentLease = current ? toNodeLease(current) : undefined;
    if (canWait && (req.waitSeconds ?? 0) > 0) {
      queue = enqueue(queue, { holder: req.holder, node: req.node, operation: op, scopes: scopeKeys, enqueuedMs: nowMs, expiresMs: nowMs + req.waitSeconds * 1000 });
      const ahead = waitersAhead(queue, { holder: req.holder, node: req.node, scopes: scopeKeys }, nowMs, () => false);
      return {
        kind: "wait", code, reason, current: currentLease, retryAfterSeconds: Math.min(retryAfterSeconds, policy.defaultRetryAfterSeconds),
        position: ahead.length + 1, writes: [...cleanup, ...extraWrites], warnings, events: [...extraEvents, ...raised], observations: view.observations, queue,
      };
    }
    return {
      kind: "deny", code, reason, current: currentLease, retryAfterSeconds, writes: [...cleanup, ...extraWrites], warnings,
      events: [{ type: "lease.denied", node: req.node, message: reason, lease: currentLease }, ...extraEvents, ...raised],
      observations: view.observations, queue,
    };
  };
  const blocked = (c: Extract<ConflictOutcome, { kind: "blocked" }>, rec: LeaseRecord, v: Validity): Decision => {
    warnings.push(...c.warnings);
    const preempt: LeaseWrite[] = [];
    // A polite ask is pointless once a binding preemption is pending.
    if (c.mayRequestPreemption && (req.waitSeconds ?? 0) > 0 && rec.kind === "node" && rec.preemptionRequestedBy === "" && rec.preemptedBy === "") {
      preempt.push(reencode(rec, nodeState.uid, { annotations: { [ANN_PREEMPT]: preemptorLabel(req.holder, op) } }));
    }
    return refuse(c.code, c.reason, rec, retryFor(v, policy), preempt);
  };

  // 1. Holds through other components' Leases are always respected; we never write them.
  for (const f of view.foreignLeases(req.node)) {
    const v = view.validity(f);
    if (f.corrupt !== undefined && f.holder !== "") {
      warnings.push({ code: "CorruptForeignLease", node: req.node, message: `ignoring corrupt lease ${f.namespace}/${f.name}: ${f.corrupt}` });
    }
    if (v.status !== "held" || f.holder === req.holder) continue;
    const c = evaluateConflict(req.node, { holder: req.holder, operation: op, force: req.force }, { holder: f.holder, operation: f.operation, reason: f.reason, foreign: true, adminHold: v.adminHold }, policy);
    if (c.kind === "blocked") return blocked(c, f, v);
  }

  // 2. Our own Lease for the node.
  const ours = view.nodeLease(req.node);
  let renewal = false;
  let acquireTime = now;
  let transitions = 0;
  // This grant completes a binding preemption (the requester is the preemptor named on the Lease).
  let completesPreemption = false;
  if (ours !== undefined) {
    const v = view.validity(ours);
    if (ours.holder === req.holder && ours.corrupt === undefined) {
      // Preempted: the holder may only release. Refusing its renew bounds the preemptor's wait by
      // one lease duration and tells the holder to stop (it may not have seen the mark yet).
      if (ours.preemptedBy !== "") {
        const at = ours.preemptedAt ? ` at ${ours.preemptedAt.toISOString()}` : "";
        return refuse("Preempted", `preempted by ${ours.preemptedBy}${at}: renew refused; stop and release ${req.node}`, ours, 0, [], false);
      }
      // Our own lease, even if it lapsed while nobody took it: a renew keeps acquireTime and transitions.
      renewal = true;
      acquireTime = ours.acquireTime ?? now;
      transitions = ours.transitions + (ours.acquireTime === undefined ? 1 : 0);
      const cap = policy.maxHoldSeconds[op] ?? 0;
      if (cap > 0 && ours.acquireTime !== undefined && nowMs - ours.acquireTime.getTime() > cap * 1000) {
        warnings.push({ code: "MaxHoldExceeded", node: req.node, message: `${req.holder} has held ${req.node} for ${op} longer than ${cap}s; renew refused` });
        return refuse("MaxHoldExceeded", `maximum hold of ${cap}s for ${op} reached; release the node`, ours, policy.defaultRetryAfterSeconds, [], false);
      }
    } else if (v.status === "held") {
      // A binding preemption is pending: its preemptor, and any other forcer, wait for the release
      // or expiry (the mark is written once; a second forcer queues behind the first).
      if (ours.preemptedBy !== "" && (ours.preemptorHolder === req.holder || req.force)) {
        const mine = ours.preemptorHolder === req.holder;
        const reason = mine
          ? `${ours.holder} is preempted by ${ours.preemptedBy}; granted once it releases or its lease expires`
          : `${req.node} is already preempted by ${ours.preemptedBy}, who goes first`;
        return refuse("PreemptionPending", reason, ours, retryFor(v, policy));
      }
      const c = evaluateConflict(req.node, { holder: req.holder, operation: op, force: req.force }, { holder: ours.holder, operation: ours.operation, reason: ours.reason, foreign: false, adminHold: v.adminHold }, policy);
      if (c.kind === "blocked") return blocked(c, ours, v);
      if (c.kind === "takeover") {
        // Force never grants at once (the displaced holder would believe it holds the node until its
        // next renew): it marks the lease preempted, binding, and the preemptor is granted after the
        // holder releases or the lease expires. The mark is a CAS on the holder's record.
        warnings.push(...c.warnings);
        const label = preemptorLabel(req.holder, op);
        const mark = reencode(ours, nodeState.uid, {
          annotations: { [ANN_PREEMPTED_BY]: label, [ANN_PREEMPTED_AT]: formatMicroTime(now), [ANN_PREEMPTED_REASON]: req.reason, [ANN_FORCED_BY]: c.audit },
        });
        // A new mark supersedes an earlier withdrawn one.
        delete mark.body.metadata.annotations[ANN_PREEMPTION_WITHDRAWN_BY];
        delete mark.body.metadata.annotations[ANN_PREEMPTION_WITHDRAWN_AT];
        const preempted: PolicyEvent = { type: "lease.preempted", node: req.node, message: c.audit, previous: toNodeLease(ours) };
        const retry = retryFor(v, policy);
        const within = Number.isFinite(v.expiresInSeconds) ? ` (within ${Math.max(1, Math.ceil(v.expiresInSeconds))}s)` : "";
        return refuse("PreemptionPending", `${ours.holder} preempted by ${label}: granted once it releases or its lease expires${within}`, ours, retry, [mark], true, [preempted]);
      }
      transitions = ours.transitions + 1;
    } else {
      // Free or expired after a binding preemption: reserved for the preemptor for a while, so it
      // goes first (on any replica, waiting in line or not) without blocking the node forever.
      if (ours.preemptedBy !== "") {
        if (ours.preemptorHolder === req.holder) completesPreemption = true;
        else {
          const untilMs = view.firstSeenMs(ours) + (Math.max(1, ours.durationSeconds) + policy.skewAllowanceSeconds + policy.defaultRetryAfterSeconds) * 1000;
          if (nowMs < untilMs) {
            const left = Math.max(1, Math.ceil((untilMs - nowMs) / 1000));
            return refuse("PreemptionPending", `${req.node} is reserved for its preemptor ${ours.preemptedBy} for ${left}s`, ours, Math.min(left, policy.defaultRetryAfterSeconds));
          }
        }
      }
      transitions = ours.transitions + 1;
      if (ours.corrupt !== undefined) {
        warnings.push({ code: "CorruptLease", node: req.node, message: `taking over corrupt lease ${ours.namespace}/${ours.name}: ${ours.corrupt}` });
      } else if (v.status === "expired") {
        events.push({ type: "lease.expired", node: req.node, message: `lease of ${ours.holder} expired: ${v.why}`, previous: toNodeLease(ours) });
      }
    }
  }

  // 3. Fairness: earlier waiters for this node, or for the same budget while their node is free, go first.
  if (!renewal) {
    const ahead = waitersAhead(queue, { holder: req.holder, node: req.node, scopes: scopeKeys }, nowMs, (w) => {
      if (!view.heldNodes.has(w.node)) return false;
      const lease = view.nodeLease(w.node);
      return !(lease !== undefined && lease.holder === w.holder);
    }).filter((w) => !(completesPreemption && w.node === req.node)); // the preemptor goes first for its node
    if (ahead.length > 0) {
      const first = ahead[0] as Waiter;
      return refuse("Queued", `${ahead.length} earlier requester(s) waiting (next: ${first.holder} for ${first.node})`, undefined, 1);
    }
  }

  // 4. Budgets: reserve a slot in every scope that bounds this operation, before the node lease.
  const writes: LeaseWrite[] = [];
  for (const scope of scopes) {
    const plan = planSlot(scope, req.node, req.holder, view.slots(scope.key), cluster, view.heldNodes, nowMs, policy);
    if (plan.kind === "blocked") return refuse(plan.code, plan.reason, undefined, plan.retryAfterSeconds);
    const slot = plan.kind === "reuse" ? plan.slot : plan.slot;
    const name = plan.kind === "reuse" ? plan.slot.rec.name : slotLeaseName(scope.key, plan.index);
    const keep = plan.kind === "reuse";
    const prev = slot?.rec;
    writes.push({
      namespace: policy.namespace,
      name,
      expectedResourceVersion: prev ? prev.resourceVersion : null,
      body: encodeLease({
        namespace: policy.namespace, name, kind: "slot", node: req.node, nodeUid: nodeState.uid, holder: req.holder,
        operation: op, reason: req.reason, durationSeconds: req.durationSeconds,
        acquireTime: keep ? (prev?.acquireTime ?? now) : now, renewTime: now,
        transitions: keep ? (prev?.transitions ?? 0) : prev ? prev.transitions + 1 : 0,
        resourceVersion: prev?.resourceVersion, scope: scope.key,
      }),
    });
  }

  // 5. The node lease itself, last.
  const annotations: Record<string, string> = {};
  if (renewal && ours?.preemptionRequestedBy) annotations[ANN_PREEMPT] = ours.preemptionRequestedBy;
  // A withdrawn preemption stays visible to its holder across renewals (until someone else is granted).
  if (renewal && ours?.preemptionWithdrawnBy) {
    annotations[ANN_PREEMPTION_WITHDRAWN_BY] = ours.preemptionWithdrawnBy;
    if (ours.annotations[ANN_PREEMPTION_WITHDRAWN_AT]) annotations[ANN_PREEMPTION_WITHDRAWN_AT] = ours.annotations[ANN_PREEMPTION_WITHDRAWN_AT];
  }
  if (completesPreemption && ours) annotations[ANN_FORCED_BY] = ours.annotations[ANN_FORCED_BY] ?? ours.preemptedBy;
  const leaseBody = encodeLease({
    namespace: policy.namespace, name: req.node, kind: "node", node: req.node, nodeUid: nodeState.uid, holder: req.holder,
    operation: op, reason: req.reason, durationSeconds: req.durationSeconds, acquireTime, renewTime: now, transitions,
    resourceVersion: ours?.resourceVersion, annotations,
  });
  writes.push({ namespace: policy.namespace, name: req.node, expectedResourceVersion: ours ? ours.resourceVersion : null, body: leaseBody });
  queue = dequeue(queue, req.holder, req.node);
  const lease = {
    node: req.node, namespace: policy.namespace, leaseName: req.node, holder: req.holder, operation: req.operation, reason: req.reason,
    acquireTime, renewTime: now, durationSeconds: req.durationSeconds, transitions, foreign: false, resourceVersion: "",
    preemptedBy: "", preemptTime: undefined, preemptionRequestedBy: renewal ? (ours?.preemptionRequestedBy ?? "") : "",
    preemption: undefined, preemptionWithdrawn: renewal && ours ? toNodeLease(ours).preemptionWithdrawn : undefined,
  };
  const preemptionRequestedBy = renewal ? (ours?.preemptionRequestedBy ?? "") : "";
  if (preemptionRequestedBy) {
    warnings.push({ code: "PreemptionRequested", node: req.node, message: `${preemptionRequestedBy} asks ${req.holder} to release ${req.node} at its next safe point` });
  }
  events.unshift({ type: "lease.granted", node: req.node, message: `${req.holder} holds ${req.node} for ${op}${renewal ? " (renewed)" : ""}`, lease });
  events.push(...warnings.map((w): PolicyEvent => ({ type: "warning.raised", node: req.node, message: w.message, warning: w })));
  return { kind: "grant", lease, leaseBody, writes, renewal, preemptionRequestedBy, warnings, events, observations: view.observations, queue };
}
