#!/usr/bin/env node
// The project's prometheus and promtool (the chart's alert rules are unit-tested with `promtool test
// rules`; an e2e test runs a real Prometheus against the services). Debian's package `prometheus`,
// as the demo takes nats-server from Debian: PROMETHEUS_BIN / PROMTOOL_BIN when set, else the
// binaries on PATH, else the package's two binaries unpacked into .tools/prometheus/ with
// `apt-get download` + `dpkg-deb -x` (no root needed, and no daemon started as a package install
// would do; `apt-get update` first when the package lists are missing and we are root).
// Run by scripts/test.mjs before the tests and again by the tests that need the tools (fast when
// they are in place). Node built-ins only.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGE = "prometheus";
const root = join(dirname(fileURLToPath(import.meta.url)), "..");
export const prometheusDir = join(root, ".tools", "prometheus");
const NAMES = ["prometheus", "promtool"];

const onPath = (name) => {
  const r = spawnSync("sh", ["-c", `command -v ${name}`], { encoding: "utf8" });
  return r.status === 0 ? r.stdout.trim() : undefined;
};

function fromEnvOrPath() {
  const found = {};
  for (const name of NAMES) {
    const env = process.env[`${name.toUpperCase()}_BIN`];
    const local = join(prometheusDir, name);
    found[name] = env || (existsSync(local) ? local : onPath(name));
  }
  return found;
}

function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8" });
  if (r.error) return `${cmd}: ${r.error.message}`;
  return r.status === 0 ? undefined : `${cmd} ${args.join(" ")} exited ${r.status}: ${(r.stderr || r.stdout).trim().split("\n").slice(-3).join(" / ")}`;
}

/** Unpacks Debian's package into .tools/prometheus/; returns why it could not, or undefined. */
function unpackDebianPackage(log) {
  if (!onPath("apt-get") || !onPath("dpkg-deb")) return "apt-get and dpkg-deb are not available (not a Debian-like system)";
  const work = mkdtempSync(join(tmpdir(), "lockstep-prometheus-"));
  try {
    log(`lockstep: ${NAMES.join(" and ")} not found; unpacking Debian's ${PACKAGE} package into .tools/prometheus/`);
    let failed = run("apt-get", ["download", PACKAGE], work);
    const isRoot = typeof process.getuid === "function" && process.getuid() === 0;
    if (failed && isRoot) failed = run("apt-get", ["update"], work) ?? run("apt-get", ["download", PACKAGE], work);
    if (failed) return failed;
    const deb = readdirSync(work).find((f) => f.endsWith(".deb"));
    if (!deb) return `apt-get download ${PACKAGE} left no .deb`;
    failed = run("dpkg-deb", ["-x", deb, "x"], work);
    if (failed) return failed;
    mkdirSync(prometheusDir, { recursive: true });
    for (const name of NAMES) {
      const from = join(work, "x", "usr", "bin", name);
      if (!existsSync(from)) return `the ${PACKAGE} package has no usr/bin/${name}`;
      // A rename, so a parallel test worker never runs a half-written file.
      const partial = join(prometheusDir, `${name}.${process.pid}.part`);
      renameSync(from, partial);
      renameSync(partial, join(prometheusDir, name));
    }
    return undefined;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The paths of prometheus and promtool, installing them into .tools/prometheus/ when missing.
 * Throws with what to do when they cannot be had (tests fail with that message, never skip).
 */
export function ensurePrometheus({ log = () => {} } = {}) {
  let found = fromEnvOrPath();
  if (NAMES.every((n) => found[n])) return found;
  const why = unpackDebianPackage(log);
  found = fromEnvOrPath();
  if (NAMES.every((n) => found[n])) return found;
  throw new Error(
    [
      `lockstep: ${NAMES.filter((n) => !found[n]).join(" and ")} not found and not installable (${why}).`,
      "  Debian/Ubuntu: sudo apt-get install prometheus",
      "  elsewhere:     https://prometheus.io/download/ (prometheus and promtool)",
      "  or name the binaries: PROMETHEUS_BIN=/path/to/prometheus PROMTOOL_BIN=/path/to/promtool",
    ].join("\n"),
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    const paths = ensurePrometheus({ log: (m) => console.error(m) });
    console.error(`lockstep: prometheus ${paths.prometheus}, promtool ${paths.promtool}`);
  } catch (err) {
    // Not fatal here: the tests that need the tools fail with this message.
    console.error(err.message);
  }
}
