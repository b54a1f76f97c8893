// The lease webhook as a part of the service (the skeleton's ServerPart): bound after gRPC and
// stopped with it, before the coordinator whose holds it reads through LeaseHolds.
import type { ServerPart } from "@lockstep/skeleton";
import { startLeaseWebhook, type LeaseWebhook, type LeaseWebhookOptions } from "./webhook.js";

export interface LeaseWebhookPart extends ServerPart {
  start(): Promise<LeaseWebhook>;
}

export function leaseWebhookPart(o: LeaseWebhookOptions): LeaseWebhookPart {
  return { name: "webhook", start: () => startLeaseWebhook(o) };
}
