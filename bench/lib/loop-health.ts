// Event-loop delay and garbage collection of a service process over a window, read from the
// Node.js metrics prom-client exports on every service's /metrics: nodejs_eventloop_lag_* come from
// perf_hooks.monitorEventLoopDelay and are reset at each scrape, so a scrape at the window's start
// and one at its end give the window's own percentiles; nodejs_gc_duration_seconds is cumulative.

export interface LoopSample {
  /** Event-loop delay p99 since the previous scrape (ms). */
  lagP99Ms: number;
  /** Worst event-loop delay since the previous scrape (ms). */
  lagMaxMs: number;
  /** Cumulative GC pause time (s) and count, over every kind. */
  gcSeconds: number;
  gcCount: number;
}

export interface LoopWindow {
  lagP99Ms: number;
  lagMaxMs: number;
  gcSeconds: number;
  gcCount: number;
}

/** Parses the figures out of a Prometheus text exposition. */
export function parseLoopSample(text: string): LoopSample {
  const out: LoopSample = { lagP99Ms: NaN, lagMaxMs: NaN, gcSeconds: 0, gcCount: 0 };
  for (const line of text.split("\n")) {
    const m = /^(\w+)(\{[^}]*\})?\s+([0-9.eE+-]+|NaN)$/.exec(line);
    if (!m) continue;
    const value = Number(m[3]);
    switch (m[1]) {
      case "nodejs_eventloop_lag_p99_seconds":
        out.lagP99Ms = value * 1000;
        break;
      case "nodejs_eventloop_lag_max_seconds":
        out.lagMaxMs = value * 1000;
        break;
      case "nodejs_gc_duration_seconds_sum":
        out.gcSeconds += value;
        break;
      case "nodejs_gc_duration_seconds_count":
        out.gcCount += value;
        break;
    }
  }
  return out;
}

/** Scrapes a service's /metrics (resetting its event-loop histogram). */
export async function scrapeLoop(metricsUrl: string): Promise<LoopSample> {
  const res = await fetch(metricsUrl);
  if (!res.ok) throw new Error(`scraping ${metricsUrl}: HTTP ${res.status}`);
  return parseLoopSample(await res.text());
}

/** The window between two scrapes: the end's delay figures, the GC totals' difference. */
export function loopWindow(start: LoopSample, end: LoopSample): LoopWindow {
  return { lagP99Ms: end.lagP99Ms, lagMaxMs: end.lagMaxMs, gcSeconds: end.gcSeconds - start.gcSeconds, gcCount: end.gcCount - start.gcCount };
}
