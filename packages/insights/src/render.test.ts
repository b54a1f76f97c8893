import { describe, expect, it } from "vitest";
import type { ControlPlaneSummary, Evaluation, HealthInsight } from "./model.js";
import { ellipsis, render } from "./render.js";
import { HOUR, MINUTE, SECOND, ZERO_TIME, parseTime } from "./time.js";

const NOW = parseTime("2024-01-01T01:00:00Z");

function cp(o: Partial<ControlPlaneSummary> = {}): ControlPlaneSummary {
  return {
    assessment: "Progressing",
    completed: false,
    targetVersion: "4.2.0",
    targetVersionText: "4.2.0 (from 4.1.0)",
    operators: { total: 10, updated: 5, waiting: 4, unavailable: 0, degraded: 0, updating: [] },
    completion: 50,
    duration: HOUR,
    completionAt: NOW,
    estTimeToComplete: 30n * MINUTE,
    estDuration: 90n * MINUTE,
    multiArch: false,
    ...o,
  };
}

function evaluation(o: Partial<Evaluation> = {}, insights: HealthInsight[] = []): Evaluation {
  return {
    now: NOW,
    notUpdating: false,
    controlPlane: cp(),
    masterPool: undefined,
    workerPools: [],
    health: insights.length
      ? { insights, fallback: false }
      : { fallback: true, insights: [{ startedAt: NOW - HOUR, scopeType: "Cluster", resources: [], level: "Info", impact: "None", summary: "Update is proceeding well", description: "", reference: "" }] },
    ...o,
  };
}

const durationLine = (c: Partial<ControlPlaneSummary>) => render(evaluation({ controlPlane: cp(c) }), "none").split("\n").find((l) => l.startsWith("Duration:"));

describe("Duration line and ETA suffix (spec §9.6)", () => {
  it.each([
    [{ estTimeToComplete: 0n }, "Duration:        1h"],
    [{ estTimeToComplete: 30n * MINUTE }, "Duration:        1h (Est. Time Remaining: 30m)"],
    [{ estTimeToComplete: 9n * MINUTE }, "Duration:        1h (Est. Time Remaining: <10m)"],
    [{ estTimeToComplete: -5n * MINUTE }, "Duration:        1h (Est. Time Remaining: <10m)"],
    [{ estTimeToComplete: -(40n * MINUTE + 16n * SECOND), estDuration: HOUR + 19n * MINUTE, duration: 2n * HOUR }, "Duration:        2h (Est. Time Remaining: N/A; estimate duration was 1h19m)"],
    [{ estTimeToComplete: -(40n * MINUTE), multiArch: true }, "Duration:        1h (Est. Time Remaining: N/A for Multi-Architecture Migration)"],
  ])("%o", (c, line) => {
    expect(durationLine(c)).toBe(line);
  });
});

describe("control-plane block", () => {
  it("in progress, with updating operators and health summary", () => {
    const text = render(
      evaluation({
        controlPlane: cp({
          operators: { total: 10, updated: 5, waiting: 3, unavailable: 1, degraded: 2, updating: [{ name: "etcd", reason: "", message: "m", since: NOW - 90n * SECOND }, { name: "dns", reason: "R", message: "m", since: NOW }] },
        }),
      }),
      "none",
    );
    expect(text.split("\n").slice(0, 7)).toEqual([
      "= Control Plane =",
      "Assessment:      Progressing",
      "Target Version:  4.2.0 (from 4.1.0)",
      "Updating:        etcd, dns",
      "Completion:      50% (5 operators updated, 2 updating, 3 waiting)",
      "Duration:        1h (Est. Time Remaining: 30m)",
      "Operator Health: 7 Healthy, 1 Unavailable, 2 Available but degraded",
    ]);
    expect(text).not.toContain("Updating Cluster Operators");
  });

  it("completed form", () => {
    const text = render(evaluation({ controlPlane: cp({ completed: true, assessment: "Completed", duration: 3n * HOUR + 31n * MINUTE, completionAt: parseTime("2024-02-27T15:42:58Z") }) }), "all");
    expect(text.startsWith("= Control Plane =\nUpdate to 4.2.0 successfully completed at 2024-02-27T15:42:58Z (duration: 3h31m)\n\n= Update Health =\n")).toBe(true);
  });
});

describe("health section", () => {
  const nodeInsight: HealthInsight = {
    startedAt: NOW - 22n * MINUTE - 44n * SECOND - 500n,
    scopeType: "WorkerPool",
    resources: [{ kind: "Node", name: "n1" }, { kind: "Alert", group: "config.openshift.io", namespace: "ns", name: "A" }],
    level: "Warning",
    impact: "Update Speed",
    summary: "Node n1 is not ready",
    description: "line 1\nline 2",
    reference: "https://ref",
  };
  const zero: HealthInsight = { ...nodeInsight, startedAt: ZERO_TIME, resources: [], summary: "Other", description: "d" };

  it("table form with the hint line", () => {
    const text = render(evaluation({}, [nodeInsight, zero]), "none");
    expect(text.endsWith(
      "= Update Health =\nSINCE    LEVEL     IMPACT         MESSAGE\n22m44s   Warning   Update Speed   Node n1 is not ready\n-        Warning   Update Speed   Other\n\nRun with --details=health for additional description and links to related online documentation\n",
    )).toBe(true);
  });

  it("detailed form: padded labels, sorted resource kinds, continued description lines", () => {
    const text = render(evaluation({}, [nodeInsight, zero]), "health");
    expect(text.slice(text.indexOf("= Update Health =\n"))).toBe(
      [
        "= Update Health =",
        "Message: Node n1 is not ready",
        "  Since:       22m44s",
        "  Level:       Warning",
        "  Impact:      Update Speed",
        "  Reference:   https://ref",
        "  Resources:",
        "    alerts.config.openshift.io: ns/A",
        "    nodes:                      n1",
        "  Description: line 1",
        "               , line 2",
        "",
        "Message: Other",
        "  Since:       -",
        "  Level:       Warning",
        "  Impact:      Update Speed",
        "  Reference:   https://ref",
        "  Description: d",
        "",
      ].join("\n"),
    );
  });

  it("the fallback stays a table without the hint, even with --details=health", () => {
    const text = render(evaluation(), "health");
    expect(text.endsWith("= Update Health =\nSINCE   LEVEL   IMPACT   MESSAGE\n1h      Info    None     Update is proceeding well\n")).toBe(true);
  });
});

describe("ellipsis (operator REASON)", () => {
  it("keeps up to 20 code points, else 17 and ...", () => {
    expect(ellipsis("NodeInstaller", 20)).toBe("NodeInstaller");
    expect(ellipsis("NodeInstaller::Pending", 20)).toBe("NodeInstaller::Pe...");
    expect(ellipsis("x".repeat(20), 20)).toBe("x".repeat(20));
  });
});
