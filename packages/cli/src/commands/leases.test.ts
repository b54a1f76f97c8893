import { OperationType, type NodeLease } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { formatLeases, formatWarnings, leasesAsData, parseDurationArg, parseOperationArg } from "./leases.js";

const lease = (fields: Partial<NodeLease>): NodeLease => ({
  node: "w1", namespace: "lockstep-leases", leaseName: "w1", holder: "alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "disk",
  acquireTime: new Date("2026-11-21T10:00:00Z"), renewTime: new Date("2026-11-21T10:00:00Z"), durationSeconds: 3600, transitions: 0, foreign: false, resourceVersion: "1",
  preemptedBy: "", preemptTime: undefined, preemptionRequestedBy: "", ...fields,
});

describe("lockstep leases", () => {
  it("parses durations and operations, rejecting bad ones clearly", () => {
    expect(parseDurationArg("1h")).toBe(3600);
    expect(parseDurationArg("1h30m")).toBe(5400);
    expect(parseDurationArg("90")).toBe(90);
    expect(() => parseDurationArg("soon")).toThrow(/invalid duration "soon"/);
    expect(() => parseDurationArg("0s")).toThrow(/invalid duration/);
    // The lease API's seconds are an int32: beyond it is a usage error, not "invalid int32" from the encoder.
    expect(parseDurationArg("2147483647")).toBe(2_147_483_647);
    expect(() => parseDurationArg("99999999h")).toThrow('duration "99999999h" is too long: at most 2147483647s (about 68 years)');
    expect(() => parseDurationArg("2147483648")).toThrow(/too long/);
    expect(parseOperationArg("maintenance")).toBe(OperationType.OPERATION_TYPE_MAINTENANCE);
    expect(parseOperationArg("Power-Off")).toBe(OperationType.OPERATION_TYPE_POWER_OFF);
    expect(() => parseOperationArg("nap")).toThrow(/unknown operation "nap"/);
  });

  it("renders the lease table with how long each node has been held", () => {
    const text = formatLeases(
      [lease({}), lease({ node: "w2", leaseName: "node-w2", namespace: "medik8s-leases", holder: "NodeHealthCheck-x", operation: OperationType.OPERATION_TYPE_FENCE, reason: "", foreign: true, acquireTime: new Date("2026-11-21T11:50:00Z") })],
      new Date("2026-11-21T12:00:00Z"),
    );
    expect(text.split("\n")[0]).toMatch(/^NODE\s+OPERATION\s+HOLDER\s+HELD FOR\s+TERM\s+FOREIGN\s+PREEMPTED-BY\s+REASON$/);
    expect(text).toMatch(/w1\s+Maintenance\s+alice\s+2h0m\s+3600s\s+disk/);
    expect(text).toMatch(/w2\s+Fence\s+NodeHealthCheck-x\s+10m\s+3600s\s+medik8s-leases\/node-w2/);
    expect(formatLeases([])).toBe("No leases held.\n");
  });

  it("shows a binding preemption with its age, and a cooperative request as asked", () => {
    const text = formatLeases(
      [
        lease({ node: "w3", holder: "mcd/w3", operation: OperationType.OPERATION_TYPE_UPDATE, reason: "rendered-worker-3", preemptedBy: "alice (Maintenance)", preemptTime: new Date("2026-11-21T11:59:20Z") }),
        lease({ node: "w4", holder: "mcd/w4", operation: OperationType.OPERATION_TYPE_UPDATE, reason: "rendered-worker-3", preemptionRequestedBy: "bob (Maintenance)" }),
      ],
      new Date("2026-11-21T12:00:00Z"),
    );
    expect(text).toMatch(/w3\s+Update\s+mcd\/w3\s+2h0m\s+3600s\s+alice \(Maintenance\) 40s ago\s+rendered-worker-3/);
    expect(text).toMatch(/w4\s+Update\s+mcd\/w4\s+2h0m\s+3600s\s+asked: bob \(Maintenance\)\s+rendered-worker-3/);
  });

  it("gives -o json the list even when empty, with operations and times as the API spells them", () => {
    expect(leasesAsData([])).toEqual({ leases: [] });
    expect(leasesAsData([lease({})]).leases[0]).toMatchObject({ node: "w1", holder: "alice", operation: "OPERATION_TYPE_MAINTENANCE", acquireTime: "2026-11-21T10:00:00.000Z", durationSeconds: 3600 });
  });

  it("prints warnings with code and node", () => {
    expect(formatWarnings([{ code: "MaintenanceFlagged", node: "w1", message: "maintenance flagged: alice, disk" }])).toBe("WARNING [MaintenanceFlagged] w1: maintenance flagged: alice, disk\n");
  });
});
