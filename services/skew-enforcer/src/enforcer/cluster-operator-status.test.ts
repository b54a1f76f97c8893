import { describe, expect, it } from "vitest";
import { observedStatus, statusFingerprint, statusUpdateBody } from "./cluster-operator-status.js";
import type { ClusterOperatorStatus } from "@lockstep/skew-rules";

const t0 = new Date("2026-02-01T10:00:00Z");
const desired: ClusterOperatorStatus = {
  conditions: [
    { type: "Available", status: "True", reason: "AsExpected", message: "ok", lastTransitionTime: t0 },
    { type: "Upgradeable", status: "False", reason: "PausedPoolLagging", message: "paused pool worker", lastTransitionTime: t0 },
  ],
  versions: [{ name: "operator", version: "0.1.0" }],
  relatedObjects: [
    { group: "", resource: "namespaces", name: "lockstep" },
    { group: "apps", resource: "deployments", name: "x", namespace: "lockstep" },
  ],
};

describe("ClusterOperator status JSON", () => {
  it("round-trips through the status body", () => {
    const observed = { apiVersion: "config.openshift.io/v1", kind: "ClusterOperator", metadata: { name: "lockstep", resourceVersion: "42" }, status: { extension: { keep: true } } };
    const body = statusUpdateBody(observed, desired);
    expect(body.metadata).toEqual({ name: "lockstep", resourceVersion: "42" });
    expect((body.status as Record<string, unknown>).extension).toEqual({ keep: true });
    const back = observedStatus(JSON.parse(JSON.stringify(body)));
    expect(back).toEqual({ conditions: desired.conditions, versions: desired.versions, relatedObjects: desired.relatedObjects });
  });

  it("reads a malformed status as empty instead of failing", () => {
    expect(observedStatus({ status: { conditions: "nope", versions: [null, 3], relatedObjects: {} } })).toEqual({ conditions: [], versions: [], relatedObjects: [] });
    expect(observedStatus(undefined)).toEqual({ conditions: [], versions: [], relatedObjects: [] });
    const [c] = observedStatus({ status: { conditions: [{ type: "Degraded", status: 1, lastTransitionTime: "yesterday" }] } }).conditions;
    expect(c).toEqual({ type: "Degraded", status: "", reason: "", message: "", lastTransitionTime: undefined });
  });

  it("fingerprints what a write changes, not when or in which order", () => {
    const later = { ...desired, conditions: [...desired.conditions].reverse().map((c) => ({ ...c, lastTransitionTime: new Date() })) };
    expect(statusFingerprint(later)).toBe(statusFingerprint(desired));
    const other = { ...desired, conditions: desired.conditions.map((c) => (c.type === "Upgradeable" ? { ...c, message: "paused pool infra" } : c)) };
    expect(statusFingerprint(other)).not.toBe(statusFingerprint(desired));
  });
});
