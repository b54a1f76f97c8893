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
