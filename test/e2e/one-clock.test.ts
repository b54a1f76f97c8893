// Whole-system test of "one clock": cluster-sim runs 120x faster than the wall clock, yet
// `lockstep status` (the status-aggregator measuring the simulator's stamps against its wall clock)
// never shows a negative duration — "Duration: -3m52s" or "SINCE -32m46s" — during the update.
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { allUpdated, nodeRecords, startTestSystem, until } from "./system.js";

const run = promisify(execFile);
const CLI = join(import.meta.dirname, "..", "..", "packages", "cli", "dist", "main.js");
const TARGET = "4.15.14";
const TOTAL = 7; // 3 masters + 4 workers
// A negative Go-style duration as shortDuration prints it: "-3m52s", "-1h2m", "-45s".
const NEGATIVE = /(^|[\s(])-\d+(\.\d+)?(h|m|s)/m;

describe("one clock", () => {
  it("`lockstep status` on a 120x run shows no negative duration", async () => {
    const t = await startTestSystem({ timeScale: 120 });
    try {
      await until("the initial state", async () => (await nodeRecords(t)).length === TOTAL);
      await t.env.sim.upgrade(TARGET);
      const outputs: string[] = [];
      await until(
        "every node updated",
        async () => {
          const r = await run(process.execPath, [CLI, "status", "--details", "all", "--server", t.env.system.grpcAddress("status-aggregator")], { encoding: "utf8" });
          if (r.stdout.includes("= Control Plane =")) outputs.push(r.stdout);
          return allUpdated(t, TOTAL);
        },
        300_000,
      );
      const updating = outputs.filter((o) => o.includes("Duration:"));
      expect(updating.length).toBeGreaterThan(3);
      for (const o of outputs) expect(o).not.toMatch(NEGATIVE);
    } finally {
      await t.stop();
    }
  });
});
