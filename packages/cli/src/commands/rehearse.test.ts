// `lockstep rehearse` (built CLI) on the oc golden dumps: text and -o json, exit codes, usage errors.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const mainJs = join(root, "dist", "main.js");
const GOLDEN = join(root, "..", "testing", "testdata", "oc-upgrade-status");
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOCKSTEP_")));
const run = (...args: string[]) => spawnSync(process.execPath, [mainJs, "rehearse", ...args], { env, encoding: "utf8" });

describe("lockstep rehearse", () => {
  it("forecasts a paused pool as a blocker, exit 3", () => {
    const r = run("--to", "4.14.1", "--from-dir", GOLDEN, "--case", "4.14.1-paused-worker-pool");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(3);
    expect(r.stdout).toMatch(/^Rehearsal of 4\.14\.1 -> 4\.14\.1 \(seed 1\)/);
    expect(r.stdout).toMatch(/paused-pool worker \(pool worker\)/);
  });

  it("-o json: the forecast as data, the same twice", () => {
    const a = run("--to", "4.16.0-ec.3", "--from-dir", GOLDEN, "--case", "4.16.0-compact", "-o", "json", "--seed", "4");
    const b = run("--to", "4.16.0-ec.3", "--from-dir", GOLDEN, "--case", "4.16.0-compact", "-o", "json", "--seed", "4");
    expect(a.stdout).toBe(b.stdout);
    const f = JSON.parse(a.stdout);
    expect(f.target).toBe("4.16.0-ec.3");
    expect(f.seed).toBe(4);
    expect(f.pools.map((p: { pool: string }) => p.pool)).toEqual(["master", "worker"]);
  });

  it("a missing dump or a bad version is a usage error (exit 2)", () => {
    const missing = run("--to", "4.16.1", "--from-dir", GOLDEN, "--case", "nope");
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(/missing nope-cv\.yaml/);
    expect(run("--to", "four", "--from-dir", GOLDEN, "--case", "4.16.0-compact").status).toBe(2);
  });
});
