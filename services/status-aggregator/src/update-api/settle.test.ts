import { describe, expect, it } from "vitest";
import { canonical, sameStatus, settleStatus, statusPatch } from "./settle.js";
import type { ClusterOperatorProgressStatus, ClusterVersionProgressStatus, InsightStatus } from "@lockstep/contracts";

const co = (status: "True" | "False", at?: string): InsightStatus =>
  ({ name: "etcd", conditions: [{ type: "Updating", status, reason: "X", message: "m", ...(at ? { lastTransitionTime: at } : {}) }] }) as ClusterOperatorProgressStatus;

describe("settleStatus", () => {
  it("keeps the observed transition time while the status holds, else stamps now", () => {
    const observed = co("True", "2024-01-01T00:00:00Z");
    expect((settleStatus(co("True"), observed, "2025-01-01T00:00:00Z") as ClusterOperatorProgressStatus).conditions[0]!.lastTransitionTime).toBe("2024-01-01T00:00:00Z");
    expect((settleStatus(co("False"), observed, "2025-01-01T00:00:00Z") as ClusterOperatorProgressStatus).conditions[0]!.lastTransitionTime).toBe("2025-01-01T00:00:00Z");
    expect((settleStatus(co("False", "2023-05-05T00:00:00Z"), observed, "2025-01-01T00:00:00Z") as ClusterOperatorProgressStatus).conditions[0]!.lastTransitionTime).toBe(
      "2023-05-05T00:00:00Z",
    );
  });

  it("leaves an estimate that moved less than a minute as observed", () => {
    const cv = (est: string) => ({ name: "version", estimatedCompletedAt: est }) as unknown as ClusterVersionProgressStatus;
    expect((settleStatus(cv("2024-01-01T00:00:40Z"), cv("2024-01-01T00:00:00Z"), "") as ClusterVersionProgressStatus).estimatedCompletedAt).toBe("2024-01-01T00:00:00Z");
    expect((settleStatus(cv("2024-01-01T00:01:00Z"), cv("2024-01-01T00:00:00Z"), "") as ClusterVersionProgressStatus).estimatedCompletedAt).toBe("2024-01-01T00:01:00Z");
  });
});

describe("sameStatus / canonical", () => {
  it("ignores key order and undefined fields, not values", () => {
    expect(canonical({ b: 1, a: [{ y: 2, x: undefined }] })).toBe('{"a":[{"y":2}],"b":1}');
    expect(sameStatus(co("True", "t"), co("True", "t"))).toBe(true);
    expect(sameStatus(co("True", "t"), co("False", "t"))).toBe(false);
  });
});

describe("statusPatch", () => {
  it("nulls fields the new status dropped, at any depth, and replaces arrays", () => {
    const observed = { name: "version", versions: { previous: { version: "1.0.0" }, target: { version: "1.1.0" } }, estimatedCompletedAt: "x", conditions: [1, 2] };
    const next = { name: "version", versions: { target: { version: "1.1.0" } }, conditions: [3] };
    expect(statusPatch(next as never, observed as never)).toEqual({
      name: "version",
      versions: { previous: null, target: { version: "1.1.0" } },
      estimatedCompletedAt: null,
      conditions: [3],
    });
  });
});
