import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fixturesDir, ocUpgradeStatusCases, ocUpgradeStatusDir } from "./fixtures.js";

describe("fixtures", () => {
  it("live inside the repository, with their provenance", () => {
    expect(existsSync(join(fixturesDir(), "oc-upgrade-status", "NOTICE"))).toBe(true);
    expect(existsSync(join(ocUpgradeStatusDir(), "LICENSE"))).toBe(true);
  });

  it("lists the eleven oc golden cases, each with its five inputs and two outputs", () => {
    const cases = ocUpgradeStatusCases();
    expect(cases).toHaveLength(11);
    for (const name of cases) {
      for (const suffix of ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml", ".output", ".detailed-output"]) {
        expect(existsSync(join(ocUpgradeStatusDir(), `${name}${suffix}`)), `${name}${suffix}`).toBe(true);
      }
    }
  });
});
