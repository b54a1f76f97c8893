import { describe, expect, it } from "vitest";
import { evaluateConflict, type CurrentHold } from "./conflict.js";
import { testPolicy } from "./fixtures.js";
import type { OperationName } from "./operations.js";

const policy = testPolicy();
const hold = (operation: OperationName, fields: Partial<CurrentHold> = {}): CurrentHold => ({ holder: "h", operation, reason: "r", foreign: false, adminHold: false, ...fields });
const ask = (operation: OperationName, force = false) => ({ holder: "me", operation, force });

describe("conflict policy", () => {
  it.each([
    ["Update", "Maintenance", false, "blocked"],
    ["Maintenance", "Update", false, "blocked"],
    ["Maintenance", "Update", true, "takeover"],
    ["Maintenance", "Fence", true, "blocked"],
    ["Fence", "Update", true, "blocked"],
    ["Fence", "Deprovision", true, "blocked"],
    ["Update", "Reboot", true, "blocked"],
    ["Maintenance", "Maintenance", true, "blocked"],
  ] as const)("%s requested while %s holds (force %s) → %s", (req, held, force, kind) => {
    expect(evaluateConflict("w1", ask(req, force), hold(held), policy).kind).toBe(kind);
  });
  it("the same holder re-acquiring is a renew", () => {
    expect(evaluateConflict("w1", ask("Reboot"), hold("Update", { holder: "me" }), policy).kind).toBe("renew");
  });
  it("never forces through a foreign lease", () => {
    const c = evaluateConflict("w1", ask("Maintenance", true), hold("Update", { foreign: true }), policy);
    expect(c.kind === "blocked" && c.reason).toContain("force not permitted");
  });
  it("the tables are configurable", () => {
    const open = testPolicy({ forceTakeover: { Update: ["Deprovision"] } });
    expect(evaluateConflict("w1", ask("Update", true), hold("Deprovision"), open).kind).toBe("takeover");
  });
});
