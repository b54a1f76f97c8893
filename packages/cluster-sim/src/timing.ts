// Stage delays (kube-api.md §17.3 defaults), in simulated seconds: duration + uniform jitter,
// drawn from the seeded RNG keyed by object and stage so runs are reproducible.
import { keyedRandom } from "./rng.js";

export interface Stage {
  duration: number;
  jitter: number;
}

export interface Timing {
  /** CVO: accepting a payload, and each operator's update (machine-config waits for the masters too). */
  cvoAccept: Stage;
  operator: Stage;
  mcdStart: Stage;
  mcdRequestDrain: Stage;
  drainAttempt: Stage;
  /** Drain retry interval, and the slower one after `drainSlowAfter` seconds of failures (1 min / 5 min / 10 min). */
  drainRetry: number;
  drainRetrySlow: number;
  drainSlowAfter: number;
  /** After this long the daemon reports the drain failure (`state=Degraded`). Upstream: 1 hour. */
  drainTimeout: number;
  mcdReboot: Stage;
  boot: Stage;
  mcdComplete: Stage;
  uncordon: Stage;
  podReady: Stage;
  podDelete: Stage;
  podRecreate: Stage;
  /** Pool status and node controller passes are coalesced to at most one per this many real ms. */
  controllerDebounceMs: number;
}

export const DEFAULT_TIMING: Timing = {
  cvoAccept: { duration: 5, jitter: 5 },
  operator: { duration: 90, jitter: 90 },
  mcdStart: { duration: 1, jitter: 4 },
  mcdRequestDrain: { duration: 0.5, jitter: 1.5 },
  drainAttempt: { duration: 1, jitter: 2 },
  drainRetry: 60,
  drainRetrySlow: 300,
  drainSlowAfter: 600,
  drainTimeout: 3600,
  mcdReboot: { duration: 5, jitter: 15 },
  boot: { duration: 30, jitter: 90 },
  mcdComplete: { duration: 2, jitter: 8 },
  uncordon: { duration: 0.5, jitter: 1.5 },
  podReady: { duration: 1, jitter: 2 },
  podDelete: { duration: 1, jitter: 2 },
  podRecreate: { duration: 2, jitter: 3 },
  controllerDebounceMs: 50,
};

export function stageSeconds(s: Stage, seed: number, key: string): number {
  return s.duration + s.jitter * keyedRandom(seed, key);
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Overrides from a scenario (`{ boot: { duration: 60 } , drainTimeout: 1800 }`), validated. */
export function mergeTiming(base: Timing, over: unknown): Timing {
  if (over === undefined) return base;
  if (!isObj(over)) throw new Error("timing: expected an object");
  const out: Record<string, unknown> = { ...base };
  for (const [k, v] of Object.entries(over)) {
    if (!(k in base)) throw new Error(`timing.${k}: unknown stage (known: ${Object.keys(base).join(", ")})`);
    const cur = (base as unknown as Record<string, unknown>)[k];
    if (typeof cur === "number") {
      if (typeof v !== "number" || v < 0) throw new Error(`timing.${k}: expected a number >= 0`);
      out[k] = v;
    } else {
      if (!isObj(v)) throw new Error(`timing.${k}: expected { duration, jitter }`);
      const s = { ...(cur as Stage), ...v } as Stage;
      if (typeof s.duration !== "number" || typeof s.jitter !== "number" || s.duration < 0 || s.jitter < 0) throw new Error(`timing.${k}: duration and jitter must be numbers >= 0`);
      out[k] = s;
    }
  }
  return out as unknown as Timing;
}
