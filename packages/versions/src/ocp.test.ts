import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { VersionParseError } from "./errors.js";
import {
  compareOcpVersions,
  formatOcpVersion,
  majorMinor,
  normaliseOcpVersion,
  type OcpVersion,
  parseOcpVersion,
  tryParseOcpVersion,
} from "./ocp.js";

describe("parseOcpVersion", () => {
  it.each([
    ["4.16.0", { major: 4, minor: 16, patch: 0, prerelease: [], build: [] }],
    ["4.16.0-ec.3", { major: 4, minor: 16, patch: 0, prerelease: ["ec", "3"], build: [] }],
    ["4.16.0-rc.1", { major: 4, minor: 16, patch: 0, prerelease: ["rc", "1"], build: [] }],
    [
      "4.16.0-0.nightly-2024-01-01-000000",
      { major: 4, minor: 16, patch: 0, prerelease: ["0", "nightly-2024-01-01-000000"], build: [] },
    ],
    ["4.16.0-0.ci-2024-01-01-000000", { major: 4, minor: 16, patch: 0, prerelease: ["0", "ci-2024-01-01-000000"], build: [] }],
    ["4.16.0-0.okd-2024-01-01-000000", { major: 4, minor: 16, patch: 0, prerelease: ["0", "okd-2024-01-01-000000"], build: [] }],
    ["4.16.3+build.7", { major: 4, minor: 16, patch: 3, prerelease: [], build: ["build", "7"] }],
    ["4.16.0-rc.1+0123", { major: 4, minor: 16, patch: 0, prerelease: ["rc", "1"], build: ["0123"] }],
    ["5.0.0", { major: 5, minor: 0, patch: 0, prerelease: [], build: [] }],
  ])("parses %s", (input, expected) => {
    expect(parseOcpVersion(input)).toEqual(expected);
    expect(formatOcpVersion(parseOcpVersion(input))).toBe(input);
  });

  it.each([
    ["", "empty"],
    ["4.16", "expected major.minor.patch, found 2 field(s)"],
    ["4.16.0.1", "expected major.minor.patch, found 4 field(s)"],
    ["v4.16.0", 'must not start with "v"'],
    [" 4.16.0", "surrounding whitespace"],
    ["4.x.0", 'minor "x" is not a number'],
    ["04.16.0", 'major "04" has a leading zero'],
    ["4..0", "minor is empty"],
    ["4.16.0-", "pre-release has an empty identifier"],
    ["4.16.0-rc..1", "pre-release has an empty identifier"],
    ["4.16.0-rc.01", 'pre-release identifier "01" has a leading zero'],
    ["4.16.0-rc_1", "may contain only [0-9A-Za-z-]"],
    ["4.16.0+", "build has an empty identifier"],
    ["99999999999999999.0.0", "too large"],
  ])("rejects %j with a clear error", (input, problem) => {
    const result = tryParseOcpVersion(input);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error).toBeInstanceOf(VersionParseError);
    expect(result.error.message).toContain(problem);
    expect(result.error.message).toContain(JSON.stringify(input));
  });
});

describe("normaliseOcpVersion and majorMinor", () => {
  it.each([
    ["4.16.0-ec.3", "4.16.0", "4.16"],
    ["4.16.0-0.nightly-2024-01-01-000000", "4.16.0", "4.16"],
    ["4.18.12+abc", "4.18.12", "4.18"],
    ["4.13.0", "4.13.0", "4.13"],
  ])("%s → %s / %s", (input, normal, mm) => {
    expect(normaliseOcpVersion(input)).toBe(normal);
    expect(majorMinor(input)).toBe(mm);
  });
});

describe("compareOcpVersions", () => {
  // Ascending, with equal-precedence neighbours grouped.
  const ordered = [
    ["4.9.0"],
    ["4.15.9"],
    ["4.16.0-0.ci-2024-01-01-000000"],
    ["4.16.0-0.nightly-2024-01-01-000000"],
    ["4.16.0-0.nightly-2024-02-01-000000"],
    ["4.16.0-ec.2"],
    ["4.16.0-ec.3"],
    ["4.16.0-ec.10"],
    ["4.16.0-rc.1"],
    ["4.16.0", "4.16.0+build.5"],
    ["4.16.1"],
    ["4.17.0"],
    ["5.0.0-rc.0"],
    ["5.0.0"],
  ];
  it("orders the table ascending", () => {
    ordered.forEach((group, i) => {
      for (const a of group) {
        for (const b of group) expect(compareOcpVersions(a, b)).toBe(0);
        ordered.slice(i + 1).flat().forEach((later) => {
          expect(compareOcpVersions(a, later)).toBe(-1);
          expect(compareOcpVersions(later, a)).toBe(1);
        });
      }
    });
  });
  it("follows semver identifier rules", () => {
    expect(compareOcpVersions("1.0.0-alpha", "1.0.0-alpha.1")).toBe(-1);
    expect(compareOcpVersions("1.0.0-alpha.1", "1.0.0-alpha.beta")).toBe(-1);
    expect(compareOcpVersions("1.0.0-beta.11", "1.0.0-rc.1")).toBe(-1);
    expect(compareOcpVersions("1.0.0-2", "1.0.0-11")).toBe(-1);
    expect(compareOcpVersions("1.0.0-11", "1.0.0-A")).toBe(-1);
    expect(compareOcpVersions("1.0.0-123456789012345678901", "1.0.0-99999999999999999999")).toBe(1);
  });
});

