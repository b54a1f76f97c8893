#!/usr/bin/env node
// `pnpm -s lockstep …` from the repo root: builds the CLI (and what it imports) when needed, then runs it.
// The CLI runs as a child (it needs CLI_NODE_FLAGS, which only take effect at a process's start), so
// this wrapper must behave as if it were the CLI: every stop signal it gets is passed on, and it ends
// the way the child ended (same code, or the same signal), never before the child has gone.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { CLI_NODE_FLAGS } from "./cli-node-flags.mjs";

const FORWARDED = ["SIGTERM", "SIGINT", "SIGHUP"];

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const entry = join(root, "packages", "cli", "dist", "main.js");
if (!existsSync(entry) || process.env.LOCKSTEP_REBUILD === "1") {
  // Loaded only when a build is needed (a fresh clone installs first, pnpm included).
  const { installAndBuild } = await import("./build.mjs");
  const status = installAndBuild(["--filter=@lockstep/cli...", "--output-logs=errors-only"], { stdio: ["ignore", "ignore", "inherit"] });
  if (status !== 0) process.exit(status);
}
const child = spawn(process.execPath, [...CLI_NODE_FLAGS, entry, ...process.argv.slice(2)], { stdio: "inherit" });
// Ctrl-C in a terminal reaches the child too (same process group); passing it on again is harmless,
// and a signal sent to the wrapper alone (systemd, timeout, kill PID) must reach the child.
for (const sig of FORWARDED) process.on(sig, () => child.kill(sig));
child.on("error", (err) => {
  console.error(`lockstep: cannot start the CLI: ${err.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => {
  if (signal) {
    // End by the same signal, so a caller sees what the child saw (128 + n in a shell).
    for (const sig of FORWARDED) process.removeAllListeners(sig);
    process.kill(process.pid, signal);
    // A signal whose default is not to end a process (none of ours) must still end this one.
    setTimeout(() => process.exit(128 + (constants.signals[signal] ?? 0)), 1000);
    return;
  }
  process.exit(code ?? 1);
});
