// `lockstep leases`, `lockstep lease acquire|release|cancel-preemption`, `lockstep preflight`: the lease-coordinator's
// LeaseService over gRPC (--server, default $LOCKSTEP_LEASE_COORDINATOR_ADDR or 127.0.0.1:9091), authenticated with
// the caller's token (connection.ts); refusals exit 3, unreachable 4, not allowed 5 (exit-codes.ts).
import * as grpc from "@grpc/grpc-js";
import {
  LeaseServiceClient,
  NodeLease,
  OperationType,
  StateFreshness,
  Warning,
  type ListResponse,
  type PreflightUpgradeResponse,
  type AcquireResponse,
  type CancelPreemptionResponse,
  type ReleaseResponse,
} from "@lockstep/contracts";
import { toOperationType } from "@lockstep/lease-client";
import { type Command, InvalidArgumentError, Option } from "commander";
import { stringify } from "yaml";
import { addressHint, defaultAddress, serverAddress, serverHelp } from "../addresses.js";
import { versionArg } from "../args.js";
import { callMetadata, channelCredentials, type ConnectionFlags } from "../connection.js";
import { CliError, EXIT, grpcFailure } from "../exit-codes.js";
import { warnIfStale } from "../stale-warning.js";

export const DEFAULT_LEASE_ADDR = defaultAddress("lease-coordinator");

const OPERATION_NAMES: Record<number, string> = {
  [OperationType.OPERATION_TYPE_UPDATE]: "Update",
  [OperationType.OPERATION_TYPE_REBOOT]: "Reboot",
  [OperationType.OPERATION_TYPE_DRAIN]: "Drain",
  [OperationType.OPERATION_TYPE_FENCE]: "Fence",
  [OperationType.OPERATION_TYPE_MAINTENANCE]: "Maintenance",
  [OperationType.OPERATION_TYPE_DEPROVISION]: "Deprovision",
  [OperationType.OPERATION_TYPE_POWER_OFF]: "PowerOff",
};

export function parseOperationArg(value: string): OperationType {
  try {
    return toOperationType(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message);
  }
}

/** The longest duration the lease API carries (its seconds are an int32): about 68 years. */
export const MAX_DURATION_SECONDS = 2_147_483_647;

function withinInt32(value: string, seconds: number): number {
  if (seconds > MAX_DURATION_SECONDS) throw new InvalidArgumentError(`duration "${value}" is too long: at most ${MAX_DURATION_SECONDS}s (about 68 years)`);
  return seconds;
}

/** "90s", "15m", "1h", "1h30m" or plain seconds → whole seconds (a usage error beyond int32). */
export function parseDurationArg(value: string): number {
  const text = value.trim();
  if (/^\d+$/.test(text) && Number(text) > 0) return withinInt32(value, Number(text));
  const re = /(\d+)(h|m|s)/gy;
  let total = 0;
  let consumed = 0;
  for (let m = re.exec(text); m !== null; m = re.exec(text)) {
    total += Number(m[1]) * { h: 3600, m: 60, s: 1 }[m[2] as "h" | "m" | "s"];
    consumed = re.lastIndex;
  }
  if (text === "" || consumed !== text.length || total <= 0) throw new InvalidArgumentError(`invalid duration "${value}" (e.g. 90s, 15m, 1h, 1h30m)`);
  return withinInt32(value, total);
}

