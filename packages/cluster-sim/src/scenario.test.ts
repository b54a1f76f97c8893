import { describe, expect, it } from "vitest";
import { parseScenario } from "./scenario.js";

const base = { cluster: { version: "4.15.3" }, steps: [{ upgrade: { version: "4.15.5" } }] };

describe("parseScenario: leases", () => {
  it("defaults to the cooperating MCO and reads the enforced mode", () => {
    expect(parseScenario(base).leases).toBe("cooperate");
    expect(parseScenario({ ...base, leases: "enforced" }).leases).toBe("enforced");
  });

  it("lists a wrong mode and a local leaser with the enforced mode among the problems", () => {
    expect(() => parseScenario({ ...base, leases: "maybe" })).toThrow('leases: expected "cooperate" or "enforced", got "maybe"');
    expect(() => parseScenario({ ...base, leases: "enforced", leaser: "local" })).toThrow('leaser: "local" is asked only in the "cooperate" lease mode');
  });
});
