import { describe, expect, it } from "vitest";
import { A, MCD } from "../constants.js";
import type { KubeObject } from "../types.js";
import { atSafePoint, daemonStage, daemonStageUnlessHalted, daemonWrite, drainStage, drainTimeoutReason, uncordonWrite } from "./daemon.js";

const ctx = { now: "2026-01-01T00:00:00Z", versionOf: () => "4.15.5", nodeInfo: () => ({ osImage: "x" }), rebootingState: true };

function node(ann: Record<string, string>, ready = true): KubeObject {
  return { apiVersion: "v1", kind: "Node", metadata: { name: "n1", annotations: ann }, status: { conditions: [{ type: "Ready", status: ready ? "True" : "False" }] } };
}

/** Applies a stage write to a local copy, the way the API server would. */
function apply(n: KubeObject, w: ReturnType<typeof daemonWrite>): KubeObject {
  const out = structuredClone(n);
  const meta = (w.node?.metadata as { annotations?: Record<string, string> } | undefined)?.annotations;
  if (meta) out.metadata.annotations = { ...out.metadata.annotations, ...meta };
  const spec = w.node?.spec as Record<string, unknown> | undefined;
  if (spec) out.spec = { ...out.spec, ...spec };
  const conds = ((w.status?.status as { conditions?: Array<{ type: string }> } | undefined)?.conditions ?? []);
  for (const c of conds) out.status.conditions = [...out.status.conditions.filter((x: { type: string }) => x.type !== c.type), c];
  return out;
}

describe("daemon stages chain through annotations (kube-api.md §17.3)", () => {
  it("walks Working → drain request → reboot → boot → Done → uncordon", () => {
    let n = node({ [A.currentConfig]: "old", [A.desiredConfig]: "new", [A.state]: MCD.done, [A.desiredDrain]: "uncordon-old", [A.lastAppliedDrain]: "uncordon-old" });
    const seen: string[] = [];
    for (let i = 0; i < 10; i++) {
      const dr = drainStage(n);
      if (dr === "mcc-drain") {
        seen.push(dr);
        n = apply(n, { node: { spec: { unschedulable: true }, metadata: { annotations: { [A.lastAppliedDrain]: n.metadata.annotations![A.desiredDrain]! } } } });
        continue;
      }
      if (dr === "mcc-uncordon") {
        seen.push(dr);
        n = apply(n, uncordonWrite(n));
        continue;
      }
      const s = daemonStage(n);
      if (!s) break;
      seen.push(s);
      n = apply(n, daemonWrite(s, n, ctx));
    }
    expect(seen).toEqual(["mcd-start", "mcd-request-drain", "mcc-drain", "mcd-reboot", "kubelet-boot", "mcd-complete", "mcc-uncordon"]);
    expect(n.metadata.annotations).toMatchObject({ [A.currentConfig]: "new", [A.state]: MCD.done, [A.desiredDrain]: "uncordon-new", [A.lastAppliedDrain]: "uncordon-new", [A.postConfigAction]: "" });
    expect(n.spec.unschedulable).toBeNull();
  });

  it("stays down when the node never returns, and degrades on an apply failure", () => {
    const rebooting = node({ [A.currentConfig]: "old", [A.desiredConfig]: "new", [A.state]: MCD.rebooting, [A.postConfigAction]: MCD.rebooting }, false);
    expect(daemonStage(rebooting)).toBe("kubelet-boot");
    expect(daemonStage(rebooting, { neverReturns: true })).toBeUndefined();
    const fresh = node({ [A.currentConfig]: "old", [A.desiredConfig]: "new", [A.state]: MCD.done });
    expect(daemonStage(fresh, { degrade: true })).toBe("mcd-degrade");
    expect(daemonWrite("mcd-degrade", fresh, ctx).node).toMatchObject({ metadata: { annotations: { [A.state]: MCD.degraded } } });
  });

  it("retries an update whose failed drain later went through", () => {
    const n = node({ [A.currentConfig]: "old", [A.desiredConfig]: "new", [A.state]: MCD.degraded, [A.reason]: drainTimeoutReason("n1", 3600), [A.desiredDrain]: "drain-new", [A.lastAppliedDrain]: "drain-new" });
    expect(daemonStage(n)).toBe("mcd-retry");
  });

  it("words the drain timeout like upstream", () => {
    expect(drainTimeoutReason("node-a", 3600)).toBe("failed to drain node: node-a after 1 hour. Please see machine-config-controller logs for more information");
  });
});

describe("a preempted daemon stops at its next safe point", () => {
  const working = { [A.currentConfig]: "old", [A.desiredConfig]: "new", [A.state]: MCD.working, [A.desiredDrain]: "drain-new", [A.lastAppliedDrain]: "drain-new" };
  const rebooting = { ...working, [A.postConfigAction]: MCD.rebooting };
  it.each([
    ["between stages (drained, before the reboot)", node(working), true, undefined],
    ["not halted", node(working), false, "mcd-reboot"],
    ["inside its reboot: the node comes back first", node(rebooting, false), true, "kubelet-boot"],
    ["back from the reboot: it completes first", node(rebooting, true), true, "mcd-complete"],
  ] as const)("%s", (_what, n, halted, stage) => {
    expect(daemonStageUnlessHalted(n, halted)).toBe(stage);
  });
  it("is at a safe point anywhere but inside a reboot", () => {
    expect(atSafePoint(node(working))).toBe(true);
    expect(atSafePoint(node(rebooting, false))).toBe(false);
  });
});
