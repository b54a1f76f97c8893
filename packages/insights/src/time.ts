// Instants and durations are bigint nanoseconds (Go time.Time / time.Duration): fixture "now"
// carries a 368,975 ns offset, so milliseconds are not precise enough.

export const NANOSECOND = 1n;
export const MICROSECOND = 1_000n;
export const MILLISECOND = 1_000_000n;
export const SECOND = 1_000_000_000n;
export const MINUTE = 60n * SECOND;
export const HOUR = 60n * MINUTE;

/** Go's zero time.Time (0001-01-01T00:00:00Z) in Unix nanoseconds. */
export const ZERO_TIME = -62_135_596_800n * SECOND;

export function isZeroTime(t: bigint): boolean {
  return t === ZERO_TIME;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

export class InvalidTimeError extends Error {
  constructor(readonly text: string) {
    super(`invalid RFC 3339 timestamp: ${JSON.stringify(text)}`);
    this.name = "InvalidTimeError";
  }
}

// Cluster timestamps repeat a lot (10k nodes share few distinct times); parsing dominated evaluation.
const parsed = new Map<string, bigint>();
const PARSED_MAX = 8192;

/** Parses an RFC 3339 timestamp to Unix nanoseconds; empty or missing reads as the zero time. */
export function parseTime(text: string | null | undefined): bigint {
  if (text === undefined || text === null || text === "") return ZERO_TIME;
  const hit = parsed.get(text);
  if (hit !== undefined) return hit;
  const ns = parseUncached(text);
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(text, ns);
  return ns;
}

function parseUncached(text: string): bigint {
  const m = RFC3339.exec(text);
  if (!m) throw new InvalidTimeError(text);
  const [, y, mo, d, h, mi, s, frac, zone] = m as unknown as string[];
  const date = new Date(0);
  date.setUTCFullYear(Number(y), Number(mo) - 1, Number(d));
  date.setUTCHours(Number(h), Number(mi), Number(s), 0);
  let ns = BigInt(date.getTime()) * MILLISECOND;
  if (frac) ns += BigInt(frac.padEnd(9, "0"));
  if (zone && zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1n : 1n;
    const offset = (BigInt(zone.slice(1, 3)) * 60n + BigInt(zone.slice(4, 6))) * MINUTE;
    ns -= sign * offset;
  }
  return ns;
}

/** Go `t.UTC().Format(time.RFC3339)`: whole seconds, `Z`. */
export function formatRFC3339(t: bigint): string {
  const ms = floorDiv(t, MILLISECOND);
  const iso = new Date(Number(ms)).toISOString();
  return `${iso.slice(0, 19)}Z`;
}

function floorDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a < 0n !== b < 0n ? q - 1n : q;
}

/** The wall clock in Unix nanoseconds. */
export function wallClockNow(): bigint {
  return BigInt(Date.now()) * MILLISECOND;
}
