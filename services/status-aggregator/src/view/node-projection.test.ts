import { NodeState, PoolState } from "@lockstep/contracts";
import { type ClusterContext, evaluateNode, nodeFromState, poolFromState } from "@lockstep/insights";
import { describe, expect, it } from "vitest";
import { projectNode } from "./node-projection.js";

const T1 = new Date("2026-01-01T10:00:00Z");
const T2 = new Date("2026-01-01T11:30:00Z");
const kubelet = (ready: string, disk = "False", network = "False") => [
  { type: "DiskPressure", status: disk, reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure", lastTransitionTime: T1 },
  { type: "MemoryPressure", status: "False", reason: "KubeletHasSufficientMemory", message: "kubelet has sufficient memory available", lastTransitionTime: T1 },
  { type: "NetworkUnavailable", status: network, reason: "RouteCreated", message: "routes created", lastTransitionTime: T1 },
  { type: "PIDPressure", status: "False", reason: "KubeletHasSufficientPID", message: "kubelet has sufficient PID available", lastTransitionTime: T1 },
  { type: "Ready", status: ready, reason: "KubeletReady", message: "kubelet is posting ready status", lastTransitionTime: new Date(T2) },
];
const node = (name: string, mco: Partial<NonNullable<NodeState["mco"]>>, extra: Partial<NodeState> = {}): NodeState =>
  NodeState.fromPartial({
    name,
    uid: `uid-${name}`,
    labels: { "node-role.kubernetes.io/worker": "", "kubernetes.io/hostname": name, "topology.kubernetes.io/zone": "a" },
    roles: ["worker"],
    mco: { currentConfig: "rendered-old", desiredConfig: "rendered-new", desiredConfigPresent: true, state: "Working", desiredDrain: "drain-x", lastAppliedDrain: "uncordon-y", controlPlaneTopology: "HighlyAvailable", postConfigAction: "Reboot", ...mco },
    conditions: kubelet("True"),
    creationTime: T1,
    architecture: "amd64",
    kubeletVersion: "v1.29.5",
    ...extra,
  });

const states: NodeState[] = [
  node("working", {}),
  node("done", { currentConfig: "rendered-new", state: "Done", desiredDrain: "uncordon-y" }),
  node("degraded", { state: "Degraded", reason: "failed to drain node: timed out" }),
  node("not-ready", {}, { conditions: kubelet("False", "True", "True"), unschedulable: true }),
  node("layered", { currentImage: "quay.io/os@sha256:a", currentImagePresent: true, desiredImage: "quay.io/os@sha256:b", desiredImagePresent: true }),
  node("no-mco", {}, { mco: undefined }),
];
const pool = poolFromState(PoolState.fromPartial({ name: "worker", nodeSelector: { matchLabels: { "node-role.kubernetes.io/worker": "" } }, nodeSelectorPresent: true, targetConfig: "rendered-new" }));
const ctx: ClusterContext = { target: "4.16.1", migrationInProgress: false, mcVersions: new Map([["rendered-old", "4.15.3"], ["rendered-new", "4.16.1"]]) };

describe("projectNode", () => {
  it("keeps everything the status rules read: the same record and availability", () => {
    for (const s of states) {
      expect(evaluateNode(nodeFromState(projectNode(s)), pool, ctx), s.name).toEqual(evaluateNode(nodeFromState(s), pool, ctx));
    }
  });

  it("keeps what the preview reads and drops what nothing reads", () => {
    const p = projectNode(states[0]!);
    expect(p.mco?.currentConfig).toBe("rendered-old");
    expect(p.mco?.controlPlaneTopology).toBe("HighlyAvailable");
    expect(p.labels).toEqual(states[0]!.labels);
    expect(p.conditions.map((c) => c.type)).toEqual(["DiskPressure", "NetworkUnavailable", "Ready"]);
    expect([p.uid, p.roles, p.creationTime, p.architecture, p.kubeletVersion, p.mco?.postConfigAction]).toEqual(["", [], undefined, "", "", ""]);
  });

  it("shares one Date per transition time across nodes", () => {
    const [a, b] = [projectNode(states[0]!), projectNode(states[1]!)];
    expect(a.conditions[2]!.lastTransitionTime).toEqual(T2);
    expect(a.conditions[2]!.lastTransitionTime).toBe(b.conditions[2]!.lastTransitionTime);
    expect(a.conditions[0]!.lastTransitionTime).toBe(b.conditions[0]!.lastTransitionTime);
  });
});
