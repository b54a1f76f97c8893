#!/usr/bin/env node
// `npm test`: install everything (pnpm included), build, run every package's tests, and print one
// summary line `tests: N passed, N failed, N skipped` totalled over the packages' vitest reports.
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pnpm } from "./pnpm.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const REPORT = ".vitest-report.json";

function packageDirs() {
  const dirs = [];
  for (const group of ["packages", "services"]) {
    const base = join(root, group);
    if (!existsSync(base)) continue;
    for (const name of readdirSync(base)) dirs.push(join(base, name));
  }
  for (const single of ["test", "bench"]) dirs.push(join(root, single));
  return dirs.filter((d) => existsSync(join(d, "package.json")));
}

const dirs = packageDirs();
for (const d of dirs) rmSync(join(d, REPORT), { force: true });

const install = pnpm(["install", "--frozen-lockfile"], { env: { CI: "true" } });
if (install.status !== 0) process.exit(install.status ?? 1);

const filter = process.argv.slice(2);
const run = pnpm(["exec", "turbo", "run", "test", "--concurrency=2", "--continue", ...filter]);

let passed = 0, failed = 0, skipped = 0;
const missing = [];
for (const d of dirs) {
  const file = join(d, REPORT);
  if (!existsSync(file)) { missing.push(d.slice(root.length + 1)); continue; }
  const r = JSON.parse(readFileSync(file, "utf8"));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A suite that fails to load counts no tests but is still a failure.
  if (r.success === false && (r.numFailedTests ?? 0) === 0) failed += 1;
}
if (filter.length === 0 && missing.length > 0) console.error(`no test report from: ${missing.join(", ")}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(run.status !== 0 || failed > 0 ? 1 : 0);
