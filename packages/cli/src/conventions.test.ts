// The built `lockstep` command's conventions across commands: distinct exit codes (2 usage, 4
// unreachable), versions checked before anything is called, errors that say how to fix them, and
// `-o json|yaml` on every read command.
import { spawnSync } from "node:child_process";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const mainJs = join(resolve(dirname(fileURLToPath(import.meta.url)), ".."), "dist", "main.js");
const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("LOCKSTEP_")));
const run = (args: string[], env: Record<string, string> = {}) =>
  spawnSync(process.execPath, [mainJs, ...args], { encoding: "utf8", env: { ...clean, KUBECONFIG: "/nonexistent", ...env }, timeout: 60_000 });

describe("lockstep conventions (built CLI)", () => {
  it.each([
    [["check-upgrade", "4.x"], 'invalid OCP version "4.x"'],
    [["preflight", "4.x", "--server", "127.0.0.1:1"], 'invalid OCP version "4.x"'],
    [["sim", "generate", "--version", "v4.16"], 'must not start with "v"'],
  ])("%j is a usage error before anything is called", (args, text) => {
    const r = run(args);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(text);
    expect(r.stderr).not.toContain("cannot reach");
  });

  it.each([
    [["status", "--from-dir", "x"], "offline mode needs both --from-dir DIR and --case NAME"],
    [["status", "--from-dir", "x", "--case", "y", "-o", "json"], "--watch, -o and --server are for live mode"],
    [["status", "--from-api", "--watch"], "--from-api reads the Update Status API objects once"],
    [["status", "--from-api", "-o", "json"], "--from-api reads the Update Status API objects once"],
    [["preview", "-f", "mc.yaml", "--pool", "worker", "--node", "n1"], "pass exactly one of --pool NAME or --node NAME"],
    [["kube-sim", "serve", "--port", "70000"], 'invalid port "70000"'],
    [["sim", "run", "--scenario", "no-such-scenario"], 'scenario "no-such-scenario" not found'],
    [["sim", "generate", "--workers", "2", "--max-unavailable", "lots"], "maxUnavailable"],
    [["skew", "-o", "xml"], "Allowed choices are json, yaml"],
    [["lease", "acquire", "w1", "--op", "Maintenance", "--reason", "r", "--duration", "99999999h", "--server", "127.0.0.1:1"], 'duration "99999999h" is too long'],
    [["lease", "acquire", "w1", "--op", "Maintenance", "--reason", "r", "--wait", "99999999h", "--server", "127.0.0.1:1"], 'duration "99999999h" is too long'],
    [["no-such-command"], "unknown command"],
    [["leases"], "LOCKSTEP_LEASE_ADDR is no longer read: set LOCKSTEP_LEASE_COORDINATOR_ADDR instead"],
  ])("%j exits 2 and says what is wrong", (args, text) => {
    const r = run(args, { LOCKSTEP_LEASE_ADDR: "127.0.0.1:1" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(text);
  });

  it.each([
    [["skew"], "skew-enforcer", "LOCKSTEP_SKEW_ENFORCER_ADDR"],
    [["leases"], "lease-coordinator", "LOCKSTEP_LEASE_COORDINATOR_ADDR"],
    [["bootimages", "-o", "json"], "bootimage-updater", "LOCKSTEP_BOOTIMAGE_UPDATER_ADDR"],
    [["policies", "-o", "yaml"], "status-aggregator", "LOCKSTEP_STATUS_AGGREGATOR_ADDR"],
  ])("%j unreachable exits 4 naming --server and the service's variable", (args, service, variable) => {
    const r = run(args, { [variable]: "127.0.0.1:1" });
    expect(r.status).toBe(4);
    expect(r.stderr).toContain(`cannot reach the ${service} at 127.0.0.1:1`);
    expect(r.stderr).toContain(`(from $${variable}; pass --server ADDR or fix the variable)`);
  });

  it("every read command takes -o json|yaml", () => {
    for (const cmd of [["status"], ["leases"], ["preflight"], ["skew"], ["check-upgrade"], ["bootimages"], ["policies"], ["preview"], ["sim", "generate"]]) {
      const r = run([...cmd, "--help"]);
      expect(r.status, cmd.join(" ")).toBe(0);
      expect(r.stdout, cmd.join(" ")).toMatch(/-o, --output <format>[\s\S]*?\(choices:\s+"json",\s+"yaml"\)/);
    }
  });
});
