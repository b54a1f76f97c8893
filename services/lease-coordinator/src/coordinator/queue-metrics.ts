// lockstep_lease_queue_waiters: the shared wait queue's length as this replica sees it, read at
// scrape time (every replica reports the same line, so dashboards take max, not sum).
import { Gauge, type Registry } from "prom-client";

export const QUEUE_WAITERS_METRIC = "lockstep_lease_queue_waiters";

export function observeSharedQueue(registry: Registry, queue: () => { size(): number } | undefined): void {
  // One gauge per registry; a rewiring (NATS reconnect) replaces its source.
  if (registry.getSingleMetric(QUEUE_WAITERS_METRIC)) registry.removeSingleMetric(QUEUE_WAITERS_METRIC);
  new Gauge({
    name: QUEUE_WAITERS_METRIC,
    help: "Requesters waiting for a node lease in the wait queue shared by every lease-coordinator replica (entries that count now, as this replica sees them).",
    registers: [registry],
    collect() {
      this.set(queue()?.size() ?? 0);
    },
  });
}
