// The lazy command table: each module registers exactly the top-level commands the table names for
// it, with the same descriptions (top-level help prints the table's without loading any module), and
// a command line finds the module that owns its command.
import { Command } from "commander";
import { describe, expect, it } from "vitest";
import { COMMANDS, commandOf, registerCommands } from "./index.js";

describe("the command table", () => {
  it.each(COMMANDS.map((e) => [Object.keys(e.commands).join(","), e] as const))("%s: the module registers these commands with these descriptions", async (_names, entry) => {
    const program = new Command("lockstep");
    (await entry.load()).register(program);
    expect(Object.fromEntries(program.commands.map((c) => [c.name(), c.description()]))).toEqual(entry.commands);
  });

  it("names every command once", () => {
    const names = COMMANDS.flatMap((e) => Object.keys(e.commands));
    expect(new Set(names).size).toBe(names.length);
  });

  it("finds the module of a command line, `help X` too, and none for top-level help or an unknown name", () => {
    const leases = COMMANDS.find((e) => "leases" in e.commands);
    expect(commandOf(["preflight", "4.17.0"])).toBe(leases);
    expect(commandOf(["help", "lease"])).toBe(leases);
    expect(commandOf(["--help"])).toBeUndefined();
    expect(commandOf([])).toBeUndefined();
    expect(commandOf(["staus"])).toBeUndefined();
    expect(commandOf(["toString"])).toBeUndefined();
  });

  it("registers a stub per command for top-level help", async () => {
    const program = new Command("lockstep");
    await registerCommands(program, ["--help"]);
    expect(program.commands.map((c) => c.name())).toEqual(COMMANDS.flatMap((e) => Object.keys(e.commands)));
  });
});
