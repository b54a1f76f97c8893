import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { observeSharedQueue, QUEUE_WAITERS_METRIC } from "./queue-metrics.js";

describe("lockstep_lease_queue_waiters", () => {
  it("reports the shared queue's waiters at scrape time, 0 while there is no queue, and a rewiring replaces its source", async () => {
    const registry = new Registry();
    let size = 3;
    let queue: { size(): number } | undefined;
    observeSharedQueue(registry, () => queue);
    expect(await registry.getSingleMetricAsString(QUEUE_WAITERS_METRIC)).toContain(`${QUEUE_WAITERS_METRIC} 0`);
    queue = { size: () => size };
    expect(await registry.getSingleMetricAsString(QUEUE_WAITERS_METRIC)).toContain(`${QUEUE_WAITERS_METRIC} 3`);
    size = 1;
    observeSharedQueue(registry, () => ({ size: () => size + 1 }));
    expect(await registry.getSingleMetricAsString(QUEUE_WAITERS_METRIC)).toContain(`${QUEUE_WAITERS_METRIC} 2`);
  });
});
