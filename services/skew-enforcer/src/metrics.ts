import { Counter, Gauge, type Registry } from "prom-client";

export interface SkewMetrics {
  evaluations: Counter;
  upgradeable: Gauge;
  /** Upstream's `mcc_boot_image_skew_enforcement_none` (mco-behaviors.md §3.16). */
  enforcementNone: Gauge;
  updateComplete: Gauge;
  statusWrites: Counter<"result">;
  events: Counter<"type">;
}

export function skewMetrics(registry: Registry): SkewMetrics {
  return {
    evaluations: new Counter({ name: "lockstep_skew_evaluations_total", help: "Skew evaluations of the cluster", registers: [registry] }),
    upgradeable: new Gauge({ name: "lockstep_skew_upgradeable", help: "1 when ClusterOperator lockstep is Upgradeable=True, else 0", registers: [registry] }),
    enforcementNone: new Gauge({
      name: "lockstep_skew_boot_image_enforcement_none",
      help: "1 when boot image skew enforcement is mode None on a cluster that is neither single-node nor BareMetal",
      registers: [registry],
    }),
    updateComplete: new Gauge({ name: "lockstep_skew_update_complete", help: "1 when every node in every pool runs the desired version", registers: [registry] }),
    statusWrites: new Counter({
      name: "lockstep_skew_cluster_operator_writes_total",
      help: "ClusterOperator lockstep status writes by result (written, conflict, refused, created)",
      labelNames: ["result"],
      registers: [registry],
    }),
    events: new Counter({ name: "lockstep_skew_events_published_total", help: "Facts published on the event plane", labelNames: ["type"], registers: [registry] }),
  };
}
