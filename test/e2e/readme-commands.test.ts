// The README's shell blocks, as a reader meets them: each one carries a marker saying which test
// runs it or why none can (a real cluster, a running demo), and the blocks this file runs do what
// the README says, from the repository root, with pnpm on PATH as the README assumes.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";
import { describe, expect, it } from "vitest";
import { blocksRunBy, REPO_ROOT, shellBlocks, stripComment } from "./readme-blocks.js";

const SELF = "test/e2e/readme-commands.test.ts";
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOCKSTEP_")));
// The project's own pnpm (scripts/pnpm.mjs puts it in .tools/ when the machine has none).
const PATH = [join(REPO_ROOT, ".tools", "node_modules", ".bin"), process.env.PATH].join(delimiter);

/** What a command's output must show beyond exit 0, by the command's start. */
const EXPECT: Array<[RegExp, (stdout: string) => void]> = [
  [
    /lockstep(\.mjs)? --help$/,
    (out) => {
      for (const c of ["status", "leases", "lease", "preflight", "skew", "check-upgrade", "preview", "policies", "up", "kube-sim", "bootimages", "sim", "rehearse"])
        expect(out).toMatch(new RegExp(`^\\s+${c}\\b`, "m"));
    },
  ],
  [
    /lockstep status --from-dir packages\/testing\/testdata\/oc-upgrade-status --case (\S+)$/,
    (out) => expect(out).toBe(readFileSync(join(REPO_ROOT, "packages/testing/testdata/oc-upgrade-status/4.14.1-paused-worker-pool.output"), "utf8")),
  ],
];

describe("README shell blocks", () => {
  it("each carries a marker: run by an existing test that reads it, or not run with a reason", () => {
    const blocks = shellBlocks();
    expect(blocks.length).toBeGreaterThan(0);
    for (const b of blocks) {
      const where = `README.md:${b.line}`;
      expect(b.marker, `${where}: a shell block without <!-- readme-commands: … --> before it`).toBeDefined();
      if (b.runBy) {
        expect(existsSync(join(REPO_ROOT, b.runBy)), `${where}: ${b.runBy} does not exist`).toBe(true);
        expect(readFileSync(join(REPO_ROOT, b.runBy), "utf8"), `${where}: ${b.runBy} does not run README blocks`).toContain(`blocksRunBy(`);
      } else expect(b.marker, where).toMatch(/^not run \(.+\)$/);
    }
  });

  it("strips trailing comments but not a # inside quotes", () => {
    expect(stripComment("npm test        # install, build")).toBe("npm test");
    expect(stripComment(`printf '%s #x' a # note`)).toBe(`printf '%s #x' a`);
    expect(stripComment("echo a#b")).toBe("echo a#b");
  });

  const commands = blocksRunBy(SELF).flatMap((b) => b.commands);
  it("has commands to run here", () => expect(commands.length).toBeGreaterThan(0));

  it.each(commands)("%s", (command) => {
    const r = spawnSync("sh", ["-c", command], { cwd: REPO_ROOT, encoding: "utf8", env: { ...clean, PATH }, timeout: 120_000 });
    expect(r.status, r.stderr).toBe(0);
    const check = EXPECT.find(([re]) => re.test(command));
    expect(check, `no expectation for ${command}: add one to EXPECT`).toBeDefined();
    check![1](r.stdout);
  }, 150_000);
});
