// What the status shows of the cluster's firing alerts, from the last answers of the alerts API:
// the alerts of the latest poll when it succeeded and is recent, else none and a warning insight
// saying monitoring cannot be read. A failed or overdue poll never leaves the previous alerts on
// show as if current (oc without access to monitoring shows no alert insights either). Pure.
import { type AlertsResponse, type HealthInsight, ZERO_TIME } from "@lockstep/insights";

export const R_MONITORING = "https://docs.openshift.com/container-platform/latest/observability/monitoring/accessing-third-party-monitoring-apis.html";

export type AlertsPoll = { atMs: number; ok: true; response: AlertsResponse } | { atMs: number; ok: false; error: string };

export interface AlertsState {
  /** When polling began (an overdue first answer counts from here). */
  startedAtMs: number;
  last?: AlertsPoll;
  /** Start of the current run of failed or overdue polls (the insight's start). */
  failingSinceMs?: number;
}

export interface AlertsView {
  /** The alerts to evaluate; undefined = unavailable (no alert insights). */
  alerts: AlertsResponse | undefined;
  /** The warning about unreachable monitoring, when there is one. */
  insights: HealthInsight[];
}

/** The state after one poll. */
export function recordPoll(state: AlertsState, poll: AlertsPoll): AlertsState {
  if (poll.ok) return { startedAtMs: state.startedAtMs, last: poll };
  return { startedAtMs: state.startedAtMs, last: poll, failingSinceMs: state.failingSinceMs ?? poll.atMs };
}

/** What the status shows at `nowMs`; an answer older than `maxAgeMs` is not current any more. */
export function alertsView(state: AlertsState, nowMs: number, maxAgeMs: number, source: string): AlertsView {
  const last = state.last;
  if (last?.ok && nowMs - last.atMs <= maxAgeMs) return { alerts: last.response, insights: [] };
  if (!last && nowMs - state.startedAtMs <= maxAgeMs) return { alerts: undefined, insights: [] };
  let why: string;
  let sinceMs: number;
  if (!last) {
    why = `no answer yet after ${seconds(nowMs - state.startedAtMs)}`;
    sinceMs = state.startedAtMs;
  } else if (last.ok) {
    why = `the last answer is ${seconds(nowMs - last.atMs)} old`;
    sinceMs = last.atMs + maxAgeMs;
  } else {
    why = last.error;
    sinceMs = state.failingSinceMs ?? last.atMs;
  }
  return {
    alerts: undefined,
    insights: [
      {
        startedAt: sinceMs > 0 ? BigInt(Math.round(sinceMs)) * 1_000_000n : ZERO_TIME,
        scopeType: "Cluster",
        resources: [],
        level: "Warning",
        impact: "Unknown",
        summary: "Cannot read firing alerts from the cluster's monitoring",
        description: `Alerts from ${source} are not available (${why}), so alerts that affect the update are not shown.`,
        reference: R_MONITORING,
      },
    ],
  };
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;
