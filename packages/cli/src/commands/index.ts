import type { Command } from "commander";
import * as leases from "./leases.js";
import * as status from "./status.js";
import * as skew from "./skew.js";
import * as preview from "./preview.js";
import * as policies from "./policies.js";
import * as up from "./up.js";
import * as kubeSim from "./kube-sim.js";
import * as bootimages from "./bootimages.js";
import * as sim from "./sim.js";
import * as rehearse from "./rehearse.js";
import * as events from "./events.js";

// One line per subcommand module; each module exports `register(program)`.
const modules: Array<{ register(program: Command): void }> = [
  status,
  leases,
  skew,
  preview,
  policies,
  up,
  kubeSim,
  bootimages,
  sim,
  rehearse,
  events,
];

export function registerCommands(program: Command): void {
  for (const m of modules) m.register(program);
}
