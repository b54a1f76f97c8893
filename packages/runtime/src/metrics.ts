import { collectDefaultMetrics, Counter, Gauge, Registry } from "prom-client";

/** Options for {@link createMetricsRegistry}. */
export interface MetricsOptions {
  /** Added as a `service` label to every metric. */
  service?: string;
  /** Collect Node process metrics (CPU, memory, event-loop lag, GC). Default true. */
  defaultMetrics?: boolean;
}

/**
 * A prom-client registry for one service. A registry of its own (not prom-client's global one)
 * keeps tests and several components in one process independent.
 */
export function createMetricsRegistry(options: MetricsOptions = {}): Registry {
  const registry = new Registry();
  if (options.service) registry.setDefaultLabels({ service: options.service });
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  return registry;
}

const COUNTERS = [
  ["adds", "lockstep_workqueue_adds_total", "Keys added to the work queue (coalesced adds included)."],
  ["processed", "lockstep_workqueue_processed_total", "Reconciles finished, any outcome."],
  ["retries", "lockstep_workqueue_retries_total", "Transient failures retried with backoff."],
  ["terminal", "lockstep_workqueue_terminal_errors_total", "Terminal errors, not retried."],
  ["parked", "lockstep_workqueue_parked_total", "Keys parked after too many failures in a row."],
] as const;
const GAUGES = [
  ["depth", "lockstep_workqueue_depth", "Keys ready to be processed."],
  ["inFlight", "lockstep_workqueue_in_flight", "Keys being processed."],
  ["delayed", "lockstep_workqueue_delayed", "Keys waiting on a timer (requeue-after, backoff)."],
] as const;

/** The part of a `@lockstep/reconcile` WorkQueue that {@link observeWorkQueue} reads: the fields above. */
export interface ObservableQueue {
  readonly name: string;
  readonly metrics: Record<(typeof COUNTERS)[number][0] | (typeof GAUGES)[number][0], number>;
}

const observed = new WeakMap<Registry, Set<ObservableQueue>>();

/**
 * Exposes a work queue's counters on `registry`, labelled `queue=<name>`, read at scrape time.
 * Several queues may share one registry.
 */
export function observeWorkQueue(registry: Registry, queue: ObservableQueue): void {
  let queues = observed.get(registry);
  if (!queues) {
    const all = new Set<ObservableQueue>();
    queues = all;
    observed.set(registry, all);
    // One series per queue, rebuilt from the queues' numbers at each scrape.
    const perQueue = (name: string, help: string) => ({ name, help, labelNames: ["queue"], registers: [registry] });
    for (const [field, name, help] of COUNTERS)
      new Counter({
        ...perQueue(name, help),
        collect() {
          this.reset();
          for (const q of all) this.inc({ queue: q.name }, q.metrics[field]);
        },
      });
    for (const [field, name, help] of GAUGES)
      new Gauge({
        ...perQueue(name, help),
        collect() {
          this.reset();
          for (const q of all) this.set({ queue: q.name }, q.metrics[field]);
        },
      });
  }
  queues.add(queue);
}
