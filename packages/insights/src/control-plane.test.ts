import { describe, expect, it } from "vitest";
import { assessControlPlane } from "./control-plane.js";
import { isMultiArch, targetVersionText } from "./history.js";
import { clusterVersion, cond, operator } from "./testing/builders.js";
import { HOUR, MINUTE, SECOND, parseTime } from "./time.js";

const entry = (version: string, state = "Completed", image = `img-${version}`) => ({ version, state, image, startedTime: "2024-01-01T00:00:00Z", completionTime: "2024-01-01T01:00:00Z" });

describe("targetVersionText (spec §9.3)", () => {
  it.each([
    [[entry("4.2.0", "Partial")], "4.2.0 (a new install)"],
    [[entry("4.2.0", "Partial"), entry("4.1.0", "Partial")], "4.2.0 (from incomplete 4.1.0)"],
    [[entry("4.2.0", "Partial", "a"), entry("4.2.0", "Completed", "b")], "4.2.0 to Multi-Architecture"],
    [[entry("4.2.0", "Partial"), entry("4.1.0")], "4.2.0 (from 4.1.0)"],
    [[], "unknown (from unknown)"],
  ])("%#", (history, text) => {
    expect(targetVersionText(history)).toBe(text);
  });

  it("multi-arch needs the same version with another image", () => {
    expect(isMultiArch([entry("4.2.0", "Partial", "a"), entry("4.2.0", "Completed", "a")])).toBe(false);
    expect(isMultiArch([entry("4.2.0", "Partial", "a")])).toBe(false);
  });
});

