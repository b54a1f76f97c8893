import { describe, expect, it } from "vitest";
import { assessAvailability, descriptionString, messageString, seriouslyUnavailable, unavailableSince } from "./node-availability.js";
import { cond, node, pool } from "./testing/builders.js";
import { MINUTE, ZERO_TIME, parseTime } from "./time.js";

const worker = pool("worker");
const done = { current: "c", desired: "c", state: "Done" };

describe("assessAvailability (spec §5.3)", () => {
  it("a done, ready node is available", () => {
    expect(assessAvailability(node("n", done), worker)).toEqual({ isUnavailable: false, reasons: [] });
  });

  it("collects condition reasons in order, then unschedulable", () => {
    const a = assessAvailability(
      node("n", {
        ...done,
        unschedulable: true,
        conditions: [cond("NetworkUnavailable", "True", "2024-01-01T00:02:00Z"), cond("Ready", "Unknown", "2024-01-01T00:01:00Z", { message: "m" }), cond("DiskPressure", "False")],
      }),
      worker,
    );
    expect(a.isUnavailable).toBe(true);
    expect(a.reasons.map((r) => r.reason)).toEqual(["Network unavailable", "Not ready", "Node is marked unschedulable"]);
    expect(unavailableSince(a.reasons)).toBe(parseTime("2024-01-01T00:01:00Z"));
  });

  it("the MCD reason applies only when nothing else did", () => {
    expect(assessAvailability(node("n", { current: "a", desired: "b", state: "Working" }), worker).reasons.map((r) => r.reason)).toEqual([
      "Machine Config Daemon is processing the node",
    ]);
    expect(assessAvailability(node("n", { current: "a", desired: "b", state: "Degraded" }), worker).isUnavailable).toBe(false);
    expect(assessAvailability(node("n", {}), worker).isUnavailable).toBe(true);
  });

  it("exactly one image annotation is not done", () => {
    expect(assessAvailability(node("n", { ...done, currentImage: "img" }), worker).reasons).toHaveLength(1);
    expect(assessAvailability(node("n", { ...done, currentImage: "img", desiredImage: "img" }), worker).reasons).toHaveLength(0);
  });

  it("a non-empty desired image makes a flagged node available in a plain pool", () => {
    const a = assessAvailability(node("n", { ...done, unschedulable: true, desiredImage: "img" }), worker);
    expect(a.isUnavailable).toBe(false);
  });

  it("layered pool: a desired image other than the pool image adds the layering reason", () => {
    const layered = pool("worker", {
      labels: { "machineconfiguration.openshift.io/layering-enabled": "" },
      annotations: { "machineconfiguration.openshift.io/newestImageEquivalentConfig": "os-img" },
    });
    const off = assessAvailability(node("n", { ...done, unschedulable: true, desiredImage: "other" }), layered);
    expect(off.isUnavailable).toBe(false);
    expect(off.reasons.at(-1)?.reason).toBe("Node has an unexpected annotation machineconfiguration.openshift.io/newestImageEquivalentConfig=os-img");
    expect(assessAvailability(node("n", { ...done, unschedulable: true, desiredImage: "os-img" }), layered).isUnavailable).toBe(true);
  });
});

describe("reason renderings", () => {
  const reasons = [
    { reason: "Not ready", message: 'kubelet "x"\nnext', since: ZERO_TIME },
    { reason: "Disk pressure", message: "full", since: ZERO_TIME },
    { reason: "Node is marked unschedulable", message: "", since: ZERO_TIME },
  ];
  it("message string names the node", () => {
    expect(messageString("n1", reasons)).toBe("Node n1 is not ready | Node n1 has disk pressure | Node is marked unschedulable");
  });
  it("description string quotes condition messages like Go %q", () => {
    expect(descriptionString(reasons)).toBe(
      'Node has a Ready!=True condition with Reason "Not ready" and message "kubelet \\"x\\"\\nnext" | Node has a DiskPressure!=False condition with Reason "Disk pressure" and message "full" | Node is marked unschedulable',
    );
  });
});

describe("seriouslyUnavailable (spec §11.3)", () => {
  const t0 = parseTime("2024-01-01T00:00:00Z");
  const r = (reason: string) => [{ reason, message: "", since: t0 }];
  it("excuses recent conditions and the benign reasons", () => {
    expect(seriouslyUnavailable(r("Not ready"), t0 + 4n * MINUTE)).toBe(false);
    expect(seriouslyUnavailable(r("Not ready"), t0 + 5n * MINUTE)).toBe(true);
    expect(seriouslyUnavailable(r("Disk pressure"), t0 + MINUTE - 1n)).toBe(false);
    expect(seriouslyUnavailable(r("Network unavailable"), t0 + MINUTE)).toBe(true);
    expect(seriouslyUnavailable(r("Node is marked unschedulable"), t0 + 100n * MINUTE)).toBe(false);
    expect(seriouslyUnavailable(r("Machine Config Daemon is processing the node"), t0 + 100n * MINUTE)).toBe(false);
    expect(seriouslyUnavailable(r("Node has an unexpected annotation x=y"), t0)).toBe(true);
  });
});
