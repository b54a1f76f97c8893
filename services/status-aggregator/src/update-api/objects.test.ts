import { type HealthInsight, type NodeRecord, ZERO_TIME, summarizePool } from "@lockstep/insights";
import { describe, expect, it } from "vitest";
import { clusterOperatorObject, healthInsightName, healthObject, nodeObject, poolObject } from "./objects.js";
import type { ClusterOperatorProgressStatus, NodeProgressStatus, PoolProgressStatus } from "@lockstep/contracts";

const NOW = 1_700_000_000_000_000_000n;

const record = (over: Partial<NodeRecord> = {}): NodeRecord => ({
  name: "worker-a-0123456",
  pool: "worker",
  scopeType: "WorkerPool",
  assessment: "Progressing",
  phase: "Draining",
  version: "4.14.0",
  estimate: "+10m",
  message: "",
  isUpdated: false,
  isUpdating: true,
  isUnavailable: false,
  isDegraded: false,
  isDraining: true,
  unavailableReason: "",
  unavailableSince: ZERO_TIME,
  degradedReason: "",
  ...over,
});

describe("nodeObject", () => {
  it("has PR 2233's shape: no .resource, a pool reference, the phase as Updating reason", () => {
    const s = nodeObject(record(), NOW).status as NodeProgressStatus;
    expect(s).not.toHaveProperty("resource");
    expect(s.poolResource).toEqual({ group: "machineconfiguration.openshift.io", resource: "machineconfigpools", name: "worker" });
    expect(s.conditions.find((c) => c.type === "Updating")).toMatchObject({ status: "True", reason: "Draining" });
    expect(s.estimatedToComplete).toBe("10m0s");
  });

  it("reports an updating node's unavailability (Available=False) without making it Unavailable in the view", () => {
    const s = nodeObject(record({ isUnavailable: true, unavailableReason: "Node is marked unschedulable" }), NOW).status as NodeProgressStatus;
    expect(s.conditions.find((c) => c.type === "Available")).toMatchObject({ status: "False", reason: "Unavailable", message: "Node is marked unschedulable" });
    expect(s.message).toBeUndefined();
  });

  it("is the same object for the same row (no write without a change)", () => {
    expect(nodeObject(record(), NOW)).toEqual(nodeObject(record(), NOW));
  });
});

describe("poolObject", () => {
  it("caps counts at the CRD's bound and says why it is not updating", () => {
    const rows = Array.from({ length: 2001 }, (_, i) => record({ name: `n${i}`, phase: "Paused", assessment: "Excluded", isUpdating: false, isDraining: false }));
    const s = poolObject(summarizePool({ metadata: { name: "worker" }, spec: { paused: true } }, rows)).status as PoolProgressStatus;
    expect(s.summaries.find((x) => x.type === "Total")?.count).toBe(2000);
    expect(s.conditions[0]).toMatchObject({ type: "Updating", status: "False", reason: "Paused" });
    expect(s.assessment).toBe("Excluded");
  });
});

describe("clusterOperatorObject", () => {
  const cv = { metadata: { name: "version" }, status: { desired: { version: "4.15.0" } } };
  const co = (progressing: { status: string; reason?: string }) => ({
    metadata: { name: "etcd", annotations: { "include.release.openshift.io/self-managed-high-availability": "true" } },
    status: {
      versions: [{ name: "operator", version: "4.14.0" }],
      conditions: [
        { type: "Available", status: "True" },
        { type: "Progressing", ...progressing, message: "NodeInstallerProgressing: 2 nodes", lastTransitionTime: "2024-01-01T00:00:00Z" },
      ],
    },
  });

  it("carries the operator's Progressing reason, `Progressing` when it has none", () => {
    const a = clusterOperatorObject(cv, co({ status: "True", reason: "NodeInstaller" }), NOW)!.status as ClusterOperatorProgressStatus;
    expect(a.conditions[0]).toMatchObject({ type: "Updating", status: "True", reason: "NodeInstaller", lastTransitionTime: "2024-01-01T00:00:00Z" });
    const b = clusterOperatorObject(cv, co({ status: "True" }), NOW)!.status as ClusterOperatorProgressStatus;
    expect(b.conditions[0]!.reason).toBe("Progressing");
  });

  it("skips operators that are not part of the payload", () => {
    expect(clusterOperatorObject(cv, { metadata: { name: "lockstep" }, status: {} }, NOW)).toBeUndefined();
  });
});

describe("health insight names", () => {
  const insight = (over: Partial<HealthInsight> = {}): HealthInsight => ({
    startedAt: ZERO_TIME,
    scopeType: "WorkerPool",
    resources: [{ kind: "Node", name: "Worker.A_1" }],
    level: "Error",
    impact: "Update Stalled",
    summary: "Node worker is degraded",
    description: "d",
    reference: "https://example.com/r",
    ...over,
  });
  it("are valid object names, stable while only level and text change", () => {
    const name = healthInsightName(insight());
    expect(name).toMatch(/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$/);
    expect(healthInsightName(insight({ level: "Warning", summary: "other" }))).toBe(name);
    expect(healthInsightName(insight({ impact: "Update Speed" }))).not.toBe(name);
  });
  it("keep the zero time for an unknown start", () => {
    expect(healthObject(insight()).status).toMatchObject({ startedAt: "0001-01-01T00:00:00Z", scope: { type: "WorkerPool" } });
  });
});
