import { describe, expect, it } from "vitest";
import { addressHint, addressVariable, serverAddress, SERVICE_PORTS } from "./addresses.js";
import { CliError, EXIT } from "./exit-codes.js";

describe("service addresses", () => {
  it("has one variable per service, named after it", () => {
    expect(Object.keys(SERVICE_PORTS).map((s) => addressVariable(s as keyof typeof SERVICE_PORTS))).toEqual([
      "LOCKSTEP_LEASE_COORDINATOR_ADDR",
      "LOCKSTEP_SKEW_ENFORCER_ADDR",
      "LOCKSTEP_BOOTIMAGE_UPDATER_ADDR",
      "LOCKSTEP_STATUS_AGGREGATOR_ADDR",
    ]);
  });

  it("takes --server, else the variable, else the default port", () => {
    const env = { LOCKSTEP_SKEW_ENFORCER_ADDR: "10.0.0.1:7000" };
    expect(serverAddress("skew-enforcer", "h:1", env)).toEqual({ service: "skew-enforcer", address: "h:1", from: "--server" });
    expect(serverAddress("skew-enforcer", undefined, env)).toEqual({ service: "skew-enforcer", address: "10.0.0.1:7000", from: "LOCKSTEP_SKEW_ENFORCER_ADDR" });
    expect(serverAddress("skew-enforcer", undefined, {})).toEqual({ service: "skew-enforcer", address: "127.0.0.1:9092", from: "default" });
  });

  it("refuses the lease-coordinator's old variable, naming the new one", () => {
    const err = (() => {
      try {
        serverAddress("lease-coordinator", undefined, { LOCKSTEP_LEASE_ADDR: "h:1" });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT.USAGE);
    expect((err as Error).message).toBe("LOCKSTEP_LEASE_ADDR is no longer read: set LOCKSTEP_LEASE_COORDINATOR_ADDR instead (one variable per service, LOCKSTEP_<SERVICE>_ADDR)");
    expect(serverAddress("lease-coordinator", "h:2", { LOCKSTEP_LEASE_ADDR: "h:1" }).address).toBe("h:2");
  });

  it("says how to point the CLI elsewhere", () => {
    expect(addressHint(serverAddress("status-aggregator", undefined, {}))).toBe("(the default; pass --server ADDR or set LOCKSTEP_STATUS_AGGREGATOR_ADDR)");
    expect(addressHint(serverAddress("status-aggregator", undefined, { LOCKSTEP_STATUS_AGGREGATOR_ADDR: "h:1" }))).toBe("(from $LOCKSTEP_STATUS_AGGREGATOR_ADDR; pass --server ADDR or fix the variable)");
    expect(addressHint(serverAddress("status-aggregator", "h:1", {}))).toBe("(from --server; is the status-aggregator running there?)");
  });
});
