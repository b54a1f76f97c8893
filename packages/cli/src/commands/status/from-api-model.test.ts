import { describe, expect, it } from "vitest";
import type { InsightObjects } from "@lockstep/contracts";
import { FromApiError, evaluationFromApi, nodeRecordFromApi } from "./from-api-model.js";

const empty = (): InsightObjects => ({
  NodeProgressInsight: [],
  MachineConfigPoolProgressInsight: [],
  ClusterVersionProgressInsight: [],
  ClusterOperatorProgressInsight: [],
  HealthInsight: [],
});

const at = "2024-01-01T00:00:00Z";
const node = (conditions: Array<[string, "True" | "False", string, string?]>, message?: string) =>
  nodeRecordFromApi({
    name: "worker-0123456789",
    poolResource: { group: "machineconfiguration.openshift.io", resource: "machineconfigpools", name: "worker" },
    scopeType: "WorkerPool",
    version: "4.14.0",
    ...(message ? { message } : {}),
    conditions: conditions.map(([type, status, reason, msg]) => ({ type, status, reason, message: msg ?? "", lastTransitionTime: at })),
  });

describe("evaluationFromApi", () => {
  it("says what is missing when the cluster publishes no Update Status API", () => {
    expect(() => evaluationFromApi(empty(), 0n)).toThrow(FromApiError);
    expect(() => evaluationFromApi(empty(), 0n)).toThrow(/ClusterVersionProgressInsight/);
  });
});

describe("nodeRecordFromApi", () => {
  it("reads the view's assessment back from the conditions", () => {
    expect(node([["Updating", "True", "Draining"], ["Available", "False", "Unavailable", "Node is marked unschedulable"]])).toMatchObject({
      assessment: "Progressing",
      phase: "Draining",
      isUnavailable: true,
      message: "",
    });
    expect(node([["Updating", "False", "Pending"], ["Available", "False", "Unavailable", "Not ready"]])).toMatchObject({ assessment: "Unavailable", message: "Not ready", estimate: "?" });
    expect(node([["Updating", "True", "Draining"], ["Degraded", "True", "MachineConfigDaemonDegraded", "failed to drain node: worker-0123456789"]], "failed…")).toMatchObject({
      assessment: "Degraded",
      message: "failed to drain node: <node>",
    });
    expect(node([["Updating", "False", "Paused"]])).toMatchObject({ assessment: "Excluded", phase: "Paused" });
    expect(node([["Updating", "False", "Completed"]])).toMatchObject({ assessment: "Completed", phase: "Updated", isUpdated: true });
  });
});
