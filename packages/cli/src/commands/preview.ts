// `lockstep preview -f machineconfig.yaml --pool worker|--node N`: what a MachineConfig would do to
// each node (actions, drain, reboot, and the rule behind each changed item), from the
// status-aggregator's DisruptionService.
import { readFile } from "node:fs/promises";
import { serverHelp } from "../addresses.js";
import { channelCredentials } from "../connection.js";
import { DisruptionServiceClient, PreviewConfigChangeResponse, type NodePreview, type PreviewConfigChangeRequest } from "@lockstep/contracts";
import { tabwrite } from "@lockstep/insights";
import { type Command, Option } from "commander";
import { stringify } from "yaml";
import { CliError, EXIT } from "../exit-codes.js";
import { statusServerAddress, unary } from "./status/live.js";
import { warnIfStale } from "../stale-warning.js";

interface PreviewFlags {
  file: string;
  pool?: string;
  node?: string;
  server?: string;
  output?: "json" | "yaml";
}

const actionText = (a: { type: string; serviceName: string }) => (a.serviceName ? `${a.type}(${a.serviceName})` : a.type);

/** A table (NODE POOL ACTIONS DRAIN REBOOT) and, per node, the changed items and their rules. */
export function formatPreview(nodes: readonly NodePreview[]): string {
  if (nodes.length === 0) return "No nodes selected.\n";
  let table = "NODE\tPOOL\tCURRENT CONFIG\tACTIONS\tDRAIN\tREBOOT\n";
  for (const n of nodes) {
    const d = n.decision;
    table += d
      ? `${n.node}\t${n.pool || "-"}\t${n.currentConfig || "-"}\t${d.actions.map(actionText).join(", ")}\t${d.drain ? "yes" : "no"}\t${d.reboot ? "yes" : "no"}\n`
      : `${n.node}\t${n.pool || "-"}\t${n.currentConfig || "-"}\t?\t?\t?\n`;
  }
  let out = tabwrite(table);
  // Nodes on the same config get the same decision: explain each distinct one once.
  const explained = new Set<string>();
  for (const n of nodes) {
    if (n.error) out += `\n${n.node}: ${n.error}\n`;
    const d = n.decision;
    if (!d || explained.has(n.currentConfig)) continue;
    explained.add(n.currentConfig);
    out += `\nChanges from ${n.currentConfig}:\n`;
    if (d.unreconcilable) out += `  unreconcilable: ${d.unreconcilable}\n`;
    if (d.trace.length === 0) out += "  (none)\n";
    for (const t of d.trace) {
      const rule = t.policy ? `${t.policy}: ${t.rule}` : "no rule matches";
      out += `  ${t.kind} ${t.key} -> ${t.actions.map(actionText).join(", ")} (${rule})\n`;
    }
  }
  return out;
}

export function register(program: Command): void {
  program
    .command("preview")
    .description("preview what a MachineConfig change would do to each node (drain, reboot, reload, ...)")
    .requiredOption("-f, --file <path>", "the proposed MachineConfig (YAML or JSON); - reads stdin")
    .option("--pool <name>", "preview every node of this pool")
    .option("--node <name>", "preview this node")
    .option("--server <addr>", serverHelp("status-aggregator"))
    .addOption(new Option("-o, --output <format>", "structured output instead of text").choices(["json", "yaml"]))
    .action(async (flags: PreviewFlags) => {
      if ((flags.pool === undefined) === (flags.node === undefined)) throw new CliError(EXIT.USAGE, "pass exactly one of --pool NAME or --node NAME");
      const text = flags.file === "-" ? await readStdin() : await readFile(flags.file, "utf8").catch((e: Error) => {
        throw new CliError(EXIT.USAGE, `cannot read ${flags.file}: ${e.message}`);
      });
      const req: PreviewConfigChangeRequest = {
        target: flags.pool !== undefined ? { $case: "pool", value: flags.pool } : { $case: "node", value: flags.node! },
        machineConfig: text,
      };
      const addr = statusServerAddress(flags.server);
      const client = new DisruptionServiceClient(addr.address, channelCredentials());
      try {
        const res = await unary(client.previewConfigChange.bind(client), req, addr);
        warnIfStale(res.freshness);
        if (flags.output === "json") process.stdout.write(`${JSON.stringify(PreviewConfigChangeResponse.toJSON(res), null, 2)}\n`);
        else if (flags.output === "yaml") process.stdout.write(stringify(PreviewConfigChangeResponse.toJSON(res)));
        else process.stdout.write(formatPreview(res.nodes));
      } finally {
        client.close();
      }
    });
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
