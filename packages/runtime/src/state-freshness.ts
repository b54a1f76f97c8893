/**
 * Freshness of a consumer's view of the state plane, wired for one service: a readiness check
 * `state-fresh` that fails while the view is older than the bound (STATE_MAX_AGE), the gauge
 * `lockstep_state_age_seconds`, a log line at each change, and listeners for services that must act
 * on the change (wake waiting requests, re-evaluate what they refused to write while stale).
 *
 * The age itself comes from the caller (`@lockstep/bus`'s StateCache.age()): this package does not
 * depend on the bus.
 */
import { Gauge, type Registry } from "prom-client";
import type { Logger } from "pino";
import type { Readiness } from "./readiness.js";

/** What the state age source reports: ms since the last heartbeat received (or since start). */
export interface StateAgeSource {
  age(): { ageMs: number; heard: boolean };
}

export interface Freshness {
  fresh: boolean;
  ageSeconds: number;
  maxAgeSeconds: number;
  /** False when no heartbeat has arrived since this service started. */
  heard: boolean;
}

/** Pure: fresh while the age is within the bound (inclusive). */
export function freshnessOf(age: { ageMs: number; heard: boolean }, maxAgeMs: number): Freshness {
  return { fresh: age.ageMs <= maxAgeMs, ageSeconds: age.ageMs / 1000, maxAgeSeconds: maxAgeMs / 1000, heard: age.heard };
}

/** Pure: what a human reads about a stale view, e.g. "the watcher has not been heard from for 41 s". */
export function describeStaleness(f: Freshness): string {
  const s = Math.round(f.ageSeconds);
  return f.heard ? `the watcher has not been heard from for ${s} s` : `the watcher has not been heard from since this service started ${s} s ago`;
}

/**
 * Pure: the same as a point in time, e.g. "the watcher has not been heard from since
 * 2026-11-25T12:00:41Z": stable while the view stays stale, for what is written to objects (a
 * message that changed every second would be rewritten every time).
 */
export function describeStaleSince(f: Freshness, nowMs: number): string {
  const since = new Date(Math.floor((nowMs - f.ageSeconds * 1000) / 1000) * 1000).toISOString().replace(".000Z", "Z");
  return f.heard ? `the watcher has not been heard from since ${since}` : `the watcher has not been heard from since this service started at ${since}`;
}

export interface StateFreshnessOptions {
  source: StateAgeSource;
  maxAgeMs: number;
  readiness?: Readiness;
  registry?: Registry;
  logger?: Logger;
  /** How often a change between fresh and stale is looked for (listeners, logs). Default 1 s. */
  checkIntervalMs?: number;
}

export const STATE_FRESH_CHECK = "state-fresh";
const AGE_METRIC = "lockstep_state_age_seconds";

export class StateFreshness {
  private readonly listeners = new Set<(f: Freshness) => void>();
  private wasFresh: boolean;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly o: StateFreshnessOptions) {
    this.wasFresh = this.current().fresh;
    o.readiness?.add(STATE_FRESH_CHECK, () => {
      const f = this.current();
      return f.fresh ? true : `${describeStaleness(f)} (bound ${f.maxAgeSeconds} s)`;
    });
    if (o.registry) {
      // One gauge per registry, read at scrape time; a second StateFreshness on it replaces the source.
      const existing = o.registry.getSingleMetric(AGE_METRIC);
      if (existing) o.registry.removeSingleMetric(AGE_METRIC);
      const self = this;
      new Gauge({
        name: AGE_METRIC,
        help: "Seconds since this service last received the watcher's heartbeat (since its start when none was): the age of its view of the cluster.",
        registers: [o.registry],
        collect() {
          this.set(self.current().ageSeconds);
        },
      });
    }
  }

  current(): Freshness {
    return freshnessOf(this.o.source.age(), this.o.maxAgeMs);
  }

  get fresh(): boolean {
    return this.current().fresh;
  }

  /** Called on every change between fresh and stale (checked every checkIntervalMs once started). */
  onChange(listener: (f: Freshness) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Looks for changes until the signal aborts. Also call `check()` when a heartbeat arrives. */
  start(signal: AbortSignal): void {
    if (this.timer || signal.aborted) return;
    this.timer = setInterval(() => this.check(), this.o.checkIntervalMs ?? 1_000);
    this.timer.unref();
    signal.addEventListener("abort", () => this.stop(), { once: true });
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Tells listeners (and the log) when freshness changed since the last check. */
  check(): Freshness {
    const f = this.current();
    if (f.fresh === this.wasFresh) return f;
    this.wasFresh = f.fresh;
    if (f.fresh) this.o.logger?.info({ ageSeconds: f.ageSeconds }, "state plane fresh again");
    else this.o.logger?.warn({ ageSeconds: Math.round(f.ageSeconds), maxAgeSeconds: f.maxAgeSeconds, heard: f.heard }, "state plane stale: the watcher's heartbeat is overdue");
    for (const l of this.listeners) {
      try {
        l(f);
      } catch (err) {
        this.o.logger?.error({ err }, "state freshness listener failed");
      }
    }
    return f;
  }
}
