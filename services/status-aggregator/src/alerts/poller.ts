// The alert source's loop: reads the alerts API every interval and keeps the last answer (see
// alerts-view.ts for what is shown of it). Each replica reads on its own: every replica answers
// status queries, and one GET per interval is cheap next to a second copy of the answer on the bus.
import type { Runnable } from "@lockstep/runtime";
import type { Logger } from "pino";
import { type AlertsState, type AlertsView, alertsView, recordPoll } from "./alerts-view.js";
import type { AlertsResponse } from "@lockstep/insights";

export interface AlertsPollerOptions {
  /** One read of the alerts API (fetchAlerts bound to its options; tests pass their own). */
  read: (signal: AbortSignal) => Promise<AlertsResponse>;
  /** Named in the unreachable insight and the logs (the URL). */
  source: string;
  intervalMs: number;
  maxAgeMs: number;
  logger: Logger;
  /** Called after every poll (the aggregator refreshes its watchers). */
  onPoll?: () => void;
  now?: () => number;
}

export class AlertsPoller {
  private state: AlertsState;
  private readonly now: () => number;

  constructor(private readonly o: AlertsPollerOptions) {
    this.now = o.now ?? Date.now;
    this.state = { startedAtMs: this.now() };
  }

  /** What the status shows now. */
  view(): AlertsView {
    return alertsView(this.state, this.now(), this.o.maxAgeMs, this.o.source);
  }

  /** One poll: the answer or the failure is recorded, never thrown. */
  async poll(signal: AbortSignal): Promise<void> {
    const wasOk = this.state.last?.ok;
    // A signal per poll: the HTTP client's listener goes with it, not onto the long-lived one.
    const one = new AbortController();
    const abort = () => one.abort();
    signal.addEventListener("abort", abort, { once: true });
    try {
      const response = await this.o.read(one.signal);
      this.state = recordPoll(this.state, { atMs: this.now(), ok: true, response });
      if (wasOk !== true) this.o.logger.info({ source: this.o.source, alerts: response.data?.alerts?.length ?? 0 }, "alerts readable");
    } catch (err) {
      if (signal.aborted) return;
      const error = err instanceof Error ? err.message : String(err);
      this.state = recordPoll(this.state, { atMs: this.now(), ok: false, error });
      // Logged when it starts failing, not at every poll of an outage.
      if (wasOk !== false) this.o.logger.warn({ source: this.o.source, error }, "alerts not readable");
    } finally {
      signal.removeEventListener("abort", abort);
    }
    this.o.onPoll?.();
  }

  runnable(): Runnable {
    return {
      name: "alerts",
      start: async (signal) => {
        while (!signal.aborted) {
          await this.poll(signal);
          await sleep(this.o.intervalMs, signal);
        }
      },
    };
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      resolve();
    };
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
  });
}
