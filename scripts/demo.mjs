#!/usr/bin/env node
// `npm run demo [-- --ci]`: checks nats-server, installs, builds, then runs the demo program
// (packages/demo) which starts everything and drives the scripted upgrade.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { pnpm } from "./pnpm.mjs";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const args = process.argv.slice(2);

function has(cmd) {
  return spawnSync("sh", ["-c", `command -v ${cmd}`], { stdio: "ignore" }).status === 0;
}

function ensureNatsServer() {
  if (process.env.NATS_URL || process.env.NATS_SERVER_BIN) return;
  if (has("nats-server") || spawnSync("test", ["-x", "/usr/sbin/nats-server"]).status === 0) return;
  const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
  if (isRoot && has("apt-get")) {
    console.error("lockstep demo: nats-server not found; installing Debian's nats-server package");
    const r = spawnSync("sh", ["-c", "apt-get install -y nats-server || (apt-get update && apt-get install -y nats-server)"], { stdio: "inherit" });
    if (r.status === 0) return;
  }
  console.error(
    [
      "lockstep demo: nats-server (with JetStream) is required and was not found.",
      "  Debian/Ubuntu: sudo apt-get install nats-server",
      "  elsewhere:     https://docs.nats.io/running-a-nats-service/introduction/installation",
      "  or point the demo at a running server: NATS_URL=nats://host:4222 npm run demo",
      "  or name the binary: NATS_SERVER_BIN=/path/to/nats-server npm run demo",
    ].join("\n"),
  );
  process.exit(1);
}

// The lease webhook's serving certificate is made with openssl at start (packages/demo/src/webhook.ts).
function ensureOpenssl() {
  if (has("openssl")) return;
  console.error(
    [
      "lockstep demo: openssl is required (the demo makes the lease webhook's CA and serving certificate with it) and was not found.",
      "  Debian/Ubuntu: sudo apt-get install openssl",
    ].join("\n"),
  );
  process.exit(1);
}

ensureNatsServer();
ensureOpenssl();
const install = pnpm(["install", "--frozen-lockfile", "--reporter=silent"], { env: { CI: "true" } });
if (install.status !== 0) process.exit(install.status ?? 1);
const build = pnpm(["exec", "turbo", "run", "build", "--output-logs=errors-only"]);
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(process.execPath, [join(root, "packages", "demo", "dist", "main.js"), ...args], { stdio: "inherit" });
process.exit(run.status ?? 1);
