import type { StateChange } from "@lockstep/bus";
import { BootImagePolicyState, ClusterOperatorState, LeaseState, MachineConfigState, NodeDisruptionPolicyState, stateKey, type StateKindName } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { StatusView } from "../view/status-view.js";
import { LOCKSTEP_OPERATOR, StateFeed } from "./state-feed.js";

let revision = 0;
function put(kind: StateKindName, name: string, value: unknown, namespace?: string): StateChange {
  return { key: stateKey(kind, name, namespace), parsed: { kind, name, namespace }, op: "put", value, revision: ++revision } as StateChange;
}
function del(kind: StateKindName, name: string, namespace?: string): StateChange {
  return { key: stateKey(kind, name, namespace), parsed: { kind, name, namespace }, op: "delete", revision: ++revision } as StateChange;
}

describe("StateFeed", () => {
  it("keeps what is read beside the view: leases by key, MachineConfigs, Lockstep's operator and boot image policy", () => {
    const feed = new StateFeed(new StatusView());
    expect(feed.apply(put("lease", "n1", LeaseState.fromPartial({ name: "n1", namespace: "a" }), "a"))).toBe(true);
    expect(feed.apply(put("lease", "n1", LeaseState.fromPartial({ name: "n1", namespace: "b" }), "b"))).toBe(true);
    expect(feed.leases.size).toBe(2);
    feed.apply(del("lease", "n1", "a"));
    expect([...feed.leases.values()].map((l) => l.namespace)).toEqual(["b"]);
    feed.apply(put("machineConfig", "rendered-worker-1", MachineConfigState.fromPartial({ name: "rendered-worker-1" })));
    expect(feed.machineConfigs.has("rendered-worker-1")).toBe(true);
    feed.apply(put("clusterOperator", "dns", ClusterOperatorState.fromPartial({ name: "dns" })));
    expect(feed.lockstepOperator).toBeUndefined();
    feed.apply(put("clusterOperator", LOCKSTEP_OPERATOR, ClusterOperatorState.fromPartial({ name: LOCKSTEP_OPERATOR })));
    expect(feed.lockstepOperator?.name).toBe(LOCKSTEP_OPERATOR);
    feed.apply(put("bootImagePolicy", "other", BootImagePolicyState.fromPartial({ name: "other" })));
    expect(feed.bootImagePolicy).toBeUndefined();
    feed.apply(put("bootImagePolicy", "cluster", BootImagePolicyState.fromPartial({ name: "cluster" })));
    expect(feed.bootImagePolicy?.name).toBe("cluster");
  });

  it("says no to kinds the aggregator does not read", () => {
    expect(new StateFeed(new StatusView()).apply(put("machineSet", "ms", {}, "openshift-machine-api"))).toBe(false);
  });

  it("resolves the effective rules from the cluster's policies, the shipped defaults only when it has no default", () => {
    const feed = new StateFeed(new StatusView(), []);
    expect(feed.resolvedPolicies().statuses).toEqual([]);
    feed.apply(put("nodeDisruptionPolicy", "custom", NodeDisruptionPolicyState.fromPartial({ name: "custom" })));
    expect(feed.resolvedPolicies().statuses.map((s) => s.name)).toEqual(["custom"]);
  });
});
