import { describe, expect, it } from "vitest";
import { EventLog } from "./events.js";
import { alertChanges, describeAlert, firingLockstepAlerts, startDemoAlerts } from "./alerts.js";

const alert = (name: string, state: string, labels: Record<string, string> = {}, summary?: string) => ({
  labels: { alertname: name, ...labels },
  annotations: (summary ? { summary } : {}) as Record<string, string>,
  state,
});

describe("the demo's alert lines", () => {
  it("keeps only Lockstep's firing alerts, one per name and labels", () => {
    const m = firingLockstepAlerts([
      alert("LockstepUpdateStalled", "firing", { pool: "worker" }),
      alert("LockstepUpdateStalled", "firing", { pool: "infra" }),
      alert("LockstepNodeDegraded", "pending", { pool: "worker" }),
      alert("Watchdog", "firing"),
    ]);
    expect([...m.values()].map((a) => `${a.labels.alertname}/${a.labels.pool}`).sort()).toEqual(["LockstepUpdateStalled/infra", "LockstepUpdateStalled/worker"]);
  });

  it("tells started from stopped, whatever order the labels come in", () => {
    const before = firingLockstepAlerts([alert("LockstepUpdateStalled", "firing", { pool: "worker", namespace: "lockstep" }), alert("LockstepServiceDown", "firing", { job: "lockstep-watcher" })]);
    const now = firingLockstepAlerts([
      { labels: { namespace: "lockstep", pool: "worker", alertname: "LockstepUpdateStalled" }, annotations: {}, state: "firing" },
      alert("LockstepNodeDegraded", "firing", { pool: "worker" }),
    ]);
    const { started, stopped } = alertChanges(before, now);
    expect(started.map((a) => a.labels.alertname)).toEqual(["LockstepNodeDegraded"]);
    expect(stopped.map((a) => a.labels.alertname)).toEqual(["LockstepServiceDown"]);
    expect(alertChanges(now, now)).toEqual({ started: [], stopped: [] });
  });

  it("says the alert's name and summary", () => {
    expect(describeAlert("firing", alert("LockstepUpdateStalled", "firing", {}, "The update of pool worker is not moving."))).toBe(
      "alert firing: LockstepUpdateStalled — The update of pool worker is not moving.",
    );
    expect(describeAlert("resolved", alert("LockstepServiceDown", "firing"))).toBe("alert resolved: LockstepServiceDown");
  });
});

describe("the demo without Prometheus", () => {
  it("says why and carries on", async () => {
    const events = new EventLog();
    const a = await startDemoAlerts({ system: { replicas: new Map() }, events, env: { PROMETHEUS_BIN: "/nonexistent/prometheus", PATH: "" } });
    expect(a.unavailable).toMatch(/^prometheus not found \(PROMETHEUS_BIN/);
    expect(a.url).toBeUndefined();
    await a.stop();
    expect(events.events).toEqual([]);
  });
});
