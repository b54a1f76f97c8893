// Generated code is committed; this fails when regenerating from proto/ would change it.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const pkg = join(import.meta.dirname, "..");
const protoDir = join(pkg, "..", "..", "proto");
const bin = join(pkg, "node_modules", ".bin");

function files(dir: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.set(relative(dir, p), readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
}

describe("generated code", () => {
  const tmp = mkdtempSync(join(tmpdir(), "lockstep-gen-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("matches a fresh buf generate of proto/", () => {
    execFileSync(join(bin, "buf"), ["generate", "--template", join(protoDir, "buf.gen.yaml"), protoDir], {
      cwd: tmp,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    });
    const fresh = files(join(tmp, "src", "gen"));
    const committed = files(join(pkg, "src", "gen"));
    expect([...committed.keys()].sort()).toEqual([...fresh.keys()].sort());
    for (const [path, text] of fresh) expect(committed.get(path), `src/gen/${path} is stale: run pnpm generate`).toBe(text);
  });

  it("has a fresh descriptor set of proto/ for gRPC reflection (src/descriptor-set.gen.ts)", () => {
    const out = join(tmp, "descriptor-set.gen.ts");
    execFileSync(process.execPath, [join(pkg, "scripts", "descriptor-set.mjs"), out]);
    expect(readFileSync(join(pkg, "src", "descriptor-set.gen.ts"), "utf8"), "src/descriptor-set.gen.ts is stale: run pnpm generate").toBe(readFileSync(out, "utf8"));
  });

  it("passes buf lint", () => {
    execFileSync(join(bin, "buf"), ["lint"], { cwd: protoDir, stdio: "pipe" });
  });
});
