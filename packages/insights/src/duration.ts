// Go time.Duration arithmetic and text, and oc's shortDuration.
import { HOUR, MICROSECOND, MILLISECOND, MINUTE, SECOND } from "./time.js";

const abs = (d: bigint): bigint => (d < 0n ? -d : d);

/** Go Duration.Round: nearest multiple of unit, halves away from zero. */
export function roundDuration(d: bigint, unit: bigint): bigint {
  if (unit <= 0n) return d;
  let r = d % unit;
  if (d < 0n) {
    r = -r;
    return r + r < unit ? d + r : d - unit + r;
  }
  return r + r < unit ? d - r : d + unit - r;
}

/** Go Duration.Truncate: toward zero to a multiple of unit. */
export function truncateDuration(d: bigint, unit: bigint): bigint {
  if (unit <= 0n) return d;
  return d - (d % unit);
}

/** Fraction digits of v/10^prec without trailing zeros (and without the dot when zero). */
function fraction(v: bigint, prec: number): { text: string; rest: bigint } {
  const scale = 10n ** BigInt(prec);
  const frac = v % scale;
  const rest = v / scale;
  if (frac === 0n) return { text: "", rest };
  const digits = frac.toString().padStart(prec, "0").replace(/0+$/, "");
  return { text: `.${digits}`, rest };
}

/** Go Duration.String(). */
export function goDurationString(d: bigint): string {
  const neg = d < 0n;
  const u = abs(d);
  let out: string;
  if (u < SECOND) {
    if (u === 0n) return "0s";
    let unit: string;
    let prec: number;
    if (u < MICROSECOND) {
      unit = "ns";
      prec = 0;
    } else if (u < MILLISECOND) {
      unit = "\u00b5s";
      prec = 3;
    } else {
      unit = "ms";
      prec = 6;
    }
    const f = fraction(u, prec);
    out = `${f.rest}${f.text}${unit}`;
  } else {
    const f = fraction(u, 9);
    let secs = f.rest;
    out = `${secs % 60n}${f.text}s`;
    secs /= 60n;
    if (secs > 0n) {
      out = `${secs % 60n}m${out}`;
      secs /= 60n;
      if (secs > 0n) out = `${secs}h${out}`;
    }
  }
  return neg ? `-${out}` : out;
}

const UNITS: Record<string, bigint> = { h: HOUR, m: MINUTE, s: SECOND };

/** Parses the `[-]<n>h<n>m<n>s` subset of Go durations that shortDuration produces; undefined when it is not one. */
export function parseGoDuration(text: string): bigint | undefined {
  const m = /^([-+]?)((?:\d+[hms])+)$/.exec(text);
  if (!m) return undefined;
  let total = 0n;
  for (const part of (m[2] ?? "").matchAll(/(\d+)([hms])/g)) {
    total += BigInt(part[1] ?? "0") * (UNITS[part[2] ?? "s"] ?? SECOND);
  }
  return m[1] === "-" ? -total : total;
}

/**
 * oc's shortDuration: Go text with zero minutes/seconds dropped and sub-second digits cut.
 * Quirk kept on purpose: a sub-second value re-reads its digits as seconds (368.975µs → 6m8s).
 */
export function shortDuration(d: bigint): string {
  const s = goDurationString(d);
  if (s === "0h0m0s" || s === "0s") return "now";
  if (s.endsWith("h0m0s")) return s.slice(0, -4);
  if (s.endsWith("m0s")) return s.slice(0, -2);
  if (s.endsWith("h0m")) return s.slice(0, -2);
  const dot = s.indexOf(".");
  if (dot !== -1) {
    const parsed = parseGoDuration(`${s.slice(0, dot)}s`);
    return parsed === undefined ? s : shortDuration(parsed);
  }
  return s;
}
