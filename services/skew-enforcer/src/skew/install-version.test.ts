import { describe, expect, it } from "vitest";
import { clusterVersion } from "./fixtures.js";
import { docsMinor, installVersion } from "./install-version.js";

describe("installVersion (§4.3)", () => {
  it.each([
    ["oldest Completed entry", ["4.18.2:Completed", "4.17.9:Completed", "4.16.0-ec.3:Completed", "4.15.0:Partial"], "4.16.0"],
    ["no Completed entry: the oldest", ["4.16.1:Partial", "4.16.0:Partial"], "4.16.0"],
    ["single entry", ["4.12.3:Completed"], "4.12.3"],
    ["unparsable: 0.0.0", ["garbage:Completed"], "0.0.0"],
    ["no history: 0.0.0", [], "0.0.0"],
  ])("%s", (_name, history, expected) => {
    expect(installVersion(clusterVersion("4.18.2", history))).toBe(expected);
  });
  it("is 0.0.0 without a ClusterVersion", () => {
    expect(installVersion(undefined)).toBe("0.0.0");
  });
});

describe("docsMinor (message B link)", () => {
  it.each([
    [["4.22.1:Partial", "4.21.3:Completed"], "4.22"],
    [["5.0.0-rc.1:Partial"], "5.0"],
    [[], "latest"],
    [["bad:Completed"], "latest"],
  ])("%j → %s", (history, expected) => {
    expect(docsMinor(clusterVersion("4.22.1", history))).toBe(expected);
  });
});
