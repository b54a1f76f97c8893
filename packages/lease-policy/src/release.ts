import type { AcquireRequest, NodeLease } from "@lockstep/contracts";
import { clusterOf } from "./cluster.js";
import type { PolicyConfig } from "./config.js";
import { reencode } from "./decide.js";
import { decide } from "./decide.js";
import { ANN_PREEMPT, ANN_RELEASED_AT, formatMicroTime, type LeaseWrite } from "./lease-record.js";
import { toNodeLease } from "./node-lease.js";
import { parseOperation } from "./operations.js";
import type { ObservationLog } from "./observations.js";
import type { Decision, ObservedState, PolicyEvent } from "./types.js";
import { buildView } from "./view.js";

export type ReleaseDecision =
  | { kind: "release"; writes: LeaseWrite[]; events: PolicyEvent[]; observations: ObservationLog }
  | { kind: "deny"; code: "AlreadyHeld"; reason: string; current: NodeLease; writes: []; events: PolicyEvent[]; observations: ObservationLog };

/**
 * Release by the holder: the node Lease keeps its object but gets no holder and a 1 s duration
 * (a duration of 0 is rejected by the API server), then the budget slots are freed and stamped with
 * released-at so pool spacing survives restarts. Only the holder may release, even an expired lease
 * (medik8s' rule); releasing a free lease succeeds without writing.
 */
export function decideRelease(req: { node: string; holder: string }, observed: ObservedState, now: Date, policy: PolicyConfig): ReleaseDecision {
  const view = buildView(observed, now.getTime(), policy);
  const nodeUid = clusterOf(observed).node(req.node)?.uid ?? "";
  const ours = view.nodeLease(req.node);
  if (ours !== undefined && ours.holder !== "" && ours.holder !== req.holder) {
    const reason = `${req.node} is held by ${ours.holder}, not ${req.holder}`;
    return { kind: "deny", code: "AlreadyHeld", reason, current: toNodeLease(ours), writes: [], events: [], observations: view.observations };
  }
  const stamp = { [ANN_RELEASED_AT]: formatMicroTime(now) };
  const writes: LeaseWrite[] = [];
  const events: PolicyEvent[] = [];
  if (ours !== undefined && ours.holder === req.holder && req.holder !== "") {
    const released = reencode(ours, nodeUid, { holder: "", durationSeconds: 1, acquireTime: now, renewTime: now, annotations: stamp });
    delete released.body.metadata.annotations[ANN_PREEMPT];
    writes.push(released);
    events.push({ type: "lease.released", node: req.node, message: `${req.holder} released ${req.node}`, lease: toNodeLease(ours) });
  }
  for (const slot of view.records) {
    if (slot.kind !== "slot" || slot.holder !== req.holder || slot.node !== req.node || req.holder === "") continue;
    writes.push(reencode(slot, nodeUid, { holder: "", durationSeconds: 1, acquireTime: now, renewTime: now, annotations: stamp }));
  }
  return { kind: "release", writes, events, observations: view.observations };
}

/**
 * Renew by the current holder only: never an acquire in disguise, so a holder that lost its lease
 * learns it (AlreadyHeld) instead of silently re-taking the node.
 */
export function decideRenew(req: { node: string; holder: string; durationSeconds?: number }, observed: ObservedState, now: Date, policy: PolicyConfig): Decision {
  const view = buildView(observed, now.getTime(), policy);
  const ours = view.nodeLease(req.node);
  if (ours === undefined || ours.holder !== req.holder || req.holder === "") {
    const reason = ours?.holder ? `${req.node} is held by ${ours.holder}, not ${req.holder}` : `${req.holder} does not hold ${req.node}`;
    return {
      kind: "deny", code: "AlreadyHeld", reason, current: ours ? toNodeLease(ours) : undefined, retryAfterSeconds: 0, writes: [], warnings: [],
      events: [{ type: "lease.denied", node: req.node, message: reason }], observations: view.observations, queue: [...(observed.queue ?? [])],
    };
  }
  const acquire: AcquireRequest = {
    node: req.node, holder: req.holder, reason: ours.reason,
    operation: parseOperation(ours.operation ?? "") ?? 0,
    durationSeconds: req.durationSeconds ?? ours.durationSeconds, waitSeconds: 0, force: false,
  };
  return decide(acquire, { ...observed, observations: view.observations }, now, policy);
}
