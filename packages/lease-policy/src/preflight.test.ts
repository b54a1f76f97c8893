import { describe, expect, it } from "vitest";
import { budget, node, pool, request, testPolicy } from "./fixtures.js";
import { decide } from "./decide.js";
import { leaseStateFromObject } from "./lease-record.js";
import { OperationType } from "@lockstep/contracts";
import { preflightUpgrade } from "./preflight.js";

const policy = testPolicy();
const NOW = new Date("2026-11-21T10:00:00Z");

describe("preflightUpgrade", () => {
  it("warns about maintenance holds, other holds and blocking budgets", () => {
    const nodes = [node("w1"), node("w2"), node("w3")];
    const base = { nodes, pools: [pool("worker", "1")], budgets: [budget("zero", { pool: "worker", maxDisrupted: "0" })] };
    const m = decide(request("w1", "admin-ann", OperationType.OPERATION_TYPE_MAINTENANCE, { reason: "BIOS" }), { ...base, budgets: [], leases: [] }, NOW, policy);
    const f = decide(request("w2", "nhc", OperationType.OPERATION_TYPE_FENCE), { ...base, budgets: [], leases: [] }, NOW, policy);
    if (m.kind !== "grant" || f.kind !== "grant") throw new Error("setup");
    const leases = [m.leaseBody, f.leaseBody].map((b, i) => leaseStateFromObject({ ...b, metadata: { ...b.metadata, resourceVersion: String(i + 1) } }));
    const pre = preflightUpgrade({ ...base, leases }, NOW, policy);
    expect(pre.held.map((l) => l.node)).toEqual(["w1", "w2"]);
    expect(pre.warnings.map((w) => [w.code, w.node])).toEqual([["MaintenanceFlagged", "w1"], ["NodeHeld", "w2"], ["BudgetBlocks", ""]]);
    expect(pre.warnings[0]?.message).toContain("maintenance flagged: admin-ann, BIOS");
  });
});