// Arbitraries produce valid versions only, so every property exercises real comparisons.
const numeric = fc.oneof(fc.integer({ min: 0, max: 20 }), fc.nat()).map(String);
const alnum = fc
  .stringMatching(/^[0-9A-Za-z-]{1,8}$/)
  .filter((s) => !/^[0-9]+$/.test(s));
const preId = fc.oneof(numeric, alnum, fc.constantFrom("ec", "rc", "nightly-2024-01-01-000000", "ci"));
const buildId = fc.stringMatching(/^[0-9A-Za-z-]{1,6}$/);
const small = fc.integer({ min: 0, max: 6 });
const version: fc.Arbitrary<OcpVersion> = fc.record({
  major: small,
  minor: small,
  patch: small,
  prerelease: fc.array(preId, { maxLength: 3 }),
  build: fc.array(buildId, { maxLength: 2 }),
});
const withoutBuild = (v: OcpVersion) => formatOcpVersion({ ...v, build: [] });

describe("ordering properties", () => {
  it("round-trips parse(format(v))", () => {
    fc.assert(
      fc.property(version, (v) => {
        expect(parseOcpVersion(formatOcpVersion(v))).toEqual(v);
      }),
    );
  });
  it("is total: exactly one of <, =, > and compare(a,b) = -compare(b,a)", () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const ab = compareOcpVersions(a, b);
        expect([-1, 0, 1]).toContain(ab);
        // -0 for 0 would fail toBe (Object.is): equal versions must compare 0 both ways.
        expect(compareOcpVersions(b, a)).toBe(ab === 0 ? 0 : -ab);
      }),
    );
  });
  it("is antisymmetric: a ≤ b and b ≤ a only for equal precedence", () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        if (compareOcpVersions(a, b) <= 0 && compareOcpVersions(b, a) <= 0) {
          expect(withoutBuild(a)).toBe(withoutBuild(b));
        }
      }),
    );
  });
  it("is transitive", () => {
    fc.assert(
      fc.property(version, version, version, (a, b, c) => {
        const sorted = [a, b, c].sort(compareOcpVersions);
        expect(compareOcpVersions(sorted[0]!, sorted[2]!)).toBeLessThanOrEqual(0);
        if (compareOcpVersions(a, b) <= 0 && compareOcpVersions(b, c) <= 0) {
          expect(compareOcpVersions(a, c)).toBeLessThanOrEqual(0);
        }
      }),
    );
  });
  it("ranks a pre-release below its release, and build metadata never matters", () => {
    fc.assert(
      fc.property(version, fc.array(preId, { minLength: 1, maxLength: 3 }), (v, pre) => {
        const release = { ...v, prerelease: [] };
        expect(compareOcpVersions({ ...v, prerelease: pre }, release)).toBe(-1);
        expect(compareOcpVersions(v, { ...v, build: ["x"] })).toBe(0);
      }),
    );
  });
  it("ranks a pre-release below any extension of it (1.0.0-a < 1.0.0-a.x)", () => {
    fc.assert(
      fc.property(version, fc.array(preId, { minLength: 1, maxLength: 3 }), preId, (v, pre, extra) => {
        const shorter = { ...v, prerelease: pre };
        const longer = { ...v, prerelease: [...pre, extra] };
        expect(compareOcpVersions(shorter, longer)).toBe(-1);
        expect(compareOcpVersions(longer, shorter)).toBe(1);
      }),
    );
  });
  it("orders by major, then minor, then patch before pre-release", () => {
    fc.assert(
      fc.property(version, version, (a, b) => {
        const core = (v: OcpVersion) => [v.major, v.minor, v.patch] as const;
        const [a1, a2, a3] = core(a);
        const [b1, b2, b3] = core(b);
        const c = a1 - b1 || a2 - b2 || a3 - b3;
        if (c !== 0) expect(compareOcpVersions(a, b)).toBe(c < 0 ? -1 : 1);
      }),
    );
  });
});
