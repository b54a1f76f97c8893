import { describe, expect, it } from "vitest";
import { compareRhcosReleases, normaliseOcpVersion, skewRecordUpdate, type SkewInputs } from "./skew-record.js";

describe("normaliseOcpVersion", () => {
  it.each([
    ["4.22.1", "4.22.1"],
    ["4.16.0-ec.3", "4.16.0"],
    ["4.18.0-0.nightly-2026-01-01-000000", "4.18.0"],
    ["4.19.2+build.7", "4.19.2"],
    ["0.0.1-snapshot", "0.0.1"],
    ["4.22", undefined],
    ["", undefined],
  ])("%s → %s", (v, want) => expect(normaliseOcpVersion(v)).toBe(want));
});

describe("compareRhcosReleases", () => {
  it("orders by major, minor, stamp, build; unparsable last", () => {
    const sorted = ["9.6.20260210-1", "junk", "9.6.20260210-0", "9.4.20250101-0", "10.0.20270101-0"].sort(compareRhcosReleases);
    expect(sorted).toEqual(["9.4.20250101-0", "9.6.20260210-0", "9.6.20260210-1", "10.0.20270101-0", "junk"]);
  });
});

describe("skewRecordUpdate (§4.5)", () => {
  const base: SkewInputs = { mode: "Automatic", evaluated: 3, errored: 0, skipped: 0, marketplaceReleases: [], releaseVersion: "4.22.1", installVersion: "4.12.3" };
  it.each([
    { name: "clean pass: the release's OCP version", i: {}, want: { action: "set", ocpVersion: "4.22.1" } },
    { name: "clean pass, snapshot placeholder normalised", i: { releaseVersion: "4.22.1-rc.2" }, want: { action: "set", ocpVersion: "4.22.1" } },
    { name: "marketplace: the lowest RHCOS release", i: { marketplaceReleases: ["9.6.20260210-0", "9.5.20251001-0"] }, want: { action: "set", rhcosVersion: "9.5.20251001-0" } },
    { name: "skips: the install version", i: { skipped: 1, marketplaceReleases: ["9.6.20260210-0"] }, want: { action: "set", ocpVersion: "4.12.3" } },
    { name: "errors: unchanged", i: { errored: 1, skipped: 1 }, want: { action: "unchanged" } },
    { name: "Manual mode: unchanged", i: { mode: "Manual" }, want: { action: "unchanged" } },
    { name: "None mode: unchanged", i: { mode: "None" }, want: { action: "unchanged" } },
    { name: "nothing evaluated: unchanged", i: { evaluated: 0 }, want: { action: "unchanged" } },
    { name: "unparsable releaseVersion: unchanged", i: { releaseVersion: "latest" }, want: { action: "unchanged" } },
  ])("$name", ({ i, want }) => {
    const r = skewRecordUpdate({ ...base, ...i });
    expect(r).toMatchObject(want);
    if (r.action === "set") expect(r.ocpVersion === undefined).not.toBe(r.rhcosVersion === undefined);
  });
});
