import { describe, expect, it } from "vitest";
import { clusterVersion } from "./fixtures.js";
import { docsMinor } from "./docs-minor.js";

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
