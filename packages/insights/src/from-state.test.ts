import { ClusterOperatorState, ClusterVersionState, MachineConfigState, NodeState, PoolState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { evaluate } from "./evaluate.js";
import { ANNOTATION_SOURCES, inputsFromState, nodeFromState, poolFromState } from "./from-state.js";
import { render } from "./render.js";
import { clusterVersion, cond, mc, node, operator, pool } from "./testing/builders.js";
import { parseTime } from "./time.js";
import type { StatusInputs } from "./types.js";

const d = (s: string) => new Date(s);
const MCO = "machineconfiguration.openshift.io/";

describe("nodeFromState / poolFromState", () => {
  it("keeps presence where the rules test it and drops empty annotations otherwise", () => {
    const n = nodeFromState(
      NodeState.fromPartial({
        name: "n1",
        labels: { a: "b" },
        unschedulable: true,
        mco: { currentConfig: "c1", desiredConfig: "", desiredConfigPresent: true, state: "Done", currentImage: "", currentImagePresent: true },
        conditions: [{ type: "Ready", status: "False", message: "m", lastTransitionTime: d("2024-01-01T00:00:00Z") }],
      }),
    );
    expect(n.metadata.annotations).toEqual({ [`${MCO}currentConfig`]: "c1", [`${MCO}desiredConfig`]: "", [`${MCO}state`]: "Done", [`${MCO}currentImage`]: "" });
    expect(n.spec?.unschedulable).toBe(true);
    expect(n.status?.conditions?.[0]).toMatchObject({ type: "Ready", status: "False", message: "m", lastTransitionTime: "2024-01-01T00:00:00.000Z" });
    expect(nodeFromState(NodeState.fromPartial({ name: "n2" })).metadata.annotations).toEqual({});
  });

  it("maps an absent node selector to no selector and layering to the label and annotation", () => {
    expect(poolFromState(PoolState.fromPartial({ name: "p", nodeSelectorPresent: false })).spec?.nodeSelector).toBeUndefined();
    const p = poolFromState(
      PoolState.fromPartial({ name: "p", nodeSelectorPresent: true, nodeSelector: { matchLabels: { r: "" } }, layered: true, newestImageEquivalentConfig: "img", targetConfig: "rc" }),
    );
    expect(p.spec?.nodeSelector).toEqual({ matchLabels: { r: "" }, matchExpressions: [] });
    expect(p.metadata.labels).toEqual({ [`${MCO}layering-enabled`]: "" });
    expect(p.metadata.annotations).toEqual({ [`${MCO}newestImageEquivalentConfig`]: "img" });
    expect(p.spec?.configuration?.name).toBe("rc");
  });
});

describe("inputsFromState", () => {
  it("renders the same text as the equivalent Kubernetes objects", () => {
    const history = [
      { version: "4.2.0", state: "Partial", image: "b", startedTime: "2024-01-01T00:00:00Z" },
      { version: "4.1.0", state: "Completed", image: "a", startedTime: "2023-01-01T00:00:00Z", completionTime: "2023-01-01T01:00:00Z" },
    ];
    const role = (r: string) => ({ [`node-role.kubernetes.io/${r}`]: "" });
    const kube: StatusInputs = {
      clusterVersion: clusterVersion(history, { conditions: [cond("Failing", "False"), cond("Progressing", "True")] }),
      clusterOperators: [
        operator("etcd", { version: "4.2.0", progressing: cond("Progressing", "False", "2024-01-01T00:20:00Z") }),
        operator("dns", { version: "4.1.0", progressing: cond("Progressing", "True", "2024-01-01T00:25:00Z", { reason: "Rolling", message: "a\nb" }) }),
      ],
      pools: [pool("master"), pool("worker")],
      nodes: [
        node("master-0", { labels: role("master"), current: "rendered-master-new", desired: "rendered-master-new", state: "Done" }),
        node("worker-0", { labels: role("worker"), current: "rendered-worker-old", desired: "rendered-worker-new", state: "Working", desiredDrain: "drain-x", lastAppliedDrain: "uncordon-y", unschedulable: true }),
        node("worker-1", { labels: role("worker"), current: "rendered-worker-old", desired: "rendered-worker-old", state: "Done", conditions: [cond("Ready", "False", "2024-01-01T00:10:00Z", { message: "down" })] }),
      ],
      machineConfigs: [mc("rendered-master-new", "4.2.0"), mc("rendered-worker-new", "4.2.0"), mc("rendered-worker-old", "4.1.0")],
      mcoImage: "",
    };
    const stateCond = (type: string, status: string, t = "2024-01-01T00:00:00Z", extra = {}) => ({ type, status, lastTransitionTime: d(t), ...extra });
    const platform = ["include.release.openshift.io/self-managed-high-availability"];
    const baseOpConds = [stateCond("Available", "True"), stateCond("Degraded", "False")];
    const fromState = inputsFromState({
      clusterVersion: ClusterVersionState.fromPartial({
        name: "version",
        desired: { version: "4.2.0" },
        history: [
          { version: "4.2.0", state: "Partial", image: "b", startedTime: d("2024-01-01T00:00:00Z") },
          { version: "4.1.0", state: "Completed", image: "a", startedTime: d("2023-01-01T00:00:00Z"), completionTime: d("2023-01-01T01:00:00Z") },
        ],
        conditions: [stateCond("Failing", "False"), stateCond("Progressing", "True")],
      }),
      clusterOperators: [
        ClusterOperatorState.fromPartial({ name: "etcd", annotationKeys: platform, versions: [{ name: "operator", version: "4.2.0" }], conditions: [...baseOpConds, stateCond("Progressing", "False", "2024-01-01T00:20:00Z")] }),
        ClusterOperatorState.fromPartial({
          name: "dns",
          annotationKeys: platform,
          versions: [{ name: "operator", version: "4.1.0" }],
          conditions: [...baseOpConds, stateCond("Progressing", "True", "2024-01-01T00:25:00Z", { reason: "Rolling", message: "a\nb" })],
        }),
      ],
      pools: ["master", "worker"].map((p) =>
        PoolState.fromPartial({ name: p, nodeSelectorPresent: true, nodeSelector: { matchLabels: role(p) }, targetConfig: `rendered-${p}-new` }),
      ),
      nodes: [
        NodeState.fromPartial({ name: "master-0", labels: role("master"), mco: { currentConfig: "rendered-master-new", desiredConfig: "rendered-master-new", desiredConfigPresent: true, state: "Done" }, conditions: [stateCond("Ready", "True")] }),
        NodeState.fromPartial({
          name: "worker-0",
          labels: role("worker"),
          unschedulable: true,
          mco: { currentConfig: "rendered-worker-old", desiredConfig: "rendered-worker-new", desiredConfigPresent: true, state: "Working", desiredDrain: "drain-x", lastAppliedDrain: "uncordon-y" },
          conditions: [stateCond("Ready", "True")],
        }),
        NodeState.fromPartial({
          name: "worker-1",
          labels: role("worker"),
          mco: { currentConfig: "rendered-worker-old", desiredConfig: "rendered-worker-old", desiredConfigPresent: true, state: "Done" },
          conditions: [stateCond("Ready", "False", "2024-01-01T00:10:00Z", { message: "down" })],
        }),
      ],
      machineConfigs: [
        MachineConfigState.fromPartial({ name: "rendered-master-new", releaseImageVersion: "4.2.0" }),
        MachineConfigState.fromPartial({ name: "rendered-worker-new", releaseImageVersion: "4.2.0" }),
        MachineConfigState.fromPartial({ name: "rendered-worker-old", releaseImageVersion: "4.1.0" }),
      ],
      mcoImage: "",
    });
    const opts = { now: parseTime("2024-01-01T00:30:00Z"), wallClock: parseTime("2024-01-01T00:30:00Z") };
    const expected = render(evaluate(kube, opts), "all");
    expect(expected).toContain("Worker Pool Nodes: worker");
    expect(expected).toContain("Node worker-1 is not ready");
    expect(render(evaluate(fromState, opts), "all")).toBe(expected);
  });
});

describe("ANNOTATION_SOURCES", () => {
  it("names exactly the MachineConfigDaemonState fields each annotation of nodeFromState is built from", () => {
    const base = { currentConfig: "", desiredConfig: "", desiredConfigPresent: false, state: "", reason: "", desiredDrain: "", lastAppliedDrain: "", postConfigAction: "", currentImage: "", currentImagePresent: false, desiredImage: "", desiredImagePresent: false, controlPlaneTopology: "" };
    const annotationsOf = (mco: typeof base) => nodeFromState(NodeState.fromPartial({ name: "n", mco })).metadata.annotations ?? {};
    const empty = annotationsOf(base);
    for (const field of Object.keys(base) as Array<keyof typeof base>) {
      const changed = annotationsOf({ ...base, [field]: typeof base[field] === "boolean" ? true : "v" });
      const touched = Object.keys({ ...empty, ...changed }).filter((k) => empty[k] !== changed[k]);
      const declared = Object.entries(ANNOTATION_SOURCES).filter(([, fields]) => fields.includes(field)).map(([k]) => k);
      expect(touched.sort(), field).toEqual(declared.sort());
    }
  });
});
