// How to point the `lockstep` command (and kubectl) at a running demo: one env file to source and
// the exact command to run, printed when the demo starts, not only when it ends.
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The services the CLI calls, by the names the launcher gives them. */
export const CLI_SERVICES = ["status-aggregator", "lease-coordinator", "skew-enforcer", "bootimage-updater"] as const;

/** The CLI's one variable per service: LOCKSTEP_<SERVICE>_ADDR (see the README's CLI section). */
export function addressVariable(service: string): string {
  return `LOCKSTEP_${service.toUpperCase().replace(/-/g, "_")}_ADDR`;
}

/** `pnpm -s lockstep` when pnpm is on PATH, else the script it runs (the project may keep pnpm in .tools/). */
export function cliCommand(path: string | undefined, isFile: (p: string) => boolean = existsSync): string {
  const dirs = (path ?? "").split(delimiter).filter((d) => d);
  return dirs.some((d) => isFile(join(d, "pnpm"))) ? "pnpm -s lockstep" : "node scripts/lockstep.mjs";
}

/** POSIX shell single quotes. */
function quote(s: string): string {
  return /^[A-Za-z0-9_./:@=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The env file's text: an export per address, and KUBECONFIG for kubectl. */
export function envFileText(addresses: Readonly<Record<string, string>>, kubeconfig: string): string {
  const lines = ["# Source this file (. ./lockstep.env) to point the lockstep CLI and kubectl at the running demo."];
  for (const [service, addr] of Object.entries(addresses)) lines.push(`export ${addressVariable(service)}=${quote(addr)}`);
  lines.push(`export KUBECONFIG=${quote(kubeconfig)}`);
  return `${lines.join("\n")}\n`;
}

/** What the demo prints at start: where the env file is and what to run after sourcing it. */
export function connectText(envFile: string, cli: string): string[] {
  return [
    "Point the CLI at this demo from another terminal, in the repository root:",
    `  . ${quote(envFile)}`,
    `  ${cli} status --details nodes`,
    `  ${cli} leases`,
    `  ${cli} skew`,
    "  kubectl get nodes",
  ];
}

/** The one-line reminders the live view shows, longest first (it keeps the first that fits). */
export function connectHints(envFile: string, cli: string): string[] {
  return [`other terminal: . ${quote(envFile)} && ${cli} status`, `CLI: . ${quote(envFile)} && ${cli} status`, `CLI env: ${quote(envFile)}`];
}
