import { describe, expect, it } from "vitest";
import { checkBootImageRecord, checkOcpBootImage, checkRhcosBootImage, UPSTREAM_BOOT_IMAGE_LIMITS } from "./boot-image.js";

// mco-behaviors.md §4.4 parsing test vectors, against the §4.6 limits.
describe("§4.4 test vectors", () => {
  it.each([
    ["4.12.9", "OCP", "4.12.9", true],
    ["4.13.0", "OCP", "4.13.0", false],
    ["0.0.0", "OCP", "0.0.0", true],
    ["9.6.20251023-0", "RHCOS", "9.6", false],
    ["9.0.20251023-0", "RHCOS", "9.0", true],
    ["418.94.202410090804-0", "RHCOS", "9.4", false],
    ["413.92.202303281804-0", "RHCOS", "9.2", false],
    ["412.86.202303211731-0", "RHCOS", "8.6", true],
    ["48.84.202208021106-0", "RHCOS", "8.4", true],
    ["1.810.202401010000-0", "RHCOS", "8.10", true],
  ])("%s (%s) compares as %s, violation=%s", (input, kind, comparable, violation) => {
    const record = kind === "OCP" ? { ocpVersion: input } : { rhcosVersion: input };
    expect(checkBootImageRecord(record, UPSTREAM_BOOT_IMAGE_LIMITS)).toMatchObject({ kind, comparable, violation });
  });

  it("9.6.2025102-0 (7-digit stamp) gives no verdict", () => {
    const check = checkBootImageRecord({ rhcosVersion: "9.6.2025102-0" }, UPSTREAM_BOOT_IMAGE_LIMITS);
    expect(check).toMatchObject({ kind: "Unparsable", field: "RHCOS", value: "9.6.2025102-0" });
    expect(check && "violation" in check).toBe(false);
  });
});

describe("checkBootImageRecord", () => {
  it("uses the OCP version alone when both are set", () => {
    expect(checkBootImageRecord({ ocpVersion: "4.14.0", rhcosVersion: "48.84.202208021106-0" }, UPSTREAM_BOOT_IMAGE_LIMITS)).toMatchObject({
      kind: "OCP",
      violation: false,
    });
    expect(checkBootImageRecord({ ocpVersion: "4.12.0", rhcosVersion: "9.6.20251023-0" }, UPSTREAM_BOOT_IMAGE_LIMITS)).toMatchObject({
      kind: "OCP",
      violation: true,
    });
  });
  it("returns undefined when nothing is recorded", () => {
    expect(checkBootImageRecord({ ocpVersion: "", rhcosVersion: "" }, UPSTREAM_BOOT_IMAGE_LIMITS)).toBeUndefined();
  });
  it("honours configured limits and a pre-release below its release", () => {
    expect(checkOcpBootImage("4.16.0-rc.1", "4.16.0")).toMatchObject({ violation: true });
    expect(checkOcpBootImage("4.16.0", "4.16.0")).toMatchObject({ violation: false });
    expect(checkRhcosBootImage("9.4.20250101-0", "9.6")).toMatchObject({ violation: true, limit: "9.6" });
  });
  it("reports an unparsable OCP record with the parse problem", () => {
    expect(checkOcpBootImage("4.13", "4.13.0")).toMatchObject({ kind: "Unparsable", field: "OCP", problem: expect.stringContaining("major.minor.patch") });
  });
  it("throws for an invalid limit (configuration is validated up front)", () => {
    expect(() => checkOcpBootImage("4.13.0", "latest")).toThrow(/invalid OCP version/);
    expect(() => checkRhcosBootImage("9.6.20251023-0", "9")).toThrow(/invalid RHEL version/);
  });
});
