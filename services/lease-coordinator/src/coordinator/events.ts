// Turns the policy's facts into event-plane messages. Ids are deterministic where the fact is
// idempotent (keyed by the Lease's resourceVersion), so a retry or a second replica noticing the
// same fact publishes it once (Nats-Msg-Id de-duplication).
import { createHash, randomUUID } from "node:crypto";
import { Events, type EventMeta, type NodeLease, type OperationType, type Warning } from "@lockstep/contracts";
import type { PolicyEvent } from "@lockstep/lease-policy";

export interface OutgoingEvent {
  kind: keyof typeof Events;
  id: string;
  message: { meta?: EventMeta } & Record<string, unknown>;
}

export interface EventContext {
  /** Namespace of the node Lease, and resourceVersion of the write that made the fact true. */
  namespace: string;
  writtenRv?: string;
  requester?: string;
  operation?: OperationType;
  retryAfterSeconds?: number;
  /** The lease as written (granted / preempting lease). */
  lease?: NodeLease;
}

function leaseRef(namespace: string, name: string) {
  return { group: "coordination.k8s.io", version: "v1", kind: "Lease", namespace, name, uid: "" };
}

function meta(namespace: string, node: string, id: string): EventMeta {
  return { id, occurredAt: new Date(), source: "lease-coordinator", object: leaseRef(namespace, node), correlationId: "" };
}

const digest = (text: string) => createHash("sha256").update(text).digest("hex").slice(0, 16);

/** The outgoing messages for the facts of one decision (after its writes succeeded). */
export function toOutgoing(events: readonly PolicyEvent[], ctx: EventContext): OutgoingEvent[] {
  const out: OutgoingEvent[] = [];
  const anchor = ctx.writtenRv ? `${ctx.namespace}/${ctx.writtenRv}` : undefined;
  for (const e of events) {
    const idFor = (fact: string, rv: string | undefined) => (rv ? `${fact}/${ctx.namespace}/${e.node}/${rv}` : `${fact}/${randomUUID()}`);
    switch (e.type) {
      case "lease.granted": {
        const id = idFor("lease.granted", ctx.writtenRv);
        const lease = ctx.lease ?? e.lease;
        out.push({ kind: "leaseGranted", id, message: { meta: meta(ctx.namespace, e.node, id), lease, warnings: [] } });
        break;
      }
      case "lease.denied": {
        // The same denial repeated (a requester retrying) is one fact within the stream's
        // de-duplication window, not an event per retry.
        const id = `lease.denied/${ctx.namespace}/${e.node}/${ctx.requester ?? ""}/${digest(e.message)}`;
        out.push({
          kind: "leaseDenied",
          id,
          message: {
            meta: meta(ctx.namespace, e.node, id),
            node: e.node,
            operation: ctx.operation ?? 0,
            requester: ctx.requester ?? "",
            reason: e.message,
            current: e.lease,
            retryAfterSeconds: ctx.retryAfterSeconds ?? 0,
          },
        });
        break;
      }
      case "lease.released": {
        const id = idFor("lease.released", ctx.writtenRv);
        out.push({ kind: "leaseReleased", id, message: { meta: meta(ctx.namespace, e.node, id), lease: e.lease } });
        break;
      }
      case "lease.expired": {
        // Keyed by the expired record itself: the sweeper and a takeover report it once.
        const id = idFor("lease.expired", e.previous?.resourceVersion || undefined);
        out.push({ kind: "leaseExpired", id, message: { meta: meta(ctx.namespace, e.node, id), lease: e.previous } });
        break;
      }
      case "lease.preempted": {
        const id = idFor("lease.preempted", ctx.writtenRv);
        out.push({ kind: "leasePreempted", id, message: { meta: meta(ctx.namespace, e.node, id), previous: e.previous, lease: ctx.lease ?? e.lease, reason: e.message } });
        break;
      }
      case "lease.preemption-withdrawn": {
        // Keyed by the withdrawal's write: a retried answer publishes it once.
        const id = idFor("lease.preemption-withdrawn", ctx.writtenRv);
        const lease = ctx.lease ?? e.lease;
        out.push({ kind: "leasePreemptionWithdrawn", id, message: { meta: meta(ctx.namespace, e.node, id), lease, withdrawn: lease?.preemptionWithdrawn ?? e.previous?.preemption, reason: e.message } });
        break;
      }
      case "warning.raised": {
        const warning: Warning = e.warning ?? { code: "Warning", node: e.node, message: e.message };
        const id = anchor ? `warning.raised/${warning.code}/${e.node}/${anchor}` : `warning.raised/${warning.code}/${e.node}/${digest(warning.message)}`;
        out.push({ kind: "warningRaised", id, message: { meta: meta(ctx.namespace, e.node, id), warning } });
        break;
      }
    }
  }
  return out;
}
