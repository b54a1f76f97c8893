#!/usr/bin/env node
// `npm test`: install everything (pnpm included), build, run every package's tests, type-check every
// package with its tests (vitest strips types, so a type error in a test passes unnoticed otherwise),
// and print one summary line `tests: N passed, N failed, N skipped` totalled over the packages'
// vitest reports; it stays the last line whatever failed (CI and the README rely on it).
import { existsSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pnpm } from "./pnpm.mjs";
import { ensurePrometheus } from "./prometheus.mjs";

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
// Once here rather than in parallel test workers; a test that needs them fails with this message.
try {
  ensurePrometheus({ log: (m) => console.error(m) });
} catch (err) {
  console.error(err.message);
}

const filter = process.argv.slice(2);
const run = pnpm(["exec", "turbo", "run", "test", "--concurrency=2", "--continue", ...filter]);

// Only failing packages' tsc output is shown; turbo's "Failed:" line names them for the summary.
const typecheck = pnpm(["exec", "turbo", "run", "typecheck", "--concurrency=2", "--continue", "--output-logs=errors-only", ...filter], {
  stdio: ["inherit", "pipe", "pipe"],
  encoding: "utf8",
  maxBuffer: 64 * 2 ** 20,
});
process.stdout.write(typecheck.stdout ?? "");
process.stderr.write(typecheck.stderr ?? "");
const typeFailures = (/^Failed:\s+(.+)$/m.exec(typecheck.stdout ?? "")?.[1] ?? "").split(/,\s*/).filter(Boolean).map((t) => t.replace(/#typecheck$/, ""));

let passed = 0, failed = 0, skipped = 0;
const missing = [];
const failures = [];
for (const d of dirs) {
  const file = join(d, REPORT);
  if (!existsSync(file)) { missing.push(d.slice(root.length + 1)); continue; }
  const r = JSON.parse(readFileSync(file, "utf8"));
  passed += r.numPassedTests ?? 0;
  failed += r.numFailedTests ?? 0;
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
  // A suite that fails to load counts no tests but is still a failure.
  if (r.success === false && (r.numFailedTests ?? 0) === 0) failed += 1;
  failures.push(...failedTests(d.slice(root.length + 1), r));
}
// Named again at the end: turbo interleaves packages' output, and a CI log is often read from its tail.
if (failures.length > 0) console.error(`failed:\n${failures.map((f) => `  ${f}`).join("\n")}`);
if (filter.length === 0 && missing.length > 0) console.error(`no test report from: ${missing.join(", ")}`);
if (typecheck.status !== 0)
  console.error(`type errors (tsc, tests included) in: ${typeFailures.length ? typeFailures.join(", ") : "see the typecheck output above"}`);
console.log(`tests: ${passed} passed, ${failed} failed, ${skipped} skipped`);
process.exit(run.status !== 0 || typecheck.status !== 0 || failed > 0 ? 1 : 0);

/** One line per failed test (or suite that failed to load): where, which, and the first line of why. */
function failedTests(pkg, report) {
  const out = [];
  for (const file of report.testResults ?? []) {
    const where = `${pkg}/${file.name.slice(file.name.indexOf(pkg) + pkg.length + 1)}`;
    const failedHere = (file.assertionResults ?? []).filter((a) => a.status === "failed");
    for (const a of failedHere) out.push(`${where} > ${a.fullName ?? a.title}: ${firstLine(a.failureMessages?.[0])}`);
    if (file.status === "failed" && failedHere.length === 0) out.push(`${where}: ${firstLine(file.message)}`);
  }
  return out;
}

function firstLine(text) {
  return String(text ?? "").split("\n").find((l) => l.trim() !== "")?.trim().slice(0, 300) ?? "";
}
