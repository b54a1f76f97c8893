// `buf breaking` in every `npm test`: the protobuf contracts change only compatibly (buf's FILE
// rules: no field renumbered, retyped or removed, no message or service renamed). The baseline is
// where this branch left main (its merge base), or, on main itself, the commit before the last one
// (its first parent): a breaking change then fails the run that would land it. Uncommitted changes
// are included, since buf reads the working tree.
import { spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../../..", import.meta.url));
const protoDir = join(root, "proto");
const buf = fileURLToPath(new URL("../node_modules/.bin/buf", import.meta.url));

const git = (...args: string[]) => spawnSync("git", args, { cwd: root, encoding: "utf8" });
const ok = (...args: string[]) => {
  const r = git(...args);
  return r.status === 0 ? r.stdout.trim() : undefined;
};

/** The commit to compare with, and why that one; undefined outside a git checkout with history. */
function baseline(): { ref: string; what: string } | undefined {
  const head = ok("rev-parse", "HEAD");
  if (!head) return undefined;
  const main = ok("rev-parse", "--verify", "--quiet", "main") ?? ok("rev-parse", "--verify", "--quiet", "origin/main");
  const mergeBase = main ? ok("merge-base", "HEAD", main) : undefined;
  if (mergeBase && mergeBase !== head) return { ref: mergeBase, what: "where this branch left main" };
  const parent = ok("rev-parse", "--verify", "--quiet", "HEAD^1");
  return parent ? { ref: parent, what: "the commit before the last one" } : { ref: head, what: "the last commit (no history)" };
}

const breaking = (input: string, against: string) => spawnSync(buf, ["breaking", input, "--against", against], { cwd: root, encoding: "utf8" });

describe("the protobuf contracts", () => {
  const base = baseline();

  it.runIf(base !== undefined)(`change only compatibly (buf breaking against ${base?.what ?? "-"})`, () => {
    const r = breaking("proto", `.git#ref=${base!.ref},subdir=proto`);
    expect(r.error).toBeUndefined();
    expect(r.stdout + r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("are checked by a buf that does refuse a breaking change (a field renumbered)", () => {
    const dir = mkdtempSync(join(tmpdir(), "lockstep-buf-"));
    try {
      cpSync(protoDir, dir, { recursive: true });
      const file = join(dir, "lockstep/state/v1/node.proto");
      const text = readFileSync(file, "utf8");
      const renumbered = text.replace(/^(\s+string name = )1;/m, "$199;");
      expect(renumbered).not.toBe(text);
      writeFileSync(file, renumbered);
      const r = breaking(dir, protoDir);
      expect(r.status).not.toBe(0);
      expect(r.stdout).toMatch(/node\.proto:.*(deleted|changed)/i);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
