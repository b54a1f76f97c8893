// `lockstep rehearse --to VERSION (--from-dir DIR --case NAME | --kubeconfig FILE | --nats URL)`:
// the cluster's snapshot replayed in cluster-sim's actors with Lockstep's rules, in virtual time, and
// a forecast (README "Rehearse an update"). CLI only: the rehearsal needs no service; it reads a dump,
// lists the API server (GETs only) or reads the state plane, and writes nothing.
// Exit 0 when the forecast finishes, 3 when something blocks it for good.
import { loadKubeAccess } from "@lockstep/kube";
import { disruptionRules, loadSnapshotApi, loadSnapshotDir, loadSnapshotNats, rehearse, renderForecast, SnapshotError, type Forecast, type RehearsalSnapshot } from "@lockstep/rehearse";
import { type Command, InvalidArgumentError, Option } from "commander";
import { versionArg } from "../args.js";
import { CliError, EXIT } from "../exit-codes.js";

export interface RehearseFlags {
  to: string;
  fromDir?: string;
  case?: string;
  kubeconfig?: string;
  nats?: string;
  seed: number;
  start?: string;
  horizon: number;
  output?: "json";
}

function intArg(name: string, min: number) {
  return (v: string): number => {
    const n = Number(v);
    if (!Number.isInteger(n) || n < min) throw new InvalidArgumentError(`${name} must be an integer >= ${min}`);
    return n;
  };
}

function startArg(v: string): string {
  if (!Number.isFinite(Date.parse(v))) throw new InvalidArgumentError(`not an RFC 3339 time: "${v}" (e.g. 2026-03-02T02:00:00Z)`);
  return v;
}

async function source(flags: RehearseFlags): Promise<{ snap: RehearsalSnapshot; live: boolean }> {
  const dir = flags.fromDir !== undefined || flags.case !== undefined;
  if ([dir, flags.kubeconfig !== undefined, flags.nats !== undefined].filter(Boolean).length !== 1) throw new CliError(EXIT.USAGE, "give one source: --from-dir DIR --case NAME, --kubeconfig FILE or --nats URL");
  if (dir) {
    if (flags.fromDir === undefined || flags.case === undefined) throw new CliError(EXIT.USAGE, "--from-dir and --case go together");
    return { snap: loadSnapshotDir(flags.fromDir, flags.case), live: false };
  }
  const where = flags.kubeconfig !== undefined ? `the cluster through ${flags.kubeconfig}` : `the state plane at ${flags.nats}`;
  try {
    const snap = flags.kubeconfig !== undefined ? await loadSnapshotApi(await loadKubeAccess(flags.kubeconfig)) : await loadSnapshotNats({ servers: flags.nats!, timeoutMs: 5_000 });
    return { snap, live: true };
  } catch (err) {
    if (err instanceof SnapshotError && flags.kubeconfig !== undefined) throw err;
    throw new CliError(EXIT.UNREACHABLE, `cannot read ${where}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

export async function runRehearse(flags: RehearseFlags): Promise<{ text: string; exitCode: number; forecast: Forecast }> {
  let forecast: Forecast;
  try {
    const { snap, live } = await source(flags);
    // A dump starts at its own newest timestamp (reproducible); a live cluster starts now.
    const start = flags.start ? new Date(flags.start) : live ? new Date() : undefined;
    const disruption = await disruptionRules(snap.nodeDisruptionPolicies);
    forecast = rehearse(snap, { to: flags.to, seed: flags.seed, start, horizonHours: flags.horizon, disruption });
  } catch (err) {
    if (err instanceof SnapshotError) throw new CliError(EXIT.USAGE, err.message);
    throw err;
  }
  const text = flags.output === "json" ? `${JSON.stringify(forecast, null, 2)}\n` : renderForecast(forecast);
  return { text, exitCode: forecast.finish === null ? EXIT.REFUSED : EXIT.OK, forecast };
}

export function register(program: Command): void {
  program
    .command("rehearse")
    .description(`replay an update to VERSION on a snapshot of the cluster and forecast it: per pool start, duration and finish, and what blocks (exit ${EXIT.REFUSED} when it does not finish)`)
    .requiredOption("--to <version>", "the release to rehearse, e.g. 4.16.3", versionArg)
    .option("--from-dir <dir>", "directory of YAML dumps in the oc golden layout (<case>-cv.yaml, -co, -mc, -mcp, -node; -pod, -pdb, -lease, -budget, -ndp, -infra when present)")
    .option("--case <name>", "the dump's case name (file prefix), with --from-dir")
    .option("--kubeconfig <file>", "read the cluster from its API server instead (GETs only; nothing is written)")
    .option("--nats <url>", "read the cluster from Lockstep's state plane instead (the watcher's KV bucket; no pods, so no PodDisruptionBudget is replayed)")
    .option("--seed <n>", "seed of the stage jitter (same snapshot and seed, same forecast)", intArg("--seed", 0), 1)
    .option("--start <time>", "wall-clock start of the rehearsal (default: a dump's newest timestamp; now for --kubeconfig and --nats)", startArg)
    .option("--horizon <hours>", "simulate at most this long; what still waits then is blocked", intArg("--horizon", 1), 72)
    .addOption(new Option("-o, --output <format>", "structured output instead of text").choices(["json"]))
    .action(async (flags: RehearseFlags) => {
      const { text, exitCode } = await runRehearse(flags);
      process.stdout.write(text);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
