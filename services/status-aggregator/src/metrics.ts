import type { PoolSummary } from "@lockstep/insights";
import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { AggregatorHooks } from "./aggregator/aggregator.js";

export interface AggregatorMetrics {
  recompute: Histogram;
  nodes: Gauge;
  nodeEvaluations: Counter;
  published: Counter<"result">;
}

export function aggregatorMetrics(registry: Registry): AggregatorMetrics {
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
  };
}

/** Hooks that feed the metrics (composed with the publishing hook in the runnable). */
export function metricsHooks(m: AggregatorMetrics): Pick<AggregatorHooks, "onFlush" | "onPublished"> {
  return {
    onFlush: (result, ms, nodes) => {
      m.recompute.observe(ms / 1000);
      m.nodes.set(nodes);
      m.nodeEvaluations.inc(result.changed.length);
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
 * Per-pool node counts, read from the view at scrape time (no series for a deleted pool), and when
 * each pool last moved: what the stalled-update and degraded-pool alerts compare.
 */
export function poolMetrics(registry: Registry, view: PoolSource, nowMs: () => number = Date.now): void {
  const progress = new PoolProgress();
  const perPool = (name: string, help: string, read: (s: PoolSummary, pool: string) => number) =>
    new Gauge({
      name,
      help,
      labelNames: ["pool"],
      registers: [registry],
      collect() {
        this.reset();
        for (const pool of view.poolNames()) {
          const s = view.poolSummary(pool);
          if (s) this.set({ pool }, read(s, pool));
        }
      },
    });
  perPool("lockstep_status_pool_nodes", "Nodes the pool selects", (s) => s.counters.total);
  perPool("lockstep_status_pool_updated_nodes", "Nodes of the pool that run the desired version", (s) => s.counters.updated);
  perPool("lockstep_status_pool_degraded_nodes", "Nodes of the pool assessed Degraded", (s) => s.counters.degraded);
  perPool("lockstep_status_pool_paused", "1 when the pool is paused, else 0", (s) => (s.paused ? 1 : 0));
  perPool(
    "lockstep_status_pool_last_progress_timestamp_seconds",
    "Unix time the pool's count of updated nodes last changed (first seen by this process before that); a node cycling between draining and degraded is no progress",
    (s, pool) => progress.at(pool, s.counters.updated, nowMs()) / 1000,
  );
}

/** When each pool's updated count last changed, as seen at successive reads. */
export class PoolProgress {
  private readonly last = new Map<string, { updated: number; atMs: number }>();

  at(pool: string, updated: number, nowMs: number): number {
    const seen = this.last.get(pool);
    if (seen && seen.updated === updated) return seen.atMs;
    this.last.set(pool, { updated, atMs: nowMs });
    return nowMs;
  }
}
