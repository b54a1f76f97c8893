import type { Command } from "commander";

// The subcommands, loaded lazily: `lockstep <command>` imports only the module that registers that
// command (a gRPC client does not load the simulators, the services or the Kubernetes client), and
// `lockstep --help` imports none. To add a command, add its module here with the top-level names it
// registers and their one-line descriptions (the same text its `.description()` gives; a test checks).
export interface CommandModule {
  register(program: Command): void;
}

export interface CommandEntry {
  /** Top-level command name → the description the module registers for it. */
  commands: Record<string, string>;
  load(): Promise<CommandModule>;
}

export const COMMANDS: readonly CommandEntry[] = [
  { commands: { status: "show the cluster update status, like `oc adm upgrade status`" }, load: () => import("./status.js") },
  {
    commands: {
      leases: "list node leases held now (Lockstep's and foreign ones)",
      lease: "acquire or release a node lease",
      preflight: "before an upgrade: nodes under maintenance or otherwise held, and budgets that block",
    },
    load: () => import("./leases.js"),
  },
  {
    commands: {
      skew: "show pool lag, boot image skew and update completion, and whether a minor upgrade is allowed",
      "check-upgrade": "would an update to VERSION be accepted? exit code 0 when allowed, 3 when blocked",
    },
    load: () => import("./skew.js"),
  },
  { commands: { preview: "preview what a MachineConfig change would do to each node (drain, reboot, reload, ...)" }, load: () => import("./preview.js") },
  { commands: { policies: "list the effective node disruption policy rules" }, load: () => import("./policies.js") },
  { commands: { up: "run the five Lockstep services locally against a cluster and a NATS server" }, load: () => import("./up.js") },
  { commands: { "kube-sim": "Kubernetes API emulator for tests, demos and benchmarks" }, load: () => import("./kube-sim.js") },
  {
    commands: { bootimages: "show MachineSet boot image status from the bootimage-updater, or preview the patches it would make" },
    load: () => import("./bootimages.js"),
  },
  { commands: { sim: "simulate an OpenShift-like cluster updating (against kube-sim or any API server)" }, load: () => import("./sim.js") },
  {
    commands: {
      rehearse:
        "replay an update to VERSION on a snapshot of the cluster and forecast it: per pool start, duration and finish, and what blocks (exit 3 when it does not finish)",
    },
    load: () => import("./rehearse.js"),
  },
  {
    commands: { events: "print Lockstep's events (the JetStream event stream), decoded, one line each; --follow for new ones" },
    load: () => import("./events.js"),
  },
];

/** The command a command line runs (`lockstep help X` too), or undefined for top-level help and unknown names. */
export function commandOf(args: readonly string[]): CommandEntry | undefined {
  const name = args[0] === "help" ? args[1] : args[0];
  return name === undefined ? undefined : COMMANDS.find((e) => Object.hasOwn(e.commands, name));
}

/**
 * Registers what `args` needs: the one module that owns its command, or, for top-level help and
 * unknown commands, a stub per command (name and description only) so help lists them all and
 * commander names a mistyped one and suggests the nearest.
 */
export async function registerCommands(program: Command, args: readonly string[]): Promise<void> {
  const entry = commandOf(args);
  if (entry) {
    (await entry.load()).register(program);
    return;
  }
  for (const e of COMMANDS) for (const [name, description] of Object.entries(e.commands)) program.command(name).description(description);
}
