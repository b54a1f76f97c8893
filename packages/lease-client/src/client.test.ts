import { describe, expect, it } from "vitest";
import { preemptorOf } from "./client.js";

describe("preemptorOf", () => {
  it.each([
    ["Preempted: preempted by admin-alice (Maintenance) at 2026-11-21T10:00:00.000Z: renew refused; stop and release w1", "admin-alice (Maintenance)"],
    ["Preempted: preempted by ops/a b (Maintenance): renew refused", "ops/a b (Maintenance)"],
    ["Preempted: something new", "another holder"],
    ["AlreadyHeld: w1 is held by admin-alice, not mcd", undefined],
    ["MaxHoldExceeded: maximum hold of 3600s for Update reached; release the node", undefined],
  ])("%s → %s", (details, by) => {
    expect(preemptorOf(details)).toBe(by);
  });
});
