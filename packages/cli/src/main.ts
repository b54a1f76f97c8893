#!/usr/bin/env node
// The `lockstep` command. Each subcommand lives in its own module under commands/.
import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands/index.js";

const program = new Command("lockstep")
  .description("Lockstep: safe, visible node updates for OpenShift-style clusters")
  .showHelpAfterError()
  .exitOverride();

registerCommands(program);

try {
  await program.parseAsync(process.argv);
} catch (err) {
  if (err instanceof CommanderError) process.exit(err.exitCode);
  console.error(`lockstep: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
