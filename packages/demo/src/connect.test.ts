import { describe, expect, it } from "vitest";
import { addressVariable, cliCommand, CLI_SERVICES, connectHints, connectText, envFileText } from "./connect.js";

describe("connecting the CLI to the demo", () => {
  it("names one variable per service, as the CLI reads them", () => {
    expect(CLI_SERVICES.map(addressVariable)).toEqual([
      "LOCKSTEP_STATUS_AGGREGATOR_ADDR",
      "LOCKSTEP_LEASE_COORDINATOR_ADDR",
      "LOCKSTEP_SKEW_ENFORCER_ADDR",
      "LOCKSTEP_BOOTIMAGE_UPDATER_ADDR",
    ]);
  });

  it("uses pnpm only when it is on PATH", () => {
    expect(cliCommand("/usr/bin:/opt/pnpm/bin", (p) => p === "/opt/pnpm/bin/pnpm")).toBe("pnpm -s lockstep");
    expect(cliCommand("/usr/bin:/bin", () => false)).toBe("node scripts/lockstep.mjs");
    expect(cliCommand(undefined, () => true)).toBe("node scripts/lockstep.mjs");
  });

  it("writes an env file to source", () => {
    const text = envFileText({ "status-aggregator": "127.0.0.1:40001", "lease-coordinator": "127.0.0.1:40002" }, "runs/demo x/kubeconfig");
    expect(text.split("\n").filter((l) => l.startsWith("export"))).toEqual([
      "export LOCKSTEP_STATUS_AGGREGATOR_ADDR=127.0.0.1:40001",
      "export LOCKSTEP_LEASE_COORDINATOR_ADDR=127.0.0.1:40002",
      "export KUBECONFIG='runs/demo x/kubeconfig'",
    ]);
  });

  it("prints the exact commands", () => {
    expect(connectText(".runs/demo-1/lockstep.env", "node scripts/lockstep.mjs")).toContain("  node scripts/lockstep.mjs status --details nodes");
    expect(connectText(".runs/demo-1/lockstep.env", "node scripts/lockstep.mjs")).toContain("  . .runs/demo-1/lockstep.env");
    expect(connectHints(".runs/demo-1/lockstep.env", "pnpm -s lockstep")[0]).toBe("other terminal: . .runs/demo-1/lockstep.env && pnpm -s lockstep status");
  });
});
