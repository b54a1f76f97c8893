// `lockstep skew` (the skew report) and `lockstep check-upgrade VERSION` (exit 0 allowed, 3 blocked),
// both against the skew-enforcer's SkewService.
import { Metadata, type ServiceError } from "@grpc/grpc-js";
import { addressHint, defaultAddress, serverAddress, serverHelp, type ServerAddress } from "../addresses.js";
import { versionArg } from "../args.js";
import { channelCredentials } from "../connection.js";
import { EXIT, grpcFailure } from "../exit-codes.js";
import { warnIfStale } from "../stale-warning.js";
import { type CheckUpgradeRequest, type CheckUpgradeResponse, type GetSkewReportRequest, type GetSkewReportResponse, type SkewReport, SkewServiceClient } from "@lockstep/contracts";
import { type Command, Option } from "commander";
import { stringify } from "yaml";

export const DEFAULT_SKEW_ADDR = defaultAddress("skew-enforcer");
/** Exit code of `check-upgrade` when the update would be refused. */
export const EXIT_BLOCKED = EXIT.REFUSED;
const DEADLINE_MS = 10_000;

type Output = "text" | "json" | "yaml";

function unary<Req, Res>(
  target: string | ServerAddress,
  invoke: (client: SkewServiceClient, req: Req, deadline: Date, cb: (err: ServiceError | null, res: Res) => void) => void,
  req: Req,
): Promise<Res> {
  const addr = typeof target === "string" ? target : target.address;
  const client = new SkewServiceClient(addr, channelCredentials());
  return new Promise<Res>((resolve, reject) => {
    invoke(client, req, new Date(Date.now() + DEADLINE_MS), (err, res) => {
      client.close();
      if (err) reject(grpcFailure(err, "skew-enforcer", addr, typeof target === "string" ? undefined : addressHint(target)));
      else resolve(res);
    });
  });
}

function structured(value: unknown, output: Output): string {
  return output === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value);
}

function line(label: string, value: string): string {
  return `${`${label}:`.padEnd(16)}${value}\n`;
}

/** The report as text: verdict, lagging pools, boot image and completion. */
export function renderSkewReport(r: SkewReport): string {
  let out = "";
  out += line("Control plane", r.controlPlaneVersion || "(unknown)");
  out += line("Desired", r.targetVersion || "(unknown)");
  out += line("Upgradeable", `${r.upgradeable ? "True" : "False"} (${r.reason})`);
  if (r.message) out += line("Message", r.message);
  if (r.laggingPools.length > 0) {
    out += "\nLagging pools:\n";
    const rows = [["POOL", "REASON", "VERSION", "UPDATED", "DEGRADED", "PAUSED"]];
    for (const p of r.laggingPools) {
      rows.push([p.pool, p.reason, p.poolVersion || "?", `${p.updatedMachineCount}/${p.machineCount}`, String(p.degradedMachineCount), p.paused ? "yes" : "no"]);
    }
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((row) => row[i]!.length)));
    for (const row of rows) out += `  ${row.map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i]! + 2))).join("")}\n`;
  }
  const b = r.bootImage;
  if (b) {
    const recorded = b.ocpVersion ? `OCP ${b.ocpVersion}` : b.rhcosVersion ? `RHCOS ${b.rhcosVersion}` : "none recorded";
    out += "\n";
    out += line("Boot image", `mode ${b.mode}, ${recorded} (limits OCP ${b.ocpLimit}, RHEL ${b.rhcosLimit})${b.violated ? ", below the limit" : ""}`);
    if (b.warning) out += line("Warning", b.warning);
  }
  out += line("Update", r.updateComplete ? `complete: every node runs ${r.targetVersion}` : `incomplete${r.incompletePools.length ? ` (pools: ${r.incompletePools.join(", ")})` : ""}`);
  if (r.completionMessage) out += `${" ".repeat(16)}${r.completionMessage}\n`;
  return out;
}

export function renderCheckUpgrade(target: string, r: CheckUpgradeResponse): string {
  const verdict = r.allowed ? (r.forced ? "allowed (forced)" : "allowed") : "blocked";
  let out = `Update to ${target}${r.kind ? ` (${r.kind})` : ""}: ${verdict}\n`;
  if (r.reasons.length > 0) out += line("Reasons", r.reasons.join(", "));
  if (r.message) out += line("Message", r.message);
  for (const w of r.warnings) out += line("Warning", w);
  return out;
}

/**
 * `lockstep skew`: the report, as text or structured (the report's fields, and `freshness` when the
 * enforcer says how old its view is). A stale view is warned of on `warn` (stderr).
 */
export async function runSkew(addr: string | ServerAddress, output: Output = "text", warn: NodeJS.WritableStream = process.stderr): Promise<string> {
  const res = await unary<GetSkewReportRequest, GetSkewReportResponse>(addr, (c, req, deadline, cb) => c.getSkewReport(req, new Metadata(), { deadline }, cb), {});
  if (!res.report) throw new Error(`skew-enforcer at ${typeof addr === "string" ? addr : addr.address} returned no report`);
  warnIfStale(res.freshness, "skew-enforcer", warn);
  if (output === "text") return renderSkewReport(res.report);
  return structured(res.freshness ? { ...res.report, freshness: res.freshness } : res.report, output);
}

/**
 * `lockstep check-upgrade`: the answer and the exit code (0 allowed, 3 blocked: a minor while the
 * enforcer's view is stale too, reason StateStale). A stale view is warned of on `warn` (stderr).
 */
export async function runCheckUpgrade(
  addr: string | ServerAddress,
  version: string,
  force: boolean,
  output: Output = "text",
  warn: NodeJS.WritableStream = process.stderr,
): Promise<{ text: string; exitCode: number }> {
  const res = await unary<CheckUpgradeRequest, CheckUpgradeResponse>(
    addr,
    (c, req, deadline, cb) => c.checkUpgrade(req, new Metadata(), { deadline }, cb),
    { targetVersion: version, force },
  );
  warnIfStale(res.freshness, "skew-enforcer", warn);
  return { text: output === "text" ? renderCheckUpgrade(version, res) : structured(res, output), exitCode: res.allowed ? 0 : EXIT_BLOCKED };
}

export function register(program: Command): void {
  const output = () => new Option("-o, --output <format>", "structured output instead of text").choices(["json", "yaml"]);
  const server = serverHelp("skew-enforcer");

  program
    .command("skew")
    .description("show pool lag, boot image skew and update completion, and whether a minor upgrade is allowed")
    .option("--server <addr>", server)
    .addOption(output())
    .action(async (flags: { server?: string; output?: Output }) => {
      process.stdout.write(await runSkew(serverAddress("skew-enforcer", flags.server), flags.output));
    });

  program
    .command("check-upgrade")
    .description(`would an update to VERSION be accepted? exit code 0 when allowed, ${EXIT_BLOCKED} when blocked`)
    .argument("<version>", "target OpenShift version, e.g. 4.17.0", versionArg)
    .option("--force", "check as a forced update (blocks are bypassed and recorded)", false)
    .option("--server <addr>", server)
    .addOption(output())
    .action(async (version: string, flags: { force: boolean; server?: string; output?: Output }) => {
      const { text, exitCode } = await runCheckUpgrade(serverAddress("skew-enforcer", flags.server), version, flags.force, flags.output);
      process.stdout.write(text);
      if (exitCode !== 0) process.exitCode = exitCode;
    });
}
