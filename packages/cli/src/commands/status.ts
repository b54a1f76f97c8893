// `lockstep status`: the `oc adm upgrade status` view. Offline from a fixture set, or live
// against the status-aggregator (status/live.ts).
import { type Details, StatusError, parseDetails } from "@lockstep/insights";
import { type Command, InvalidArgumentError, Option } from "commander";
import { serverHelp } from "../addresses.js";
import { CliError, EXIT } from "../exit-codes.js";

interface StatusFlags {
  fromDir?: string;
  case?: string;
  details: Details;
  server?: string;
  watch: boolean;
  output?: "json" | "yaml";
  fromApi: boolean;
  kubeconfig?: string;
}

function usage<T>(f: () => T): T {
  try {
    return f();
  } catch (err) {
    throw err instanceof CliError ? err : new CliError(EXIT.USAGE, err instanceof Error ? err.message : String(err));
  }
}

function detailsArg(value: string): Details {
  try {
    return parseDetails(value);
  } catch (err) {
    throw new InvalidArgumentError(err instanceof StatusError ? err.message : String(err));
  }
}

export function register(program: Command): void {
  program
    .command("status")
    .description("show the cluster update status, like `oc adm upgrade status`")
    .option("--from-dir <dir>", "offline: folder of a fixture set (<case>-cv.yaml, -co.yaml, -mcp.yaml, -mc.yaml, -node.yaml)")
    .option("--case <name>", "offline: the fixture case name (the common file prefix)")
    .option("--details <area>", "detailed output: none, all, nodes, health or operators", detailsArg, "none" as Details)
    .option("--server <addr>", `live: ${serverHelp("status-aggregator")}`)
    .option("--watch", "live: redraw as the update moves", false)
    .option("--from-api", "render from the Update Status API objects (update.openshift.io) alone", false)
    .option("--kubeconfig <file>", "--from-api: kubeconfig (default $KUBECONFIG, then in-cluster)")
    .addOption(new Option("-o, --output <format>", "live: structured output instead of text").choices(["json", "yaml"]))
    .action(async (flags: StatusFlags) => {
      const { details } = flags;
      if (flags.fromApi) {
        if (flags.watch || flags.output || flags.server || flags.fromDir !== undefined || flags.case !== undefined)
          throw new CliError(EXIT.USAGE, "--from-api reads the Update Status API objects once (through --kubeconfig): --watch, -o, --server, --from-dir and --case do not apply");
        process.stdout.write(await (await import("./status/from-api.js")).runFromApi({ kubeconfig: flags.kubeconfig, details }));
        return;
      }
      if (flags.fromDir !== undefined || flags.case !== undefined) {
        if (!flags.fromDir || !flags.case) throw new CliError(EXIT.USAGE, "offline mode needs both --from-dir DIR and --case NAME");
        if (flags.watch || flags.output || flags.server) throw new CliError(EXIT.USAGE, "--watch, -o and --server are for live mode; offline mode (--from-dir, --case) prints the text once");
        // The fixture files are the command's arguments: one that cannot be read or parsed is a usage error.
        // Each mode loads only its own code: offline needs no gRPC, live no fixture evaluation.
        const { runOffline } = await import("./status/offline.js");
        const { text, notices } = usage(() => runOffline(flags.fromDir!, flags.case!, details));
        for (const n of notices) process.stderr.write(`${n}\n`);
        process.stdout.write(text);
        return;
      }
      const { runLive } = await import("./status/live.js");
      // The answer is printed either way; a stale one also exits 3, so a script cannot take it as current.
      const { stale } = await runLive({ server: flags.server, watch: flags.watch, output: flags.output ?? "text", details });
      if (stale) process.exitCode = EXIT.REFUSED;
    });
}
