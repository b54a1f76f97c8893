import { describe, expect, it } from "vitest";
import { BlockerLedger } from "./blocker-ledger.js";

const T = Date.parse("2026-01-01T00:00:00Z");

describe("BlockerLedger", () => {
  it("keeps the nodes a blocker held and says when it let the last one go", () => {
    const l = new BlockerLedger();
    l.hold(T, "lease", "ops", "worker", "n1", "held");
    l.hold(T + 60_000, "lease", "ops", "worker", "n2", "held");
    l.release(T + 120_000, "n1");
    expect(l.list()[0]!.until).toBeNull();
    l.release(T + 180_000, "n2");
    expect(l.list()).toEqual([{ kind: "lease", subject: "ops", pool: "worker", nodes: ["n1", "n2"], reason: "held", from: "2026-01-01T00:00:00Z", until: "2026-01-01T00:03:00Z" }]);
    expect(l.names("n2")).toBe(true);
  });

  it("releases only the kinds asked for, and sorts by kind and subject", () => {
    const l = new BlockerLedger();
    l.hold(T, "window", "nightly", "worker", "n1", "closed");
    l.hold(T, "pdb", "apps/web", "worker", "n1", "no disruption");
    l.release(T + 1000, "n1", ["pdb"]);
    expect(l.list().map((b) => [b.kind, b.until])).toEqual([
      ["pdb", "2026-01-01T00:00:01Z"],
      ["window", null],
    ]);
  });
});
