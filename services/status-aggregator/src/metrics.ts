import type { PoolSummary } from "@lockstep/insights";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { AggregatorHooks } from "./aggregator/aggregator.js";

export interface AggregatorMetrics {
  recompute: Histogram;
  nodes: Gauge;
  nodeEvaluations: Counter;
  published: Counter<"result">;
  lastTransition: Gauge;
}

export function aggregatorMetrics(registry: Registry): AggregatorMetrics {
  const lastTransition = new Gauge({
    name: "lockstep_status_last_node_transition_timestamp_seconds",
    help: "Unix time of the last change of any node's phase or assessment (this process's start before the first); the stalled-update alert reads it",
    registers: [registry],
  });
  // A restarted replica has seen no transition yet: its start is the bound, so it does not page at once.
  lastTransition.set(Date.now() / 1000);
  return {
    recompute: new Histogram({
      name: "lockstep_status_recompute_seconds",
      help: "Time to recompute what a batch of state-plane changes touched",
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5],
      registers: [registry],
    }),
    nodes: new Gauge({ name: "lockstep_status_nodes", help: "Nodes in the status view", registers: [registry] }),
    nodeEvaluations: new Counter({ name: "lockstep_status_node_evaluations_total", help: "Node rows recomputed", registers: [registry] }),
    published: new Counter({ name: "lockstep_status_events_published_total", help: "insight.changed events published", labelNames: ["result"], registers: [registry] }),
    lastTransition,
  };
}

/** Hooks that feed the metrics (composed with the publishing hook in the runnable). */
export function metricsHooks(m: AggregatorMetrics, nowMs: () => number = Date.now): Pick<AggregatorHooks, "onFlush" | "onPublished"> {
  return {
    onFlush: (result, ms, nodes) => {
      m.recompute.observe(ms / 1000);
      m.nodes.set(nodes);
      m.nodeEvaluations.inc(result.changed.length);
      if (result.transitions.length > 0) m.lastTransition.set(nowMs() / 1000);
    },
    onPublished: (ok) => m.published.inc({ result: ok ? "ok" : "error" }),
  };
}

/** What the per-pool gauges read at scrape time (the aggregator's view). */
export interface PoolSource {
  poolNames(): string[];
  poolSummary(name: string): PoolSummary | undefined;
}

/**
 * Per-pool node counts, read from the view at scrape time (no series for a deleted pool): what
 * the stalled-update and degraded-pool alerts compare.
 */
export function poolMetrics(registry: Registry, view: PoolSource): void {
  const perPool = (name: string, help: string, read: (s: PoolSummary) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["pool"],
      registers: [registry],
      collect() {
        this.reset();
        for (const pool of view.poolNames()) {
          const s = view.poolSummary(pool);
          if (s) this.set({ pool }, read(s));
        }
      },
    });
  perPool("lockstep_status_pool_nodes", "Nodes the pool selects", (s) => s.counters.total);
  perPool("lockstep_status_pool_updated_nodes", "Nodes of the pool that run the desired version", (s) => s.counters.updated);
  perPool("lockstep_status_pool_degraded_nodes", "Nodes of the pool assessed Degraded", (s) => s.counters.degraded);
  perPool("lockstep_status_pool_paused", "1 when the pool is paused, else 0", (s) => (s.paused ? 1 : 0));
}
