// `lockstep policies`: the effective node disruption rules (shipped defaults merged with the
// cluster's NodeDisruptionPolicy objects), from the status-aggregator's DisruptionService.
import { serverHelp } from "../addresses.js";
import { channelCredentials } from "../connection.js";
import { DisruptionServiceClient, ListEffectivePoliciesResponse } from "@lockstep/contracts";
import { tabwrite } from "@lockstep/insights";
import { type Command, Option } from "commander";
import { stringify } from "yaml";
import { statusServerAddress, unary } from "./status/live.js";
import { warnIfStale } from "../stale-warning.js";

export function formatPolicies(res: ListEffectivePoliciesResponse): string {
  let table = "KIND\tKEY\tACTIONS\tPOLICY\n";
  for (const r of res.rules) {
    const actions = r.actions.map((a) => (a.serviceName ? `${a.type}(${a.serviceName})` : a.type)).join(", ");
    table += `${r.kind}\t${r.key}\t${actions}\t${r.policy}${r.default ? " (default)" : ""}\n`;
  }
  let out = tabwrite(table);
  if (res.rejectedPolicies.length > 0) out += `\nRejected policies:\n${res.rejectedPolicies.map((p) => `  ${p}\n`).join("")}`;
  return out;
}

export function register(program: Command): void {
  program
    .command("policies")
    .description("list the effective node disruption policy rules")
    .option("--server <addr>", serverHelp("status-aggregator"))
    .addOption(new Option("-o, --output <format>", "structured output instead of text").choices(["json", "yaml"]))
    .action(async (flags: { server?: string; output?: "json" | "yaml" }) => {
      const addr = statusServerAddress(flags.server);
      const client = new DisruptionServiceClient(addr.address, channelCredentials());
      try {
        const res = await unary(client.listEffectivePolicies.bind(client), {}, addr);
        warnIfStale(res.freshness);
        if (flags.output === "json") process.stdout.write(`${JSON.stringify(ListEffectivePoliciesResponse.toJSON(res), null, 2)}\n`);
        else if (flags.output === "yaml") process.stdout.write(stringify(ListEffectivePoliciesResponse.toJSON(res)));
        else process.stdout.write(formatPolicies(res));
      } finally {
        client.close();
      }
    });
}
