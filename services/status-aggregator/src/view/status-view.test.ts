import {
  ClusterOperatorState,
  ClusterVersionState,
  MachineConfigState,
  NodeState,
  PoolState,
} from "@lockstep/contracts";
import { evaluate, inputsFromState, parseTime, render } from "@lockstep/insights";
import { describe, expect, it } from "vitest";
import { StatusView } from "./status-view.js";

const d = (s: string) => new Date(s);
const NOW = parseTime("2024-03-01T12:00:00Z");
const role = (r: string) => ({ [`node-role.kubernetes.io/${r}`]: "" });

interface World {
  cv: ClusterVersionState;
  operators: ClusterOperatorState[];
  pools: PoolState[];
  mcs: MachineConfigState[];
  nodes: Map<string, NodeState>;
}

function pool(name: string, selector: Record<string, string>, extra: Partial<PoolState> = {}): PoolState {
  return PoolState.fromPartial({ name, nodeSelectorPresent: true, nodeSelector: { matchLabels: selector }, targetConfig: `rendered-${name}-new`, ...extra });
}

function operator(name: string, version: string, progressing = "False"): ClusterOperatorState {
  return ClusterOperatorState.fromPartial({
    name,
    annotationKeys: ["include.release.openshift.io/self-managed-high-availability"],
    versions: [{ name: "operator", version }],
    conditions: [
      { type: "Available", status: "True", lastTransitionTime: d("2024-03-01T11:00:00Z") },
      { type: "Degraded", status: "False", lastTransitionTime: d("2024-03-01T11:00:00Z") },
      { type: "Progressing", status: progressing, reason: "Rolling", message: "rolling out", lastTransitionTime: d("2024-03-01T11:30:00Z") },
    ],
  });
}

type NodeShape = "updated" | "pending" | "working" | "rebooting" | "draining" | "degraded" | "notready";

