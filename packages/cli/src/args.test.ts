import { InvalidArgumentError } from "commander";
import { describe, expect, it } from "vitest";
import { versionArg } from "./args.js";

describe("versionArg", () => {
  it("accepts OpenShift versions as given", () => {
    for (const v of ["4.16.3", "4.17.0-rc.1", "4.16.0-0.nightly-2024-01-01-000000"]) expect(versionArg(v)).toBe(v);
  });

  it("refuses anything else as a usage error that says why", () => {
    expect(() => versionArg("4.x")).toThrow(InvalidArgumentError);
    expect(() => versionArg("4.x")).toThrow('invalid OCP version "4.x": expected major.minor.patch, found 2 field(s) (e.g. 4.16.3)');
    expect(() => versionArg("v4.16.3")).toThrow('must not start with "v"');
    expect(() => versionArg("")).toThrow("empty");
  });
});
