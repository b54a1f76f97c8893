#!/usr/bin/env node
// `pnpm -s lockstep …` from the repo root: builds the CLI (and what it imports) when needed, then runs it.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI_NODE_FLAGS } from "./cli-node-flags.mjs";
import { pnpm } from "./pnpm.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "packages", "cli", "dist", "main.js");
if (!existsSync(entry) || process.env.LOCKSTEP_REBUILD === "1") {
  const b = pnpm(["exec", "turbo", "run", "build", "--filter=@lockstep/cli...", "--output-logs=errors-only"], { stdio: ["ignore", "ignore", "inherit"] });
  if (b.status !== 0) process.exit(b.status ?? 1);
}
const r = spawnSync(process.execPath, [...CLI_NODE_FLAGS, entry, ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(r.status ?? 1);