function node(name: string, poolRole: string, shape: NodeShape): NodeState {
  const oldCfg = `rendered-${poolRole}-old`;
  const newCfg = `rendered-${poolRole}-new`;
  const mco = { currentConfig: oldCfg, desiredConfig: newCfg, desiredConfigPresent: true, state: "Working", desiredDrain: "uncordon-a", lastAppliedDrain: "uncordon-a", reason: "" };
  const conditions = [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ok", lastTransitionTime: d("2024-03-01T10:00:00Z") }];
  let unschedulable = false;
  switch (shape) {
    case "updated":
      Object.assign(mco, { currentConfig: newCfg, state: "Done" });
      break;
    case "pending":
      Object.assign(mco, { desiredConfig: oldCfg, state: "Done" });
      break;
    case "working":
      break;
    case "rebooting":
      mco.state = "Rebooting";
      break;
    case "draining":
      Object.assign(mco, { desiredDrain: "drain-b", lastAppliedDrain: "uncordon-a" });
      unschedulable = true;
      break;
    case "degraded":
      Object.assign(mco, { state: "Degraded", reason: `failed to drain node ${name}: PDB` });
      break;
    case "notready":
      Object.assign(mco, { desiredConfig: oldCfg, state: "Done" });
      conditions[0] = { type: "Ready", status: "False", reason: "KubeletNotReady", message: "down", lastTransitionTime: d("2024-03-01T11:00:00Z") };
      break;
  }
  return NodeState.fromPartial({ name, labels: role(poolRole), roles: [poolRole], mco, unschedulable, conditions });
}

const SHAPES: NodeShape[] = ["updated", "pending", "working", "rebooting", "draining", "degraded", "notready"];

function world(): World {
  const nodes = new Map<string, NodeState>();
  for (let i = 0; i < 3; i++) nodes.set(`master-${i}`, node(`master-${i}`, "master", "updated"));
  for (let i = 0; i < 21; i++) nodes.set(`worker-${String(i).padStart(2, "0")}`, node(`worker-${String(i).padStart(2, "0")}`, "worker", SHAPES[i % SHAPES.length]!));
  for (let i = 0; i < 4; i++) nodes.set(`infra-${i}`, node(`infra-${i}`, "infra", i === 0 ? "working" : "pending"));
  const mcs: MachineConfigState[] = [];
  for (const p of ["master", "worker", "infra"]) {
    mcs.push(MachineConfigState.fromPartial({ name: `rendered-${p}-old`, releaseImageVersion: "4.15.3" }));
    mcs.push(MachineConfigState.fromPartial({ name: `rendered-${p}-new`, releaseImageVersion: "4.16.1" }));
  }
  return {
    cv: ClusterVersionState.fromPartial({
      name: "version",
      conditions: [
        { type: "Failing", status: "False", lastTransitionTime: d("2024-03-01T10:00:00Z") },
        { type: "Progressing", status: "True", message: "Working towards 4.16.1", lastTransitionTime: d("2024-03-01T10:00:00Z") },
      ],
      history: [
        { state: "Partial", version: "4.16.1", image: "img-b", startedTime: d("2024-03-01T10:00:00Z") },
        { state: "Completed", version: "4.15.3", image: "img-a", startedTime: d("2024-01-01T10:00:00Z"), completionTime: d("2024-01-01T11:00:00Z") },
      ],
    }),
    operators: [operator("etcd", "4.16.1"), operator("dns", "4.15.3", "True"), operator("kube-apiserver", "4.16.1")],
    pools: [pool("master", role("master")), pool("worker", role("worker")), pool("infra", role("infra"))],
    mcs,
    nodes,
  };
}

function load(w: World): StatusView {
  const v = new StatusView();
  v.setClusterVersion(w.cv);
  for (const o of w.operators) v.setClusterOperator(o.name, o);
  for (const p of w.pools) v.setPool(p.name, p);
  for (const m of w.mcs) v.setMachineConfig(m.name, m);
  for (const [n, s] of w.nodes) v.setNode(n, s);
  v.flush(NOW);
  return v;
}

const byName = <T extends { name: string }>(xs: Iterable<T>): T[] => [...xs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** The offline rules applied to the same objects, in API (name) order. */
function offline(w: World, details: "none" | "all"): string {
  const inputs = inputsFromState({
    clusterVersion: w.cv,
    clusterOperators: byName(w.operators),
    pools: byName(w.pools),
    nodes: byName(w.nodes.values()),
    machineConfigs: byName(w.mcs),
    mcoImage: "",
  });
  return render(evaluate(inputs, { now: NOW, wallClock: NOW }), details);
}

const live = (v: StatusView, details: "none" | "all") => render(v.evaluation(NOW, NOW), details);

/** Small deterministic PRNG so the random walk is reproducible. */
function prng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe("StatusView", () => {
  it("renders exactly what evaluate() renders from the same objects", () => {
    const w = world();
    const v = load(w);
    expect(live(v, "all")).toBe(offline(w, "all"));
    expect(live(v, "none")).toBe(offline(w, "none"));
    expect(live(v, "all")).toContain("Worker Pool Nodes: infra");
  });

  it("stays equal to evaluate() through a random walk of node, pool, MachineConfig and ClusterVersion changes", () => {
    const w = world();
    const v = load(w);
    const rnd = prng(7);
    const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
    let removedPool: (typeof w.pools)[number] | undefined;
    for (let step = 0; step < 300; step++) {
      const r = rnd();
      if (r < 0.6) {
        const name = pick([...w.nodes.keys()]);
        const poolRole = pick(["master", "worker", "infra"]);
        const s = node(name, poolRole, pick(SHAPES));
        w.nodes.set(name, s);
        v.setNode(name, s);
      } else if (r < 0.68) {
        const name = `extra-${Math.floor(rnd() * 5)}`;
        if (w.nodes.has(name)) {
          w.nodes.delete(name);
          v.setNode(name, undefined);
        } else {
          const s = node(name, "worker", pick(SHAPES));
          w.nodes.set(name, s);
          v.setNode(name, s);
        }
      } else if (r < 0.8 && rnd() < 0.2) {
        // The infra pool goes away and comes back: its nodes leave and rejoin the view.
        const i = w.pools.findIndex((p) => p.name === "infra");
        if (i >= 0) {
          removedPool = w.pools[i]!;
          w.pools.splice(i, 1);
          v.setPool("infra", undefined);
        } else if (removedPool) {
          w.pools.push(removedPool);
          v.setPool("infra", removedPool);
        }
      } else if (r < 0.78) {
        const i = Math.floor(rnd() * w.pools.length);
        // Paused, target and status counters: only the first two are inputs of the node rows.
        const base = w.pools[i]!;
        const counters = { machineCount: 4, updatedMachineCount: Math.floor(rnd() * 5), readyMachineCount: 4, unavailableMachineCount: Math.floor(rnd() * 2), degradedMachineCount: 0 };
        const p = { ...base, paused: rnd() < 0.5, counters, targetConfig: rnd() < 0.8 ? `rendered-${base.name}-new` : `rendered-${base.name}-old` };
        if (p.name === "infra" && rnd() < 0.3) p.nodeSelector = { matchLabels: rnd() < 0.5 ? role("infra") : { nothing: "x" }, matchExpressions: [] };
        w.pools[i] = p;
        v.setPool(p.name, p);
      } else if (r < 0.88) {
        const i = Math.floor(rnd() * w.mcs.length);
        const m = { ...w.mcs[i]!, releaseImageVersion: pick(["4.15.3", "4.16.1"]) };
        w.mcs[i] = m;
        v.setMachineConfig(m.name, m);
      } else if (r < 0.94) {
        const cv = { ...w.cv, history: [{ ...w.cv.history[0]!, version: pick(["4.16.1", "4.15.3"]) }, ...w.cv.history.slice(1)] };
        w.cv = cv;
        v.setClusterVersion(cv);
      } else {
        const i = Math.floor(rnd() * w.operators.length);
        const o = operator(w.operators[i]!.name, pick(["4.15.3", "4.16.1"]), pick(["True", "False"]));
        w.operators[i] = o;
        v.setClusterOperator(o.name, o);
      }
      if (rnd() < 0.4) v.flush(NOW);
      expect(live(v, "all"), `step ${step}`).toBe(offline(w, "all"));
    }
    expect(live(v, "all")).toBe(offline(w, "all"));
    expect(live(v, "none")).toBe(offline(w, "none"));
  });

  it("recomputes only the changed node and its pool", () => {
    const w = world();
    const v = load(w);
    v.evaluation(NOW, NOW); // every summary read once
    const before = { ...v.stats };
    v.setNode("worker-01", node("worker-01", "worker", "updated"));
    const result = v.flush(NOW);
    expect(v.stats.nodeEvaluations - before.nodeEvaluations).toBe(1);
    expect(result.pools).toEqual(["worker"]);
    // The pool summary is recomputed when read, and only that pool's.
    expect(v.stats.poolSummaries - before.poolSummaries).toBe(0);
    v.evaluation(NOW, NOW);
    expect(v.stats.poolSummaries - before.poolSummaries).toBe(1);
    v.evaluation(NOW, NOW);
    expect(v.stats.poolSummaries - before.poolSummaries).toBe(1);
    expect(result.changed.map((c) => c.record.name)).toEqual(["worker-01"]);
    expect(result.transitions).toEqual([
      expect.objectContaining({ node: "worker-01", previousAssessment: "Outdated", previousPhase: "Pending", record: expect.objectContaining({ assessment: "Completed", phase: "Updated" }) }),
    ]);
  });

  it("coalesces repeated changes of one node into one evaluation and reports no transition for an unchanged row", () => {
    const v = load(world());
    const before = v.stats.nodeEvaluations;
    for (const shape of ["working", "rebooting", "working"] as const) v.setNode("worker-02", node("worker-02", "worker", shape));
    const result = v.flush(NOW);
    expect(v.stats.nodeEvaluations - before).toBe(1);
    expect(result.transitions).toEqual([]);
    expect(result.changed).toEqual([]);
  });

  it("re-evaluates only the nodes on a MachineConfig whose version changed", () => {
    const w = world();
    const v = load(w);
    const before = v.stats.nodeEvaluations;
    v.setMachineConfig("rendered-infra-old", MachineConfigState.fromPartial({ name: "rendered-infra-old", releaseImageVersion: "4.15.3" }));
    expect(v.pending).toBe(false);
    v.setMachineConfig("rendered-infra-old", MachineConfigState.fromPartial({ name: "rendered-infra-old", releaseImageVersion: "4.16.1" }));
    const result = v.flush(NOW);
    expect(v.stats.nodeEvaluations - before).toBe(4);
    expect(result.pools).toEqual(["infra"]);
  });

  it("re-evaluates a pool's nodes when it pauses, and reassigns nodes only when a selector changes", () => {
    const w = world();
    const v = load(w);
    let before = { ...v.stats };
    v.setPool("infra", pool("infra", role("infra"), { paused: true }));
    let result = v.flush(NOW);
    expect(v.stats.nodeEvaluations - before.nodeEvaluations).toBe(4);
    expect(v.stats.reassignments - before.reassignments).toBe(0);
    expect(result.transitions.map((t) => t.record.phase)).toEqual(["Paused", "Paused", "Paused"]);

    before = { ...v.stats };
    v.setPool("infra", pool("infra", { nothing: "x" }));
    result = v.flush(NOW);
    expect(v.stats.reassignments - before.reassignments).toBe(1);
    // infra nodes match no pool now (they carry no worker label): they leave the view; worker is untouched.
    expect(result.pools).toEqual(["infra"]);
    expect(v.poolSummary("infra")?.empty).toBe(true);
    expect(result.removed.sort()).toEqual(["infra-0", "infra-1", "infra-2", "infra-3"]);
  });

  it("re-summarises a pool without re-evaluating its nodes when only its status counters change", () => {
    const w = world();
    const v = load(w);
    v.evaluation(NOW, NOW);
    const before = { ...v.stats };
    const transitionsBefore = v.flush(NOW);
    expect(transitionsBefore.transitions).toEqual([]);
    v.setPool("infra", pool("infra", role("infra"), { counters: { machineCount: 4, updatedMachineCount: 3, readyMachineCount: 4, unavailableMachineCount: 1, degradedMachineCount: 0 } }), 900);
    const result = v.flush(NOW);
    expect(v.stats.nodeEvaluations - before.nodeEvaluations).toBe(0);
    expect(result.pools).toEqual(["infra"]);
    v.evaluation(NOW, NOW);
    expect(v.stats.poolSummaries - before.poolSummaries).toBe(1);
    // A later row change of an infra node is decided by the node, not by the counters-only snapshot.
    v.setNode("infra-0", node("infra-0", "infra", "updated"), 5);
    const later = v.flush(NOW);
    expect(later.transitions.map((t) => [t.node, t.inputsRevision])).toEqual([["infra-0", expect.any(Number)]]);
    expect(later.transitions[0]!.inputsRevision).toBeLessThan(900);
  });

  it("re-evaluates every node only when the ClusterVersion target changes", () => {
    const w = world();
    const v = load(w);
    const before = v.stats.nodeEvaluations;
    v.setClusterVersion({ ...w.cv, conditions: [...w.cv.conditions, { type: "Failing", status: "True", reason: "X", message: "m", lastTransitionTime: d("2024-03-01T11:50:00Z") }] });
    expect(v.pending).toBe(false);
    v.setClusterVersion({ ...w.cv, history: [{ ...w.cv.history[0]!, version: "4.16.2" }, ...w.cv.history.slice(1)] });
    v.flush(NOW);
    expect(v.stats.nodeEvaluations - before).toBe(w.nodes.size);
  });

  it("moves a relabelled node between pools and forgets deleted nodes", () => {
    const v = load(world());
    v.setNode("worker-03", node("worker-03", "infra", "pending"));
    v.setNode("worker-04", undefined);
    const result = v.flush(NOW);
    expect(result.pools.sort()).toEqual(["infra", "worker"]);
    expect(result.removed).toEqual(["worker-04"]);
    expect(v.nodeRecord("worker-03")?.record.pool).toBe("infra");
    expect(v.poolNodeNames("worker")).not.toContain("worker-03");
    expect(v.nodeRecord("worker-04")).toBeUndefined();
  });

  it("throws on a pool selector it cannot evaluate, as oc does, and places every node again once the pool is fixed", () => {
    const w = world();
    const v = load(w);
    const expected = live(v, "all");
    const broken = pool("infra", role("infra"), { nodeSelector: { matchLabels: {}, matchExpressions: [{ key: "x", operator: "Sometimes", values: [] }] } });
    v.setPool("infra", broken);
    expect(() => v.flush(NOW)).toThrow(/unsupported label selector operator "Sometimes"/);
    v.setPool("infra", pool("infra", role("infra")));
    v.flush(NOW);
    expect(live(v, "all")).toBe(expected);
  });

  it("throws the rules' errors when the cluster cannot be evaluated", () => {
    const v = new StatusView();
    expect(() => v.evaluation(NOW, NOW)).toThrow(/no cluster version information/);
    v.setClusterVersion(world().cv);
    expect(() => v.evaluation(NOW, NOW)).toThrow(/no cluster operator information/);
  });
});