describe("assessControlPlane", () => {
  const started = "2024-01-01T00:00:00Z";
  const t0 = parseTime(started);
  const history = [{ version: "4.2.0", state: "Partial", image: "b", startedTime: started }, entry("4.1.0")];
  const updated = (name: string) => operator(name, { version: "4.2.0", progressing: cond("Progressing", "False", "2024-01-01T00:10:00Z") });
  const waiting = (name: string) => operator(name, { version: "4.1.0", progressing: cond("Progressing", "False", "2023-12-01T00:00:00Z") });

  it("counts only platform operators and classifies them", () => {
    const ops = [
      updated("a"),
      waiting("b"),
      operator("c", { version: "4.1.0", progressing: cond("Progressing", "True", "2024-01-01T00:20:00Z", { reason: "R", message: "m" }) }),
      operator("d", { version: "4.1.0", platform: false }),
      operator("e", { version: "4.2.0", available: cond("Available", "False", started) }),
      operator("f", { version: "4.2.0", degraded: cond("Degraded", "True", started) }),
    ];
    const { summary } = assessControlPlane(clusterVersion(history), ops, "", t0 + 30n * MINUTE);
    expect(summary.operators).toMatchObject({ total: 5, updated: 3, waiting: 1, unavailable: 1, degraded: 1 });
    expect(summary.operators.updating.map((o) => o.name)).toEqual(["c"]);
    expect(summary.completion).toBe(60);
  });

  it("machine-config with an operator-image other than the MCO deployment image is not updated", () => {
    const mco = operator("machine-config", { version: "4.2.0" });
    mco.status?.versions?.push({ name: "operator-image", version: "quay.io/mco@sha256:1" });
    const cv = clusterVersion(history);
    expect(assessControlPlane(cv, [mco], "", t0 + MINUTE).summary.operators.updated).toBe(0);
    expect(assessControlPlane(cv, [mco], "quay.io/mco@sha256:1", t0 + MINUTE).summary.operators.updated).toBe(1);
  });

  it("is Stalled with the N/A estimate below −10 min (spec §9.9)", () => {
    // 32 of 33 updated; the last (machine-config) started progressing 50 min into a 2 h update.
    const ops = [...Array.from({ length: 32 }, (_, i) => updated(`op${i}`)), operator("machine-config", { version: "4.1.0", progressing: cond("Progressing", "True", "2024-01-01T00:50:00Z") })];
    const { summary } = assessControlPlane(clusterVersion(history), ops, "", t0 + 2n * HOUR);
    expect(summary.assessment).toBe("Stalled");
    expect(summary.estTimeToComplete).toBe(-(40n * MINUTE + 16n * SECOND));
    expect(summary.estDuration).toBe(HOUR + 19n * MINUTE);
    expect(summary.duration).toBe(2n * HOUR);
  });

  it("is Progressing - Slow for small negative estimates (spec §9.9)", () => {
    const ops = [
      ...Array.from({ length: 30 }, (_, i) => updated(`op${i}`)),
      ...["x", "y", "z"].map((n) => operator(n, { version: "4.1.0", progressing: cond("Progressing", "True", "2024-01-01T00:30:00Z") })),
    ];
    const { summary } = assessControlPlane(clusterVersion(history), ops, "", t0 + HOUR);
    expect(summary.assessment).toBe("Progressing - Slow");
    expect(summary.estTimeToComplete).toBe(-(2n * MINUTE + 44n * SECOND));
  });

  it("completed: duration from the history entry, no estimate", () => {
    const done = [{ version: "4.2.0", state: "Completed", image: "b", startedTime: started, completionTime: "2024-01-01T03:31:10Z" }, entry("4.1.0")];
    const { summary } = assessControlPlane(clusterVersion(done), [updated("a")], "", t0 + 5n * HOUR);
    expect(summary).toMatchObject({ completed: true, assessment: "Completed", estTimeToComplete: 0n, duration: 3n * HOUR + 31n * MINUTE });
    expect(summary.completionAt).toBe(parseTime("2024-01-01T03:31:10Z"));
  });

  it("emits the Failing and previous-update insights", () => {
    const cv = clusterVersion([{ version: "4.2.0", state: "Partial", startedTime: started }, entry("4.1.0", "Partial"), entry("4.0.5"), entry("4.0.0")], {
      conditions: [cond("Failing", "Unknown", started, { reason: "Why", message: "msg" }), cond("Progressing", "True")],
    });
    const { insights } = assessControlPlane(cv, [waiting("a")], "", t0 + MINUTE);
    expect(insights.map((i) => i.summary)).toEqual([
      "Cluster Version version may be failing to proceed with the update (Why)",
      "Previous update to 4.1.0 never completed, last complete update was 4.0.5",
    ]);
    const noFailing = clusterVersion(history, { conditions: [cond("Progressing", "True")] });
    expect(assessControlPlane(noFailing, [waiting("a")], "", t0).insights[0]).toMatchObject({ startedAt: t0, summary: "Cluster Version version has no Failing condition" });
  });

  it("operator insights wait 5 min and escalate later", () => {
    const since = "2024-01-01T00:00:00Z";
    const op = operator("etcd", { available: cond("Available", "False", since, { reason: "Down" }), degraded: cond("Degraded", "True", since, { reason: "Bad", message: "broken" }) });
    const levels = (at: bigint) => assessControlPlane(clusterVersion(history), [op], "", at).insights.filter((i) => i.resources[0]?.kind === "ClusterOperator").map((i) => `${i.level}:${i.summary}:${i.description}`);
    expect(levels(t0 + 5n * MINUTE)).toEqual([]);
    expect(levels(t0 + 5n * MINUTE + 1n)).toEqual(["Warning:Cluster Operator etcd is unavailable (Down):<no message>", "Warning:Cluster Operator etcd is degraded (Bad):broken"]);
    expect(levels(t0 + 21n * MINUTE)).toEqual(["Error:Cluster Operator etcd is unavailable (Down):<no message>", "Warning:Cluster Operator etcd is degraded (Bad):broken"]);
    expect(levels(t0 + 41n * MINUTE)).toEqual(["Error:Cluster Operator etcd is unavailable (Down):<no message>", "Error:Cluster Operator etcd is degraded (Bad):broken"]);
  });
});
