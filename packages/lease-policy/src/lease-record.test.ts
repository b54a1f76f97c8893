import { describe, expect, it } from "vitest";
import { testPolicy } from "./fixtures.js";
import { ANN_PREEMPTED_AT, ANN_PREEMPTED_BY, decodeLease, encodeLease, formatMicroTime, leaseStateFromObject, parsePreemptor, preemptorLabel, slotLeaseName } from "./lease-record.js";

const policy = testPolicy();

describe("lease record codec", () => {
  it("writes RFC3339Micro with exactly six fractional digits", () => {
    expect(formatMicroTime(new Date("2026-11-21T11:10:48.123Z"))).toBe("2026-11-21T11:10:48.123000Z");
  });

  it("round-trips operation, reason, holder, times and the Node owner reference", () => {
    const body = encodeLease({
      namespace: "lockstep-leases", name: "worker-1", kind: "node", node: "worker-1", nodeUid: "u1", holder: "mco/update/1",
      operation: "Reboot", reason: "rendered-worker-7", durationSeconds: 90, acquireTime: new Date("2026-01-01T00:00:00Z"),
      renewTime: new Date("2026-01-01T00:01:00Z"), transitions: 2,
    });
    expect(body.metadata.ownerReferences).toEqual([{ apiVersion: "v1", kind: "Node", name: "worker-1", uid: "u1" }]);
    expect(body.metadata.labels["lockstep.io/operation"]).toBe("reboot");
    const rec = decodeLease({ ...leaseStateFromObject(JSON.parse(JSON.stringify(body))), resourceVersion: "7" }, policy)!;
    expect(rec).toMatchObject({ kind: "node", node: "worker-1", owned: true, holder: "mco/update/1", operation: "Reboot", reason: "rendered-worker-7", durationSeconds: 90, transitions: 2, corrupt: undefined });
    expect(rec.renewTime?.toISOString()).toBe("2026-01-01T00:01:00.000Z");
  });

  it("a released lease has no holder and a positive duration", () => {
    const body = encodeLease({ namespace: "n", name: "x", kind: "node", node: "x", nodeUid: "", holder: "", operation: "Update", reason: "", durationSeconds: 0, acquireTime: undefined, renewTime: undefined, transitions: 1 });
    expect(body.spec.holderIdentity).toBeUndefined();
    expect(body.spec.leaseDurationSeconds).toBe(1);
    expect(body.metadata.ownerReferences).toEqual([]);
  });

  it("recognises medik8s and KEP leases and the operation their holders imply", () => {
    const medik8s = decodeLease(leaseStateFromObject({ metadata: { namespace: "medik8s-leases", name: "node-w1" }, spec: { holderIdentity: "NodeHealthCheck-nhc", leaseDurationSeconds: 660, renewTime: "2026-01-01T00:00:00.000000Z" } }), policy);
    expect(medik8s).toMatchObject({ kind: "foreign", node: "w1", operation: "Fence", owned: false });
    expect(decodeLease(leaseStateFromObject({ metadata: { namespace: "medik8s-leases", name: "pod-w1" } }), policy)).toBeUndefined();
    const kep = decodeLease(leaseStateFromObject({ metadata: { namespace: "kube-node-maintenance", name: "w2" }, spec: { holderIdentity: "kubeadm-ann" } }), policy);
    expect(kep).toMatchObject({ node: "w2", operation: "Maintenance" });
    expect(decodeLease(leaseStateFromObject({ metadata: { namespace: "kube-node-lease", name: "w1" } }), policy)).toBeUndefined();
  });

  it("reads slot identity from the name and flags corrupt specs instead of throwing", () => {
    const slot = decodeLease(leaseStateFromObject({ metadata: { namespace: "lockstep-leases", name: slotLeaseName("pool.worker", 3), labels: { "lockstep.io/lease-kind": "slot" }, annotations: { "lockstep.io/node": "w1" } } }), policy);
    expect(slot).toMatchObject({ kind: "slot", scope: "pool.worker", slotIndex: 3, node: "w1" });
    const corrupt = decodeLease(leaseStateFromObject({ metadata: { namespace: "lockstep-leases", name: "w1" }, spec: { holderIdentity: "x", leaseDurationSeconds: 10, renewTime: "soon" } }), policy);
    expect(corrupt?.corrupt).toContain('unparseable renewTime "soon"');
  });

  it.each([
    ["admin-alice (Maintenance)", "admin-alice", "Maintenance"],
    ["ops/team a (Update)", "ops/team a", "Update"],
    ["odd (Nap)", "odd", undefined],
    ["no-operation", "no-operation", undefined],
  ] as const)("parses the preemptor label %s", (label, holder, operation) => {
    expect(parsePreemptor(label)).toEqual({ holder, operation });
  });

  it("decodes a binding preemption mark with its preemptor and time", () => {
    const body = encodeLease({
      namespace: "lockstep-leases", name: "w1", kind: "node", node: "w1", nodeUid: "u1", holder: "mcd", operation: "Update", reason: "r",
      durationSeconds: 60, acquireTime: undefined, renewTime: new Date("2026-01-01T00:00:00Z"), transitions: 0,
      annotations: { [ANN_PREEMPTED_BY]: preemptorLabel("admin-alice", "Maintenance"), [ANN_PREEMPTED_AT]: "2026-01-01T00:00:30.000000Z" },
    });
    const rec = decodeLease(leaseStateFromObject(JSON.parse(JSON.stringify(body))), policy)!;
    expect(rec).toMatchObject({ preemptedBy: "admin-alice (Maintenance)", preemptorHolder: "admin-alice", preemptedAt: new Date("2026-01-01T00:00:30Z"), preemptionRequestedBy: "" });
  });
});
