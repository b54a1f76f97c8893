import { describe, expect, it } from "vitest";
import { alertsView, recordPoll, type AlertsState } from "./alerts-view.js";

const answer = { status: "success", data: { alerts: [{ labels: { alertname: "PodDisruptionBudgetAtLimit", severity: "warning" }, state: "firing" }] } };
const SRC = "https://thanos:9091/api/v1/alerts";
const start: AlertsState = { startedAtMs: 1_000_000 };

describe("alertsView", () => {
  it("says nothing before the first answer is due", () => {
    expect(alertsView(start, 1_000_000 + 60_000, 90_000, SRC)).toEqual({ alerts: undefined, insights: [] });
  });

  it("shows the alerts of a recent successful poll and no warning", () => {
    const s = recordPoll(start, { atMs: 1_010_000, ok: true, response: answer });
    expect(alertsView(s, 1_050_000, 90_000, SRC)).toEqual({ alerts: answer, insights: [] });
  });

  it("drops the previous alerts at once when a poll fails, with a warning from the first failure", () => {
    let s = recordPoll(start, { atMs: 1_010_000, ok: true, response: answer });
    s = recordPoll(s, { atMs: 1_040_000, ok: false, error: "connect ECONNREFUSED 10.0.0.1:9091" });
    s = recordPoll(s, { atMs: 1_070_000, ok: false, error: "HTTP 503: unavailable" });
    const v = alertsView(s, 1_071_000, 90_000, SRC);
    expect(v.alerts).toBeUndefined();
    expect(v.insights).toEqual([
      {
        startedAt: 1_040_000n * 1_000_000n,
        scopeType: "Cluster",
        resources: [],
        level: "Warning",
        impact: "Unknown",
        summary: "Cannot read firing alerts from the cluster's monitoring",
        description: `Alerts from ${SRC} are not available (HTTP 503: unavailable), so alerts that affect the update are not shown.`,
        reference: expect.stringMatching(/^https:\/\//),
      },
    ]);
    // Readable again: alerts back, warning gone, the next outage counts from its own start.
    s = recordPoll(s, { atMs: 1_100_000, ok: true, response: answer });
    expect(alertsView(s, 1_100_000, 90_000, SRC)).toEqual({ alerts: answer, insights: [] });
    expect(s.failingSinceMs).toBeUndefined();
  });

  it("does not show an answer older than the bound as current (a stuck poller)", () => {
    const s = recordPoll(start, { atMs: 1_010_000, ok: true, response: answer });
    const v = alertsView(s, 1_010_000 + 90_001, 90_000, SRC);
    expect(v.alerts).toBeUndefined();
    expect(v.insights.map((i) => i.description)).toEqual([`Alerts from ${SRC} are not available (the last answer is 90 s old), so alerts that affect the update are not shown.`]);
    expect(v.insights[0]!.startedAt).toBe(BigInt(1_010_000 + 90_000) * 1_000_000n);
  });

  it("warns when no answer came within the bound of the start", () => {
    const v = alertsView(start, 1_000_000 + 120_000, 90_000, SRC);
    expect(v.alerts).toBeUndefined();
    expect(v.insights[0]!.description).toContain("(no answer yet after 120 s)");
  });
});
