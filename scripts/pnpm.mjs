#!/usr/bin/env node
// Runs the pinned pnpm, installing it into .tools/ first if the machine lacks it.
// Corepack cannot verify pnpm against this registry (stack.md pitfall 1), and an unpinned
// global install picks pnpm 12, so the project carries its own copy.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PNPM_VERSION = "10.34.9";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const localBin = join(root, ".tools", "node_modules", ".bin", "pnpm");

function versionOf(cmd) {
  const r = spawnSync(cmd, ["--version"], { encoding: "utf8", shell: false });
  return r.status === 0 ? r.stdout.trim() : null;
}

export function ensurePnpm() {
  if (versionOf("pnpm") === PNPM_VERSION) return "pnpm";
  if (existsSync(localBin) && versionOf(localBin) === PNPM_VERSION) return localBin;
  console.error(`lockstep: installing pnpm@${PNPM_VERSION} into .tools/`);
  const r = spawnSync(
    "npm",
    ["install", "--prefix", join(root, ".tools"), "--no-audit", "--no-fund", "--loglevel=error", `pnpm@${PNPM_VERSION}`],
    { stdio: "inherit" },
  );
  if (r.status !== 0 || versionOf(localBin) !== PNPM_VERSION) {
    console.error(`lockstep: could not install pnpm@${PNPM_VERSION} with npm; install it with 'npm i -g pnpm@${PNPM_VERSION}' and retry`);
    process.exit(1);
  }
  return localBin;
}

export function pnpm(args, opts = {}) {
  const bin = ensurePnpm();
  // turbo looks the package manager up on PATH, so a local pnpm must be on it too.
  const path = bin === "pnpm" ? process.env.PATH : `${dirname(bin)}:${process.env.PATH}`;
  return spawnSync(bin, args, {
    stdio: "inherit",
    cwd: root,
    ...opts,
    env: { ...process.env, PATH: path, TURBO_TELEMETRY_DISABLED: "1", ...(opts.env ?? {}) },
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const r = pnpm(process.argv.slice(2));
  process.exit(r.status ?? 1);
}
