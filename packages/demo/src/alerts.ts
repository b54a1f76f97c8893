// Lockstep's own alerts in the demo's event log: a real Prometheus (when one can be found) scrapes
// the demo's services and evaluates the chart's PrometheusRule with thresholds cut for a demo that
// lasts minutes; its alerts API is polled and every Lockstep alert that starts or stops firing
// becomes a line of the log. Optional: without prometheus (or helm to render the rules) the demo
// says so once and carries on.
import { findTool, renderChartRules, startPrometheus, type PrometheusAlert, type RunningPrometheus, type RunningSystem } from "@lockstep/launcher";
import type { EventLog } from "./events.js";

/**
 * The chart's alert thresholds for the demo (values of global.metrics.prometheusRule): the chart's
 * defaults are minutes to hours, the demo's stalls last seconds. A pool that has not moved for 15 s
 * is "stalled", a lease held 2 minutes too long; a degraded node, a refused minor upgrade, a parked
 * key or three webhook refusals of one requester alert at once.
 */
export const DEMO_ALERT_VALUES = {
  serviceDown: { for: "10s" },
  stateStale: { seconds: 30, for: "0s" },
  updateStalled: { seconds: 15, for: "0s" },
  nodeDegraded: { for: "0s" },
  reconcileFailing: { for: "0s" },
  upgradeBlocked: { for: "0s" },
  bootImageSkewUnchecked: { for: "0s" },
  leaseHeldTooLong: { seconds: 120, for: "0s" },
  preemptionPending: { seconds: 30, for: "0s" },
  budgetAtLimit: { for: "10s" },
  // The MCO refused on the node under maintenance: a few refusals already say "refusing over and over".
  webhookRefusals: { count: 3, for: "0s" },
  machineSetPatchFailing: { count: 1, for: "0s" },
};

/** One firing alert's identity: its name and labels (the same alert for another pool is another). */
export function alertKey(a: Pick<PrometheusAlert, "labels">): string {
  return JSON.stringify(Object.entries(a.labels).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)));
}

/** Lockstep's alerts that are firing (pending ones have not fired yet), by key. */
export function firingLockstepAlerts(alerts: PrometheusAlert[]): Map<string, PrometheusAlert> {
  return new Map(alerts.filter((a) => a.state === "firing" && a.labels.alertname?.startsWith("Lockstep")).map((a) => [alertKey(a), a]));
}

/** What changed between two polls: alerts that started firing and alerts that stopped. */
export function alertChanges(before: Map<string, PrometheusAlert>, now: Map<string, PrometheusAlert>): { started: PrometheusAlert[]; stopped: PrometheusAlert[] } {
  return {
    started: [...now].filter(([k]) => !before.has(k)).map(([, a]) => a),
    stopped: [...before].filter(([k]) => !now.has(k)).map(([, a]) => a),
  };
}

/** The event log's line for an alert that started ("firing") or stopped ("resolved") firing. */
export function describeAlert(kind: "firing" | "resolved", a: PrometheusAlert): string {
  const summary = a.annotations?.summary;
  return `alert ${kind}: ${a.labels.alertname}${summary ? ` — ${summary}` : ""}`;
}

export interface DemoAlerts {
  /** Prometheus's address when it runs. */
  url: string | undefined;
  /** Why there are no alerts in this run, when there are none. */
  unavailable: string | undefined;
  stop(): Promise<void>;
}

export interface DemoAlertsOptions {
  system: Pick<RunningSystem, "replicas">;
  events: EventLog;
  env?: NodeJS.ProcessEnv;
  /** Poll interval, ms (default 1000). */
  pollMs?: number;
  log?(line: string): void;
}

/**
 * Starts Prometheus against the system and feeds the event log (facts `alert.firing` and
 * `alert.resolved`, the alert as the message) until stop(). Never throws for a missing or failing
 * Prometheus: that is `unavailable`, and a poll that fails is retried at the next one.
 */
export async function startDemoAlerts(o: DemoAlertsOptions): Promise<DemoAlerts> {
  const log = o.log ?? (() => {});
  const prometheusBin = findTool("prometheus", "prometheus", o.env);
  const helm = findTool("helm", undefined, o.env);
  const none = (why: string): DemoAlerts => ({ url: undefined, unavailable: why, stop: async () => {} });
  if (!prometheusBin) return none("prometheus not found (PROMETHEUS_BIN, .tools/prometheus or PATH; node scripts/prometheus.mjs installs it)");
  if (!helm) return none("helm not found to render the chart's alert rules (HELM_BIN, .tools/helm or PATH)");
  let prom: RunningPrometheus;
  try {
    const rules = renderChartRules({ helm, values: DEMO_ALERT_VALUES, check: ["> 15"] });
    prom = await startPrometheus({ binary: prometheusBin, rules, system: o.system, interval: "1s" });
  } catch (err) {
    return none(`prometheus could not be started: ${(err as Error).message.split("\n")[0]}`);
  }
  log(`prometheus ${prom.url} (pid ${prom.pid}) evaluating the chart's alert rules with demo thresholds (stalled after 15 s, no 'for' holds)`);
  let firing = new Map<string, PrometheusAlert>();
  let stopped = false;
  const poll = async () => {
    let now: Map<string, PrometheusAlert>;
    try {
      now = firingLockstepAlerts(await prom.alerts());
    } catch {
      return; // Not answering this time: the next poll tells; nothing is claimed resolved meanwhile.
    }
    const { started, stopped: ended } = alertChanges(firing, now);
    for (const a of started) o.events.note("alert.firing", describeAlert("firing", a), a);
    for (const a of ended) o.events.note("alert.resolved", describeAlert("resolved", a), a);
    firing = now;
  };
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const schedule = () => {
    timer = setTimeout(() => {
      running = poll().finally(() => !stopped && schedule());
    }, o.pollMs ?? 1000);
  };
  schedule();
  return {
    url: prom.url,
    unavailable: undefined,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await running;
      await prom.stop();
    },
  };
}
