import { attempt, type ParseResult, VersionParseError } from "./errors.js";

/** A RHEL `major.minor`, the comparable part of an RHCOS version (mco-behaviors.md §4.4). */
export interface RhelVersion {
  readonly major: number;
  readonly minor: number;
}

/**
 * An RHCOS build version in one of its two schemes:
 * - `rhel-aligned` (4.19 onwards): `<RHEL major>.<RHEL minor>.<YYYYMMDD>-<build>`, e.g. `9.6.20251023-0`;
 * - `legacy` (up to 4.18): `<OCP major><OCP minor>.<RHEL major><RHEL minor>.<YYYYMMDDHHmm>-<build>`,
 *   e.g. `418.94.202410090804-0`.
 * The scheme is told apart by the stamp's length: 8 digits or 12 digits.
 */
export interface RhcosVersion {
  readonly scheme: "rhel-aligned" | "legacy";
  readonly raw: string;
  readonly rhel: RhelVersion;
  /** Legacy only, when the first field has at least two digits: `418` → `4.18`. */
  readonly ocpMajorMinor?: string;
  readonly stamp: string;
  readonly build: number;
}

const DIGITS = /^[0-9]+$/;

function fail(input: string, problem: string): never {
  throw new VersionParseError("RHCOS", input, problem);
}

function toInt(input: string, field: string, text: string): number {
  if (!DIGITS.test(text)) fail(input, `${field} ${JSON.stringify(text)} is not a number`);
  const n = Number(text);
  if (!Number.isSafeInteger(n)) fail(input, `${field} ${text} is too large`);
  return n;
}

/** Parses an RHCOS version in either scheme; throws {@link VersionParseError}. */
export function parseRhcosVersion(input: string): RhcosVersion {
  if (typeof input !== "string") fail(String(input), "not a string");
  if (input === "") fail(input, "empty");
  const dash = input.indexOf("-");
  if (dash === -1) fail(input, "missing -<buildnumber>");
  const head = input.slice(0, dash);
  const buildText = input.slice(dash + 1);
  const fields = head.split(".");
  if (fields.length !== 3) fail(input, `expected <major>.<minor>.<stamp>-<build>, found ${fields.length} dot-separated field(s)`);
  const [first, second, stamp] = fields as [string, string, string];
  const build = toInt(input, "build number", buildText);
  if (!DIGITS.test(stamp)) fail(input, `stamp ${JSON.stringify(stamp)} is not a number`);
  const firstNum = toInt(input, "first field", first);

  if (stamp.length === 8) {
    const minor = toInt(input, "RHEL minor", second);
    return { scheme: "rhel-aligned", raw: input, rhel: { major: firstNum, minor }, stamp, build };
  }
  if (stamp.length === 12) {
    // Legacy: the second field packs RHEL major (first digit) and minor (the rest): 94 → 9.4, 810 → 8.10.
    if (!DIGITS.test(second)) fail(input, `RHEL field ${JSON.stringify(second)} is not a number`);
    if (second.length < 2) fail(input, `legacy RHEL field ${JSON.stringify(second)} needs a major digit and a minor`);
    const rhel = { major: Number(second.slice(0, 1)), minor: toInt(input, "RHEL minor", second.slice(1)) };
    const version: RhcosVersion = { scheme: "legacy", raw: input, rhel, stamp, build };
    return first.length >= 2 ? { ...version, ocpMajorMinor: `${first.slice(0, 1)}.${Number(first.slice(1))}` } : version;
  }
  return fail(input, `stamp must have 8 digits (YYYYMMDD) or 12 digits (YYYYMMDDHHmm), found ${stamp.length}`);
}

export function tryParseRhcosVersion(input: string): ParseResult<RhcosVersion> {
  return attempt(() => parseRhcosVersion(input));
}

/** The RHEL `major.minor` an RHCOS version is built on. */
export function rhelOf(input: string | RhcosVersion): RhelVersion {
  return (typeof input === "string" ? parseRhcosVersion(input) : input).rhel;
}

/** Parses `major.minor` (`9.2`, `8.10`), as used for the RHCOS skew limit. */
export function parseRhelVersion(input: string): RhelVersion {
  if (typeof input !== "string") throw new VersionParseError("RHEL", String(input), "not a string");
  const m = /^(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)$/.exec(input);
  if (!m) throw new VersionParseError("RHEL", input, "expected <major>.<minor> with plain numbers");
  const major = Number(m[1]);
  const minor = Number(m[2]);
  if (!Number.isSafeInteger(major) || !Number.isSafeInteger(minor)) throw new VersionParseError("RHEL", input, "too large");
  return { major, minor };
}

export function tryParseRhelVersion(input: string): ParseResult<RhelVersion> {
  return attempt(() => parseRhelVersion(input));
}

export function formatRhelVersion(v: RhelVersion): string {
  return `${v.major}.${v.minor}`;
}

export function compareRhelVersions(a: RhelVersion, b: RhelVersion): -1 | 0 | 1 {
  const d = a.major - b.major || a.minor - b.minor;
  return d < 0 ? -1 : d > 0 ? 1 : 0;
}
