// `lockstep bootimages [--preview] [-o json|yaml] [--server ADDR]`: the bootimage-updater's last
// pass (GetStatus) or what it would patch now (Preview), from its BootImageService.
import { Metadata, type ServiceError } from "@grpc/grpc-js";
import { addressHint, defaultAddress, serverAddress, serverHelp, type ServerAddress } from "../addresses.js";
import { channelCredentials } from "../connection.js";
import { grpcFailure } from "../exit-codes.js";
import { warnIfStale } from "../stale-warning.js";
import { BootImageServiceClient, BootImageStatus, MachineSetPlan, type StateFreshness } from "@lockstep/contracts";
import { type Command, Option } from "commander";
import { stringify } from "yaml";

export const DEFAULT_BOOTIMAGE_ADDR = defaultAddress("bootimage-updater");

type Output = "text" | "json" | "yaml";

interface Flags {
  preview: boolean;
  server?: string;
  output?: "json" | "yaml";
}

function table(rows: string[][]): string {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? "").length)));
  return rows.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd()).join("\n") + "\n";
}

function planRows(plans: readonly MachineSetPlan[], withPatch: boolean): string[][] {
  const head = ["MACHINESET", "PLATFORM", "ACTION", "CURRENT", "TARGET", withPatch ? "PATCH / REASON" : "REASON"];
  return [head, ...plans.map((p) => [`${p.namespace}/${p.name}`, p.platform, p.action, p.currentImage || "-", p.targetImage || "-", (withPatch && p.patchJson) || p.reason || "-"])];
}

/** Text for `lockstep bootimages --preview`. */
export function formatPreview(plans: readonly MachineSetPlan[]): string {
  if (plans.length === 0) return "No MachineSet is enrolled, or the cluster is mid-update: nothing would be patched.\n";
  const patches = plans.filter((p) => p.action === "Patch").length;
  return `${table(planRows(plans, true))}\n${patches} of ${plans.length} MachineSets would be patched.\n`;
}

/** Text for `lockstep bootimages`. */
export function formatStatus(s: BootImageStatus): string {
  const record = s.clusterBootImageOcpVersion ? `OCP ${s.clusterBootImageOcpVersion}` : s.clusterBootImageRhcosVersion ? `RHCOS ${s.clusterBootImageRhcosVersion}` : "not recorded";
  const head = `Release boot images: ${s.releaseVersion || "unknown"}\nCluster boot image:  ${record}\nLast pass:           ${s.updated} updated, ${s.skipped} skipped, ${s.errors} errors\n`;
  return s.machineSets.length === 0 ? head : `${head}\n${table(planRows(s.machineSets, false))}`;
}

function unary<Res>(client: InstanceType<typeof BootImageServiceClient>, method: "preview" | "getStatus"): Promise<Res> {
  return new Promise((resolve, reject) => {
    const deadline = new Date(Date.now() + 10_000);
    (client[method] as (req: object, meta: Metadata, opts: object, cb: (e: ServiceError | null, r: Res) => void) => void)({}, new Metadata(), { deadline }, (err, res) => (err ? reject(err) : resolve(res)));
  });
}

function structured(value: unknown, output: "json" | "yaml"): string {
  return output === "json" ? `${JSON.stringify(value, null, 2)}\n` : stringify(value);
}

/**
 * Calls the updater at `target` and returns what to print: text, or the answer as JSON or YAML (the
 * status with `freshness` when the updater says how old its view is). A stale view is warned of on
 * `warn` (stderr).
 */
export async function runBootImages(target: string | ServerAddress, preview: boolean, output: Output = "text", warn: NodeJS.WritableStream = process.stderr): Promise<string> {
  const server = typeof target === "string" ? target : target.address;
  const client = new BootImageServiceClient(server, channelCredentials());
  try {
    if (preview) {
      const { plans, freshness } = await unary<{ plans: MachineSetPlan[]; freshness?: StateFreshness }>(client, "preview");
      warnIfStale(freshness, "bootimage-updater", warn);
      return output === "text" ? formatPreview(plans) : structured({ plans: plans.map((p) => MachineSetPlan.toJSON(p)), ...(freshness ? { freshness } : {}) }, output);
    }
    const res = await unary<{ status?: BootImageStatus; freshness?: StateFreshness }>(client, "getStatus");
    if (!res.status) throw new Error("the bootimage-updater returned no status");
    warnIfStale(res.freshness, "bootimage-updater", warn);
    if (output === "text") return formatStatus(res.status);
    const json = BootImageStatus.toJSON(res.status) as Record<string, unknown>;
    return structured(res.freshness ? { ...json, freshness: res.freshness } : json, output);
  } catch (err) {
    if (typeof (err as ServiceError).code === "number") throw grpcFailure(err as ServiceError, "bootimage-updater", server, typeof target === "string" ? undefined : addressHint(target));
    throw err;
  } finally {
    client.close();
  }
}

export function register(program: Command): void {
  program
    .command("bootimages")
    .description("show MachineSet boot image status from the bootimage-updater, or preview the patches it would make")
    .option("--preview", "show the patch plan for the current state without writing anything", false)
    .option("--server <addr>", serverHelp("bootimage-updater"))
    .addOption(new Option("-o, --output <format>", "structured output instead of text").choices(["json", "yaml"]))
    .action(async (flags: Flags) => {
      process.stdout.write(await runBootImages(serverAddress("bootimage-updater", flags.server), flags.preview, flags.output));
    });
}
