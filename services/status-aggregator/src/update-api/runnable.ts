// The writer inside the status-aggregator process: it consumes the aggregator's snapshots in memory
// (no second copy of the state plane at 10,000 nodes) and starts writing once the view is synced.
import type { KubeConfigLike } from "@lockstep/kube";
import type { Runnable } from "@lockstep/runtime";
import { whenLeading, type LeaderGate } from "@lockstep/skeleton";
import type { Logger } from "pino";
import { Counter, Gauge, type Registry } from "prom-client";
import type { Aggregator } from "../aggregator/aggregator.js";
import { insightApi } from "./client.js";
import { modeInsights } from "./mode-insight.js";
import { type ApiMode, CRD_NAMES } from "./stand-back.js";
import { UpdateApiWriter, type WriterHooks } from "./writer.js";

const MODES: ApiMode[] = ["writing", "standing-back", "crds-missing"];

export function writerMetrics(registry: Registry): WriterHooks {
  const writes = new Counter({
    name: "lockstep_update_api_writes_total",
    help: "Update Status API writes, by kind and verb (create, status, delete)",
    labelNames: ["kind", "verb"],
    registers: [registry],
  });
  const mode = new Gauge({
    name: "lockstep_update_api_mode",
    help: "1 for the Update Status API writer's mode: writing, standing-back (the cluster's own controller owns the API) or crds-missing",
    labelNames: ["mode"],
    registers: [registry],
  });
  const backlog = new Gauge({ name: "lockstep_update_api_pass_objects", help: "Objects compared in the last writer pass", registers: [registry] });
  return {
    onWrite: (kind, verb) => writes.inc({ kind, verb }),
    onMode: (m) => {
      for (const x of MODES) mode.set({ mode: x }, x === m ? 1 : 0);
    },
    onBacklog: (n) => backlog.set(n),
  };
}

function combineHooks(a: WriterHooks | undefined, b: WriterHooks | undefined): WriterHooks | undefined {
  if (!a || !b) return a ?? b;
  return {
    onWrite: (kind, verb, name) => (a.onWrite?.(kind, verb, name), b.onWrite?.(kind, verb, name)),
    onMode: (m) => (a.onMode?.(m), b.onMode?.(m)),
    onBacklog: (n) => (a.onBacklog?.(n), b.onBacklog?.(n)),
    onChecked: (d) => (a.onChecked?.(d), b.onChecked?.(d)),
  };
}

export interface UpdateApiRunnableOptions {
  aggregator: Aggregator;
  kc: KubeConfigLike;
  logger: Logger;
  writesPerSecond: number;
  writeBurst: number;
  refreshMs: number;
  resyncMs: number;
  registry?: Registry;
  /** Extra hooks (tests); the metrics hooks come from `registry`. */
  hooks?: WriterHooks;
  /** Which replica writes; none: this one (one replica). */
  leader?: LeaderGate;
  /** Receives the writer once created (tests, the bench). */
  onWriter?: (writer: UpdateApiWriter) => void;
}

export function updateApiRunnable(o: UpdateApiRunnableOptions): Runnable {
  return {
    name: "update-status-api",
    async start(signal) {
      // Created once: a second term must not register the metrics again.
      const hooks = combineHooks(o.registry ? writerMetrics(o.registry) : undefined, o.hooks);
      // Only the leader writes the Update Status objects; every replica keeps the view they come from.
      await whenLeading(o.leader, "update-status-api", signal, (term) => writeWhileLeading(o, hooks, term));
    },
  };
}

async function writeWhileLeading(o: UpdateApiRunnableOptions, metricHooks: WriterHooks | undefined, signal: AbortSignal): Promise<void> {
  // The mode's insight is read at each snapshot: a new one as soon as the mode is known or changes.
  let shown = "";
  const refreshOnMode: WriterHooks = {
    onChecked: (d) => {
      const now = `${d.mode}\u0000${d.detail}`;
      if (now === shown) return;
      shown = now;
      o.aggregator.refresh();
    },
  };
  const hooks = combineHooks(metricHooks, refreshOnMode);
  const writer = new UpdateApiWriter({
    api: insightApi(o.kc),
    source: o.aggregator,
    logger: o.logger,
    writesPerSecond: o.writesPerSecond,
    writeBurst: o.writeBurst,
    refreshMs: o.refreshMs,
    resyncMs: o.resyncMs,
    hooks,
  });
  o.onWriter?.(writer);
  // `lockstep status` says when (and why) nothing is written.
  const off = o.aggregator.addInsightSource(() => (writer.checked ? modeInsights(writer.mode, CRD_NAMES) : []));
  try {
    await firstSnapshot(o.aggregator, signal);
    if (signal.aborted) return;
    await writer.run(signal);
  } finally {
    off();
    o.aggregator.refresh(); // no longer writing here: the mode's insight goes with the next answer
  }
}

/** Resolves once the aggregator has its first snapshot (the initial sync), or the signal aborts. */
function firstSnapshot(aggregator: Aggregator, signal: AbortSignal): Promise<void> {
  if (aggregator.current() || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const off = aggregator.subscribe(done);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      off();
      signal.removeEventListener("abort", done);
      resolve();
    }
  });
}
