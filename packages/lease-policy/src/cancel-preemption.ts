import type { NodeLease } from "@lockstep/contracts";
import { clusterOf } from "./cluster.js";
import type { PolicyConfig } from "./config.js";
import { reencode } from "./decide.js";
import {
  ANN_FORCED_BY,
  ANN_PREEMPTED_AT,
  ANN_PREEMPTED_BY,
  ANN_PREEMPTED_REASON,
  ANN_PREEMPTION_WITHDRAWN_AT,
  ANN_PREEMPTION_WITHDRAWN_BY,
  formatMicroTime,
  type LeaseWrite,
} from "./lease-record.js";
import { toNodeLease } from "./node-lease.js";
import type { ObservationLog } from "./observations.js";
import type { ObservedState, PolicyEvent } from "./types.js";
import { buildView } from "./view.js";

export type CancelPreemptionDecision =
  | { kind: "cancel"; cancelled: boolean; writes: LeaseWrite[]; events: PolicyEvent[]; current: NodeLease | undefined; observations: ObservationLog }
  | { kind: "deny"; code: "NotPreemptor"; reason: string; current: NodeLease; writes: []; events: []; observations: ObservationLog };

/**
 * A forcer withdraws its pending binding preemption: the mark comes off the node Lease (one CAS
 * write, so it races safely with the holder's release and the preemptor's own grant), the holder may
 * renew again, and a released node is no longer reserved. The withdrawal is recorded on the Lease
 * (kept across the holder's renewals) so a holder that saw the mark learns it is over. Only the
 * preemptor may withdraw; nothing pending is not an error (cancelled: false).
 */
export function decideCancelPreemption(req: { node: string; holder: string }, observed: ObservedState, now: Date, policy: PolicyConfig): CancelPreemptionDecision {
  const view = buildView(observed, now.getTime(), policy);
  const ours = view.nodeLease(req.node);
  if (ours === undefined || ours.preemptedBy === "" || req.holder === "") {
    return { kind: "cancel", cancelled: false, writes: [], events: [], current: ours ? toNodeLease(ours) : undefined, observations: view.observations };
  }
  if (ours.preemptorHolder !== req.holder) {
    const reason = `${req.node} is preempted by ${ours.preemptedBy}, not by ${req.holder}`;
    return { kind: "deny", code: "NotPreemptor", reason, current: toNodeLease(ours), writes: [], events: [], observations: view.observations };
  }
  const nodeUid = clusterOf(observed).node(req.node)?.uid ?? "";
  const write = reencode(ours, nodeUid, { annotations: { [ANN_PREEMPTION_WITHDRAWN_BY]: ours.preemptedBy, [ANN_PREEMPTION_WITHDRAWN_AT]: formatMicroTime(now) } });
  for (const key of [ANN_PREEMPTED_BY, ANN_PREEMPTED_AT, ANN_PREEMPTED_REASON, ANN_FORCED_BY]) delete write.body.metadata.annotations[key];
  const holder = ours.holder === "" ? "the released lease" : ours.holder;
  const event: PolicyEvent = {
    type: "lease.preemption-withdrawn",
    node: req.node,
    message: `${ours.preemptedBy} withdrew its preemption of ${holder} on ${req.node}`,
    previous: toNodeLease(ours),
  };
  return { kind: "cancel", cancelled: true, writes: [write], events: [event], current: toNodeLease(ours), observations: view.observations };
}
