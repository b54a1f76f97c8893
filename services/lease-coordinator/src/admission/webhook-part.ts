// The lease webhook as a part of the service (the skeleton's ServerPart): bound after gRPC and
// stopped with it, before the coordinator whose holds it reads through LeaseHolds.
import type { ServerPart } from "@lockstep/skeleton";
import { startLeaseWebhook, type LeaseHolds, type LeaseWebhook, type LeaseWebhookOptions } from "./webhook.js";

export interface LeaseWebhookPartOptions extends Omit<LeaseWebhookOptions, "holdOf" | "onBreakGlass" | "onWarning"> {
  /** The coordinator's lease view; break-glass overrides and warned disruptions are audited there. */
  holds: LeaseHolds;
}

export interface LeaseWebhookPart extends ServerPart {
  start(): Promise<LeaseWebhook>;
}

export function leaseWebhookPart(o: LeaseWebhookPartOptions): LeaseWebhookPart {
  const { holds, ...options } = o;
  return {
    name: "webhook",
    start: () =>
      startLeaseWebhook({
        ...options,
        holdOf: (node) => holds.holdOf(node),
        onBreakGlass: (node, message) => holds.auditBreakGlass(node, message),
        onWarning: (node, code, message) => holds.auditBreakGlass(node, message, code),
      }),
  };
}
