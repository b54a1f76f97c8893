import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

/**
 * The shared fixtures folder. It sits beside the repository (`../shared/fixtures`), locally and in CI;
 * LOCKSTEP_FIXTURES_DIR overrides it.
 */
export function fixturesDir(fromDir: string = process.cwd()): string {
  if (process.env.LOCKSTEP_FIXTURES_DIR) return resolve(process.env.LOCKSTEP_FIXTURES_DIR);
  let dir = resolve(fromDir);
  for (;;) {
    const candidate = join(dir, "..", "shared", "fixtures");
    if (existsSync(join(dir, "pnpm-workspace.yaml")) && existsSync(candidate)) return resolve(candidate);
    const parent = resolve(dir, "..");
    if (parent === dir) throw new Error("shared fixtures not found: set LOCKSTEP_FIXTURES_DIR");
    dir = parent;
  }
}