function age(from: Date | undefined, now: Date): string {
  if (!from) return "-";
  const s = Math.max(0, Math.floor((now.getTime() - from.getTime()) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.floor(s / 60)}m`;
  return `${Math.floor(s / 3600)}h${Math.floor((s % 3600) / 60)}m`;
}

/** PREEMPTED-BY: a binding preemption (the holder must release) or, marked "asked:", a polite one. */
function preemption(l: NodeLease, now: Date): string {
  if (l.preemptedBy) return `${l.preemptedBy}${l.preemptTime ? ` ${age(l.preemptTime, now)} ago` : ""}`;
  if (l.preemptionRequestedBy) return `asked: ${l.preemptionRequestedBy}`;
  return "";
}

/** The `lockstep leases` table. */
export function formatLeases(leases: readonly NodeLease[], now = new Date()): string {
  if (leases.length === 0) return "No leases held.\n";
  const rows = leases.map((l) => [
    l.node,
    OPERATION_NAMES[l.operation] ?? "-",
    l.holder,
    age(l.acquireTime, now),
    `${l.durationSeconds}s`,
    l.foreign ? `${l.namespace}/${l.leaseName}` : "",
    preemption(l, now),
    l.reason,
  ]);
  const head = ["NODE", "OPERATION", "HOLDER", "HELD FOR", "TERM", "FOREIGN", "PREEMPTED-BY", "REASON"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd();
  return `${[line(head), ...rows.map(line)].join("\n")}\n`;
}

export function formatWarnings(warnings: readonly Warning[]): string {
  return warnings.map((w) => `WARNING [${w.code}]${w.node ? ` ${w.node}` : ""}: ${w.message}\n`).join("");
}

async function rpc<Res>(flags: ConnectionFlags & { server?: string }, method: "acquire" | "release" | "cancelPreemption" | "list" | "preflightUpgrade", req: object): Promise<Res> {
  const target = serverAddress("lease-coordinator", flags.server);
  const server = target.address;
  const metadata = await callMetadata(flags);
  const client = new LeaseServiceClient(server, channelCredentials());
  const fn = (client[method] as unknown as (r: object, md: grpc.Metadata, o: Partial<grpc.CallOptions>, cb: (e: grpc.ServiceError | null, r: Res) => void) => void).bind(client);
  // An Acquire that waits in line may take as long as it asked to wait.
  const waitMs = "waitSeconds" in req ? Number(req.waitSeconds) * 1000 : 0;
  return new Promise<Res>((resolve, reject) =>
    fn(req, metadata, { deadline: new Date(Date.now() + 60_000 + waitMs) }, (err, res) => {
      client.close();
      if (err) reject(grpcFailure(err, "lease-coordinator", server, addressHint(target)));
      else resolve(res);
    }),
  );
}

const SERVER_HELP = serverHelp("lease-coordinator");
const TOKEN_HELP = "bearer token to authenticate with (default $LOCKSTEP_TOKEN, else the kubeconfig's current user)";
const KUBECONFIG_HELP = "kubeconfig whose current user's token is sent (default $KUBECONFIG or ~/.kube/config)";
const HOLDER_HELP = "holder name: with authentication your identity (the default) or <identity>/<suffix>; without, any name";

type Flags = ConnectionFlags & { server?: string };
type Output = "json" | "yaml";

const outputOption = () => new Option("-o, --output <format>", "structured output instead of text").choices(["json", "yaml"]);

/** `-o json|yaml` of `leases`: the list always present, each lease in its protobuf JSON form. */
export function leasesAsData(leases: readonly NodeLease[]): { leases: unknown[] } {
  return { leases: leases.map((l) => NodeLease.toJSON(l)) };
}

function structured(value: unknown, output: Output): string {
  return output === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value);
}

function connectionOptions(cmd: Command): Command {
  return cmd.option("--server <addr>", SERVER_HELP).option("--token <token>", TOKEN_HELP).option("--kubeconfig <file>", KUBECONFIG_HELP);
}

export function register(program: Command): void {
  connectionOptions(program.command("leases").description("list node leases held now (Lockstep's and foreign ones)"))
    .option("--operation <op>", "only this operation", parseOperationArg)
    .option("--pool <name>", "only nodes of this pool")
    .addOption(outputOption())
    .action(async (flags: Flags & { operation?: OperationType; pool?: string; output?: Output }) => {
      const res = await rpc<ListResponse>(flags, "list", { operation: flags.operation ?? OperationType.OPERATION_TYPE_UNSPECIFIED, pool: flags.pool ?? "" });
      warnIfStale(res.freshness, "lease-coordinator");
      const freshness = res.freshness ? { freshness: StateFreshness.toJSON(res.freshness) } : {};
      process.stdout.write(flags.output ? structured({ ...leasesAsData(res.leases), ...freshness }, flags.output) : formatLeases(res.leases));
    });

  const lease = program.command("lease").description("acquire or release a node lease");
  connectionOptions(lease.command("acquire <node>").description("hold a node, e.g. for an admin maintenance window"))
    .option("--op <operation>", "Update, Reboot, Drain, Fence, Maintenance, Deprovision or PowerOff", parseOperationArg, OperationType.OPERATION_TYPE_MAINTENANCE)
    .option("--holder <identity>", HOLDER_HELP, "")
    .requiredOption("--reason <text>", "why, shown to everyone who is denied")
    .option("--duration <d>", "term, e.g. 30m or 1h", parseDurationArg, 3600)
    .option("--wait <d>", "wait in line up to this long", parseDurationArg)
    .option("--force", "preempt a holder the policy allows to be preempted (needs the force right; audited): it may no longer renew, and you are granted once it releases or its lease expires (combine with --wait to wait for that)", false)
    .action(async (node: string, flags: Flags & { op: OperationType; holder: string; reason: string; duration: number; wait?: number; force: boolean }) => {
      const res = await rpc<AcquireResponse>(flags, "acquire", {
        node,
        operation: flags.op,
        holder: flags.holder,
        reason: flags.reason,
        durationSeconds: flags.duration,
        waitSeconds: flags.wait ?? 0,
        force: flags.force,
      });
      process.stderr.write(formatWarnings(res.warnings));
      if (!res.granted) {
        const who = res.current ? ` (held by ${res.current.holder}${res.current.reason ? `: ${res.current.reason}` : ""})` : "";
        if (res.deniedCode === "PreemptionPending") {
          throw new CliError(EXIT.REFUSED, `preemption pending: ${res.deniedReason}${who}; ask again in ${res.retryAfterSeconds}s (the node is reserved for you), or use --wait`);
        }
        throw new CliError(EXIT.REFUSED, `denied: ${res.deniedReason}${who}; retry after ${res.retryAfterSeconds}s`);
      }
      process.stdout.write(`lease on ${node} granted to ${res.lease?.holder} for ${res.lease?.durationSeconds}s (renew or release it before then)\n`);
    });
  connectionOptions(lease.command("release <node>").description("release a node you hold (another's needs the release-any right)"))
    .option("--holder <identity>", "the holder whose lease to release (default: yours)", "")
    .action(async (node: string, flags: Flags & { holder: string }) => {
      const res = await rpc<ReleaseResponse>(flags, "release", { node, holder: flags.holder });
      if (!res.released) throw new CliError(EXIT.REFUSED, `${flags.holder || "you"} did not hold ${node}; nothing was released`);
      process.stdout.write(`released ${node}\n`);
    });
  // Its own verb, not `release`: release gives up a hold you have; this withdraws a claim on a hold
  // someone else has (the forced acquire's preemption mark), and the holder may renew again.
  connectionOptions(lease.command("cancel-preemption <node>").description("withdraw your pending --force preemption of a node: its holder may renew again (another's needs the release-any right)"))
    .option("--holder <identity>", "the preemptor whose preemption to withdraw (default: yours)", "")
    .action(async (node: string, flags: Flags & { holder: string }) => {
      const res = await rpc<CancelPreemptionResponse>(flags, "cancelPreemption", { node, holder: flags.holder });
      if (!res.cancelled) throw new CliError(EXIT.REFUSED, `${flags.holder || "you"} had no pending preemption of ${node}; nothing was withdrawn`);
      process.stdout.write(`preemption of ${node} withdrawn${res.lease?.holder ? `; ${res.lease.holder} keeps it` : ""}\n`);
    });

  connectionOptions(program.command("preflight").argument("[version]", "the upgrade's target OpenShift version, e.g. 4.17.0", versionArg).description("before an upgrade: nodes under maintenance or otherwise held, and budgets that block"))
    .addOption(outputOption())
    .action(async (version: string | undefined, flags: Flags & { output?: Output }) => {
      const res = await rpc<PreflightUpgradeResponse>(flags, "preflightUpgrade", { targetVersion: version ?? "" });
      warnIfStale(res.freshness, "lease-coordinator");
      const freshness = res.freshness ? { freshness: StateFreshness.toJSON(res.freshness) } : {};
      if (flags.output) process.stdout.write(structured({ warnings: res.warnings.map((w) => Warning.toJSON(w)), held: res.held.map((l) => NodeLease.toJSON(l)), ...freshness }, flags.output));
      else if (res.warnings.length === 0) process.stdout.write(`No warnings${version ? ` for an upgrade to ${version}` : ""}: no node is held.\n`);
      else process.stdout.write(formatWarnings(res.warnings));
      // Printed, but a script must not take a stale preflight as clear to go (as `lockstep status`).
      if (res.freshness?.stale) process.exitCode = EXIT.REFUSED;
    });
}
