// The instant a dump stands for, picked as `oc adm upgrade status` picks it for its examples: the
// newest ClusterVersion / ClusterOperator condition transition (insights' fixtureNow), and never
// before the update's own times (the ClusterVersion history). A status time far after that instant
// (a clock or a mock months or ten years off: upstream's own example dumps have MachineConfigPool
// conditions three months ahead) is suspect: reported, never used as "now", as a pool's start or
// as pace. Old times are not suspect by themselves (the history is capped, conditions outlive it);
// where a time must belong to the current update (a pool's start) it is checked against the
// update's start. Pure.
import { fixtureNow, parseTime, type ClusterOperator, type ClusterVersion } from "@lockstep/insights";
import type { KubeObject } from "@lockstep/cluster-sim";
import type { RehearsalSnapshot } from "./snapshot.js";

/** A status time this far after the dump's "now" is suspect. */
export const SUSPECT_AFTER_MS = 24 * 3600_000;
/** A time marking the current update (a pool's start) may precede the update's recorded start by this much at most. */
export const UPDATE_START_SLACK_MS = 3600_000;

export interface SuspectTimestamp {
  /** `Kind/name`. */
  object: string;
  /** Where in the object (`status.conditions[Updated].lastTransitionTime`). */
  field: string;
  value: string;
}

export interface DumpClock {
  now: Date;
  /** The newest update's start (ClusterVersion history[0].startedTime) less the slack; -Infinity when unknown. */
  earliest: number;
  /** Times after this (now + a day) are suspect. */
  latest: number;
  suspect: SuspectTimestamp[];
}

const STAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;
const NS_PER_MS = 1_000_000n;

interface History {
  startedTime?: string | null;
  completionTime?: string | null;
}

/** Every RFC 3339 string in `v`, with its path. */
function stamps(v: unknown, path: string, out: Array<{ field: string; value: string }>): void {
  if (typeof v === "string") {
    if (STAMP.test(v)) out.push({ field: path, value: v });
  } else if (Array.isArray(v)) {
    v.forEach((x, i) => {
      const tag = x && typeof x === "object" && typeof (x as { type?: unknown }).type === "string" ? (x as { type: string }).type : String(i);
      stamps(x, `${path}[${tag}]`, out);
    });
  } else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) stamps(x, path ? `${path}.${k}` : k, out);
}

/**
 * The dump's clock. "now" is oc's instant (newest CV/CO condition transition) unless that lies far
 * after the update's own times, in which case the newest trusted of those stands instead.
 */
export function dumpClock(snap: RehearsalSnapshot): DumpClock {
  const history: History[] = snap.clusterVersion.status?.history ?? [];
  const historyTimes = history.flatMap((h) => [h.startedTime, h.completionTime]).map((t) => Date.parse(t ?? "")).filter(Number.isFinite);
  const updateStart = Date.parse(history[0]?.startedTime ?? "");
  const newestUpdate = historyTimes.length ? Math.max(...historyTimes) : undefined;
  const ocNs = fixtureNow(snap.clusterVersion as unknown as ClusterVersion, snap.clusterOperators as unknown as ClusterOperator[]);
  const ocNow = Number(ocNs / NS_PER_MS);
  const ocValid = ocNs > parseTime(null);
  // A condition can legitimately change long after the last update (a dump of a quiet cluster); a
  // decade after it, it cannot be told from a broken clock, so a year is the bound.
  const trustedOc = ocValid && (newestUpdate === undefined || ocNow <= newestUpdate + 365 * 24 * 3600_000);
  const nowMs = trustedOc ? Math.max(ocNow, newestUpdate ?? ocNow) : (newestUpdate ?? (ocValid ? ocNow : 0));
  const earliest = Number.isFinite(updateStart) ? updateStart - UPDATE_START_SLACK_MS : -Infinity;
  const latest = nowMs + SUSPECT_AFTER_MS;
  const suspect: SuspectTimestamp[] = [];
  const objects: KubeObject[] = [snap.clusterVersion, ...snap.clusterOperators, ...snap.pools, ...snap.nodes];
  for (const o of objects) {
    const found: Array<{ field: string; value: string }> = [];
    stamps(o.status, "status", found);
    for (const f of found) {
      const t = Date.parse(f.value);
      if (/Time$/.test(f.field) && t > latest) suspect.push({ object: `${o.kind ?? "?"}/${o.metadata?.name ?? "?"}`, field: f.field, value: f.value });
    }
  }
  return { now: new Date(nowMs), earliest, latest, suspect };
}

/** Whether `t` (ms) is a time the rehearsal may use (not suspect). */
export function trusted(c: Pick<DumpClock, "latest">, t: number): boolean {
  return Number.isFinite(t) && t <= c.latest;
}

/** Whether `t` may mark something of the current update (a pool's start): trusted, and not before the update began. */
export function ofThisUpdate(c: Pick<DumpClock, "earliest" | "latest">, t: number): boolean {
  return trusted(c, t) && t >= c.earliest;
}

/** One header line: how many suspect times in which objects, with the first few. */
export function suspectWarnings(s: readonly SuspectTimestamp[], latest?: number): string[] {
  if (s.length === 0) return [];
  const objects = [...new Set(s.map((x) => x.object))];
  const after = latest !== undefined && Number.isFinite(latest) ? ` (after ${new Date(latest).toISOString().replace(/\.\d{3}Z$/, "Z")})` : "";
  const shown = objects.slice(0, 3).map((o) => {
    const x = s.find((y) => y.object === o)!;
    return `${o} ${x.field}=${x.value}`;
  });
  return [`${s.length} suspect timestamp(s) in ${objects.length} object(s), far after the dump's own instant${after}, not used: ${shown.join("; ")}${objects.length > 3 ? `; +${objects.length - 3} more objects` : ""}`];
}
