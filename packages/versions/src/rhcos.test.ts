import { describe, expect, it } from "vitest";
import { compareRhelVersions, parseRhcosVersion, parseRhelVersion, rhelOf, tryParseRhcosVersion, tryParseRhelVersion } from "./rhcos.js";

describe("parseRhcosVersion", () => {
  it.each([
    ["9.6.20251023-0", "rhel-aligned", 9, 6, undefined],
    ["10.0.20260101-3", "rhel-aligned", 10, 0, undefined],
    ["418.94.202410090804-0", "legacy", 9, 4, "4.18"],
    ["48.84.202208021106-0", "legacy", 8, 4, "4.8"],
    ["413.92.202303281804-0", "legacy", 9, 2, "4.13"],
    ["1.810.202401010000-0", "legacy", 8, 10, undefined],
  ])("%s is %s RHEL %d.%d", (input, scheme, major, minor, ocp) => {
    const v = parseRhcosVersion(input);
    expect(v.scheme).toBe(scheme);
    expect(v.rhel).toEqual({ major, minor });
    expect(v.ocpMajorMinor).toBe(ocp);
    expect(rhelOf(input)).toEqual({ major, minor });
  });

  it.each([
    ["9.6.2025102-0", "stamp must have 8 digits (YYYYMMDD) or 12 digits (YYYYMMDDHHmm), found 7"],
    ["9.6.20251023", "missing -<buildnumber>"],
    ["9.6.20251023-x", 'build number "x" is not a number'],
    ["9.20251023-0", "found 2 dot-separated field(s)"],
    ["418.9.202410090804-0", "needs a major digit and a minor"],
    ["9.a.20251023-0", 'RHEL minor "a" is not a number'],
    ["", "empty"],
  ])("rejects %j: %s", (input, problem) => {
    const r = tryParseRhcosVersion(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toContain(problem);
  });
});

describe("RHEL versions", () => {
  it("parses and orders major.minor numerically", () => {
    expect(parseRhelVersion("8.10")).toEqual({ major: 8, minor: 10 });
    expect(compareRhelVersions(parseRhelVersion("8.10"), parseRhelVersion("8.9"))).toBe(1);
    expect(compareRhelVersions(parseRhelVersion("8.10"), parseRhelVersion("9.0"))).toBe(-1);
    expect(compareRhelVersions(parseRhelVersion("9.2"), parseRhelVersion("9.2"))).toBe(0);
  });
  it.each(["9", "9.2.1", "09.2", "9.x", ""])("rejects %j", (input) => {
    expect(tryParseRhelVersion(input).ok).toBe(false);
  });
});
