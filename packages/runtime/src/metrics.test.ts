import { describe, expect, it } from "vitest";
import { createMetricsRegistry, observeWorkQueue, type ObservableQueue } from "./metrics.js";

function fakeQueue(name: string): ObservableQueue & { metrics: ObservableQueue["metrics"] } {
  return {
    name,
    metrics: { adds: 0, processed: 0, retries: 0, terminal: 0, parked: 0, depth: 0, inFlight: 0, delayed: 0 },
  };
}

describe("observeWorkQueue", () => {
  it("reads each queue's counters at scrape time, labelled by queue", async () => {
    const registry = createMetricsRegistry({ defaultMetrics: false });
    const a = fakeQueue("leases");
    const b = fakeQueue("skew");
    observeWorkQueue(registry, a);
    observeWorkQueue(registry, b);
    a.metrics.adds = 7;
    a.metrics.depth = 2;
    b.metrics.retries = 3;
    let text = await registry.metrics();
    expect(text).toContain('lockstep_workqueue_adds_total{queue="leases"} 7');
    expect(text).toContain('lockstep_workqueue_depth{queue="leases"} 2');
    expect(text).toContain('lockstep_workqueue_retries_total{queue="skew"} 3');
    a.metrics.adds = 9;
    text = await registry.metrics();
    expect(text).toContain('lockstep_workqueue_adds_total{queue="leases"} 9');
  });
});
