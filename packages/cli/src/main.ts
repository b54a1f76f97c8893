#!/usr/bin/env node
// The `lockstep` command. Each subcommand lives in its own module under commands/, imported only
// when it runs (commands/index.ts), so a command starts in the time its own imports take.
import { Command, CommanderError } from "commander";
import { registerCommands } from "./commands/index.js";
import { CliError, EXIT } from "./exit-codes.js";

const program = new Command("lockstep")
  .description("Lockstep: safe, visible node updates for OpenShift-style clusters")
  .showHelpAfterError()
  .exitOverride();

try {
  await registerCommands(program, process.argv.slice(2));
  await program.parseAsync(process.argv);
} catch (err) {
  // Help and --version end with 0; every other commander error is a usage error (its message is out already).
  if (err instanceof CommanderError) process.exit(err.exitCode === 0 ? EXIT.OK : EXIT.USAGE);
  console.error(`lockstep: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(err instanceof CliError ? err.exitCode : EXIT.FAILED);
}
