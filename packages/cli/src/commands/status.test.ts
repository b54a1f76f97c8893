// The built CLI against every golden fixture case: stdout must equal the expected file exactly.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ocUpgradeStatusCases, ocUpgradeStatusDir } from "@lockstep/testing";
import { describe, expect, it } from "vitest";

const pkgDir = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const mainJs = join(pkgDir, "dist", "main.js");
const fixturesDir = ocUpgradeStatusDir();
const cases = ocUpgradeStatusCases();

const run = (...args: string[]) => spawnSync(process.execPath, [mainJs, "status", ...args], { encoding: "utf8" });

describe("lockstep status (built CLI)", () => {
  it("has fixture cases and a built CLI", () => {
    expect(cases.length).toBeGreaterThan(0);
    expect(existsSync(mainJs)).toBe(true);
  });

  describe.each(cases)("%s", (name) => {
    it.each([
      ["none", ".output"],
      ["all", ".detailed-output"],
    ])("--details=%s prints %s", (details, suffix) => {
      const r = run("--from-dir", fixturesDir, "--case", name, "--details", details);
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
      expect(r.stdout).toBe(readFileSync(join(fixturesDir, `${name}${suffix}`), "utf8"));
    });
  });

  it("rejects an unknown --details value with the upstream message", () => {
    const r = run("--details", "workers");
    expect(r.status).not.toBe(0);
    expect(r.stderr).toContain("invalid value for --details: workers (must be one of none, all, nodes, health, operators)");
  });

  it("reports a missing fixture case clearly, as a usage error", () => {
    const r = run("--from-dir", fixturesDir, "--case", "no-such-case");
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("cannot read no-such-case-cv.yaml");
    expect(r.stdout).toBe("");
  });

  it("without --from-dir goes live and says clearly when the server cannot be reached", () => {
    const r = run("--server", "127.0.0.1:1");
    expect(r.status).toBe(4) // EXIT.UNREACHABLE;
    expect(r.stderr).toContain("cannot reach the status-aggregator at 127.0.0.1:1");
  });
});
