import { attempt, type ParseResult, VersionParseError } from "./errors.js";

/**
 * An OpenShift release version: semantic version 2.0 (`4.16.0`, `4.16.0-ec.3`, `4.16.0-rc.1`,
 * `4.16.0-0.nightly-2024-01-01-000000`, `4.16.0-0.ci-2024-01-01-000000`, `4.16.0+build.1`).
 */
export interface OcpVersion {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
  /** Dot-separated pre-release identifiers, as written; empty for a release. */
  readonly prerelease: readonly string[];
  /** Dot-separated build metadata identifiers; never affects ordering. */
  readonly build: readonly string[];
}

const NUMERIC = /^(0|[1-9][0-9]*)$/;
const IDENTIFIER = /^[0-9A-Za-z-]+$/;

function parseCore(input: string, field: string, text: string): number {
  if (text === "") throw new VersionParseError("OCP", input, `${field} is empty`);
  if (!/^[0-9]+$/.test(text)) throw new VersionParseError("OCP", input, `${field} ${JSON.stringify(text)} is not a number`);
  if (!NUMERIC.test(text)) throw new VersionParseError("OCP", input, `${field} ${JSON.stringify(text)} has a leading zero`);
  const value = Number(text);
  if (!Number.isSafeInteger(value)) throw new VersionParseError("OCP", input, `${field} ${text} is too large`);
  return value;
}

function parseIdentifiers(input: string, part: "pre-release" | "build", text: string): string[] {
  const ids = text.split(".");
  for (const id of ids) {
    if (id === "") throw new VersionParseError("OCP", input, `${part} has an empty identifier`);
    if (!IDENTIFIER.test(id)) {
      throw new VersionParseError("OCP", input, `${part} identifier ${JSON.stringify(id)} may contain only [0-9A-Za-z-]`);
    }
    // Semver forbids leading zeros only in numeric pre-release identifiers.
    if (part === "pre-release" && /^[0-9]+$/.test(id) && !NUMERIC.test(id)) {
      throw new VersionParseError("OCP", input, `pre-release identifier ${JSON.stringify(id)} has a leading zero`);
    }
  }
  return ids;
}

/** Parses an OpenShift version; throws {@link VersionParseError} with the exact problem. */
export function parseOcpVersion(input: string): OcpVersion {
  if (typeof input !== "string") throw new VersionParseError("OCP", String(input), "not a string");
  if (input === "") throw new VersionParseError("OCP", input, "empty");
  if (input.trim() !== input) throw new VersionParseError("OCP", input, "has surrounding whitespace");
  if (/^v/i.test(input)) throw new VersionParseError("OCP", input, "must not start with \"v\"");

  const plus = input.indexOf("+");
  const beforeBuild = plus === -1 ? input : input.slice(0, plus);
  const buildText = plus === -1 ? undefined : input.slice(plus + 1);
  const dash = beforeBuild.indexOf("-");
  const core = dash === -1 ? beforeBuild : beforeBuild.slice(0, dash);
  const preText = dash === -1 ? undefined : beforeBuild.slice(dash + 1);

  const fields = core.split(".");
  if (fields.length !== 3) {
    throw new VersionParseError("OCP", input, `expected major.minor.patch, found ${fields.length} field(s)`);
  }
  const [majorText, minorText, patchText] = fields as [string, string, string];
  const major = parseCore(input, "major", majorText);
  const minor = parseCore(input, "minor", minorText);
  const patch = parseCore(input, "patch", patchText);
  const prerelease = preText === undefined ? [] : parseIdentifiers(input, "pre-release", preText);
  const build = buildText === undefined ? [] : parseIdentifiers(input, "build", buildText);
  return { major, minor, patch, prerelease, build };
}

export function tryParseOcpVersion(input: string): ParseResult<OcpVersion> {
  return attempt(() => parseOcpVersion(input));
}

/** The canonical text; `parseOcpVersion(formatOcpVersion(v))` equals `v`. */
export function formatOcpVersion(v: OcpVersion): string {
  let text = `${v.major}.${v.minor}.${v.patch}`;
  if (v.prerelease.length > 0) text += `-${v.prerelease.join(".")}`;
  if (v.build.length > 0) text += `+${v.build.join(".")}`;
  return text;
}

/** `major.minor.patch` without pre-release or build (`4.16.0-ec.3` → `4.16.0`), as upstream's install version. */
export function normaliseOcpVersion(v: OcpVersion | string): string {
  const parsed = typeof v === "string" ? parseOcpVersion(v) : v;
  return `${parsed.major}.${parsed.minor}.${parsed.patch}`;
}

/** `major.minor` (`4.16`). */
export function majorMinor(v: OcpVersion | string): string {
  const parsed = typeof v === "string" ? parseOcpVersion(v) : v;
  return `${parsed.major}.${parsed.minor}`;
}

function sign(n: number): -1 | 0 | 1 {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

// Numeric identifiers have no leading zeros, so length then text orders them exactly at any size.
function compareNumericText(a: string, b: string): -1 | 0 | 1 {
  if (a.length !== b.length) return sign(a.length - b.length);
  return a < b ? -1 : a > b ? 1 : 0;
}

function compareIdentifier(a: string, b: string): -1 | 0 | 1 {
  const aNum = NUMERIC.test(a);
  const bNum = NUMERIC.test(b);
  if (aNum && bNum) return compareNumericText(a, b);
  if (aNum) return -1; // numeric identifiers sort below alphanumeric ones
  if (bNum) return 1;
  return a < b ? -1 : a > b ? 1 : 0; // ASCII order, as semver specifies
}

/** Semantic-version precedence: -1, 0 or 1. Build metadata is ignored. */
export function compareOcpVersions(a: OcpVersion | string, b: OcpVersion | string): -1 | 0 | 1 {
  const x = typeof a === "string" ? parseOcpVersion(a) : a;
  const y = typeof b === "string" ? parseOcpVersion(b) : b;
  const core = sign(x.major - y.major) || sign(x.minor - y.minor) || sign(x.patch - y.patch);
  if (core !== 0) return core;
  // A release ranks above any of its pre-releases.
  if (x.prerelease.length === 0 || y.prerelease.length === 0) {
    return sign(y.prerelease.length - x.prerelease.length);
  }
  const n = Math.min(x.prerelease.length, y.prerelease.length);
  for (let i = 0; i < n; i++) {
    const c = compareIdentifier(x.prerelease[i] as string, y.prerelease[i] as string);
    if (c !== 0) return c;
  }
  return sign(x.prerelease.length - y.prerelease.length);
}

export function isPrerelease(v: OcpVersion): boolean {
  return v.prerelease.length > 0;
}
