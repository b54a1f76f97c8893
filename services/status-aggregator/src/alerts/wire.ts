// The alert source attached to an aggregator: the poller reading the alerts API, its alerts fed to
// the same rules oc uses (the view's evaluation), its "cannot read" warning among Lockstep's insights.
import { readFile } from "node:fs/promises";
import type { Runnable } from "@lockstep/runtime";
import type { Logger } from "pino";
import type { Aggregator } from "../aggregator/aggregator.js";
import { fetchAlerts } from "./fetch-alerts.js";
import { AlertsPoller } from "./poller.js";

export interface AlertsSourceOptions {
  url: string;
  tokenFile?: string | undefined;
  caFile?: string | undefined;
  intervalMs: number;
  maxAgeMs: number;
}

/** Reads the CA file once (a missing file fails the start, with its name). */
export async function alertsRunnable(aggregator: Aggregator, logger: Logger, o: AlertsSourceOptions): Promise<Runnable> {
  let ca: string | undefined;
  if (o.caFile) {
    try {
      ca = await readFile(o.caFile, "utf8");
    } catch (err) {
      throw new Error(`ALERTS_CA_FILE: cannot read ${o.caFile}: ${(err as Error).message}`);
    }
  }
  const poller = attachAlertsPoller(aggregator, logger, {
    ...o,
    read: (signal) => fetchAlerts({ url: o.url, timeoutMs: Math.min(10_000, o.intervalMs), ...(o.tokenFile ? { tokenFile: o.tokenFile } : {}), ...(ca ? { ca } : {}) }, signal),
  });
  return poller.runnable();
}

export function attachAlertsPoller(
  aggregator: Aggregator,
  logger: Logger,
  o: Pick<AlertsSourceOptions, "url" | "intervalMs" | "maxAgeMs"> & { read: ConstructorParameters<typeof AlertsPoller>[0]["read"]; now?: () => number },
): AlertsPoller {
  const poller = new AlertsPoller({
    read: o.read,
    source: o.url,
    intervalMs: o.intervalMs,
    maxAgeMs: o.maxAgeMs,
    logger,
    // Watchers see a new answer (or its loss) at once, not at their next refresh.
    onPoll: () => aggregator.refresh(),
    ...(o.now ? { now: o.now } : {}),
  });
  aggregator.attachAlerts(() => poller.view().alerts);
  aggregator.addInsightSource(() => poller.view().insights);
  return poller;
}
