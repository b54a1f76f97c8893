import { Counter, Histogram, type Registry } from "prom-client";

export interface WatcherMetrics {
  events: Counter<"resource" | "type">;
  written: Counter<"op">;
  suppressed: Counter;
  stale: Counter<"op">;
  relists: Counter<"resource">;
  errors: Counter<"resource" | "stage">;
  lag: Histogram;
  heartbeats: Counter<"result">;
}

export function watcherMetrics(registry: Registry): WatcherMetrics {
  return {
    events: new Counter({ name: "lockstep_watcher_watch_events_total", help: "Watch events received", labelNames: ["resource", "type"], registers: [registry] }),
    written: new Counter({ name: "lockstep_watcher_snapshots_written_total", help: "State-plane writes (put or delete)", labelNames: ["op"], registers: [registry] }),
    suppressed: new Counter({ name: "lockstep_watcher_snapshots_suppressed_total", help: "Events whose snapshot was unchanged", registers: [registry] }),
    stale: new Counter({
      name: "lockstep_watcher_snapshots_stale_total",
      help: "State-plane writes not made because the bucket held a newer version of the object (written by another watcher)",
      labelNames: ["op"],
      registers: [registry],
    }),
    relists: new Counter({ name: "lockstep_watcher_relists_total", help: "Complete lists applied", labelNames: ["resource"], registers: [registry] }),
    errors: new Counter({ name: "lockstep_watcher_errors_total", help: "List/watch, normalisation and write errors", labelNames: ["resource", "stage"], registers: [registry] }),
    lag: new Histogram({
      name: "lockstep_watcher_event_to_kv_seconds",
      help: "Time from receiving an API event to its state-plane write being acknowledged",
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    heartbeats: new Counter({ name: "lockstep_watcher_heartbeats_total", help: "Heartbeat rounds: written, withheld (watches or writes not current) or failed", labelNames: ["result"], registers: [registry] }),
  };
}
