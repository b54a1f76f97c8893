import { type Evaluation, type HealthInsight, parseTime } from "@lockstep/insights";
import { describe, expect, it } from "vitest";
import { renderStatus } from "./render-status.js";

const NOW = parseTime("2024-03-01T12:00:00Z");
const notUpdating = { now: NOW, notUpdating: true } as Evaluation;
const blocked: HealthInsight = {
  startedAt: parseTime("2024-03-01T11:00:00Z"),
  scopeType: "ControlPlane",
  resources: [],
  level: "Info",
  impact: "None",
  summary: "The next minor update is blocked (PoolsBehind)",
  description: "pool worker is on 4.15",
  reference: "https://example.invalid/ref",
};

describe("renderStatus", () => {
  it("is oc's text exactly when Lockstep has nothing to add", () => {
    expect(renderStatus(notUpdating, [], "none")).toBe("The cluster is not updating.\n");
  });

  it("adds a Lockstep section after the not-updating line, with descriptions at details=health", () => {
    expect(renderStatus(notUpdating, [blocked], "none")).toBe(
      "The cluster is not updating.\n\n= Lockstep =\nSINCE   LEVEL   IMPACT   MESSAGE\n1h      Info    None     The next minor update is blocked (PoolsBehind)\n",
    );
    expect(renderStatus(notUpdating, [blocked], "health")).toContain("  Description: pool worker is on 4.15\n");
  });
});
