// The optimised path (the StateCache projections SKEW_PROJECTIONS, a put whose projection is
// unchanged dropped, and the NodeTally kept current from the changes that pass) against a plain
// full evaluation of the whole objects, step by step, while arbitrary fields of arbitrary nodes,
// pools, MachineConfigs and the ClusterVersion change. A field some rule reads but a projection
// leaves out shows up here as a difference in the evaluation, the report or its publication.
import { isDeepStrictEqual } from "node:util";
import { ClusterVersionState, MachineConfigState, NodeState, PoolState, type SkewReport, type StateKindName } from "@lockstep/contracts";
import { checkClusterSteps, RULE_VOCABULARY, type ClusterModel, type ClusterSink, type ClusterWorld } from "@lockstep/testing";
import { describe, expect, it } from "vitest";
import { evaluateSkew, NodeTally, skewReportChanged, toSkewReport, type SkewEvaluation } from "@lockstep/skew-rules";
import { FULL_CLUSTER_VERSION, FULL_MACHINE_CONFIG, FULL_NODE, FULL_POOL, renderedConfigs } from "@lockstep/contracts/fixtures";
import { cond, infrastructure, settings } from "@lockstep/skew-rules/fixtures";
import { SKEW_PROJECTIONS, skewInputs, type SkewStateOf, type StateReader } from "./view.js";

const d = (s: string) => new Date(s);
const POOLS = ["master", "worker", "infra"];

// ---- The world ---------------------------------------------------------------------------------

function node(name: string, role: string, i: number): NodeState {
  const shapes = [
    { currentConfig: `rendered-${role}-new`, desiredConfig: `rendered-${role}-new`, state: "Done" },
    { currentConfig: `rendered-${role}-old`, desiredConfig: `rendered-${role}-new`, state: "Working" },
    { currentConfig: `rendered-${role}-old`, desiredConfig: `rendered-${role}-old`, state: "Done" },
    { currentConfig: `rendered-${role}-old`, desiredConfig: `rendered-${role}-new`, state: "Degraded", reason: "failed to drain" },
  ];
  return NodeState.fromPartial({
    name,
    uid: `uid-${name}`,
    labels: { [`node-role.kubernetes.io/${role}`]: "" },
    roles: [role],
    mco: { desiredConfigPresent: true, ...shapes[i % shapes.length] },
    conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ok", lastTransitionTime: d("2024-03-01T10:00:00Z") }],
  });
}

const pool = (name: string) =>
  PoolState.fromPartial({
    name,
    nodeSelectorPresent: true,
    nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: "" } },
    targetConfig: `rendered-${name}-new`,
    currentConfig: `rendered-${name}-old`,
    counters: { machineCount: 3, updatedMachineCount: 1, readyMachineCount: 3, degradedMachineCount: 0 },
    conditions: [cond("Degraded", "False")],
  });

type World = ClusterWorld<NodeState, PoolState, MachineConfigState, ClusterVersionState>;

const MODEL: ClusterModel<NodeState, PoolState, MachineConfigState, ClusterVersionState> = {
  pools: POOLS,
  vocabulary: RULE_VOCABULARY,
  templates: { node: FULL_NODE, pool: FULL_POOL, machineConfig: FULL_MACHINE_CONFIG, clusterVersion: FULL_CLUSTER_VERSION },
  node,
  pool,
};

function world(): World {
  const nodes = new Map<string, NodeState>();
  for (let i = 0; i < 2; i++) nodes.set(`master-${i}`, node(`master-${i}`, "master", i));
  for (let i = 0; i < 5; i++) nodes.set(`worker-${i}`, node(`worker-${i}`, "worker", i));
  for (let i = 0; i < 2; i++) nodes.set(`infra-${i}`, node(`infra-${i}`, "infra", i + 2));
  const mcs = renderedConfigs(POOLS, "4.15.3", "4.16.1");
  const cv = ClusterVersionState.fromPartial({
    name: "version",
    desired: { version: "4.16.1", image: "img-b" },
    conditions: [cond("Progressing", "True")],
    history: [
      { state: "Partial", version: "4.16.1", image: "img-b", startedTime: d("2024-03-01T10:00:00Z") },
      { state: "Completed", version: "4.15.3", image: "img-a", startedTime: d("2024-01-01T10:00:00Z") },
    ],
  });
  return { cv, pools: new Map(POOLS.map((p) => [p, pool(p)])), mcs, nodes };
}

// ---- The two paths -----------------------------------------------------------------------------

const VIEW = { settings: settings(), bootImagesNamespace: "openshift-machine-config-operator", bootImagesName: "coreos-bootimages" };
const INFRASTRUCTURE = infrastructure("AWS");

/** What the enforcer has: a StateCache with SKEW_PROJECTIONS (a put with an unchanged projection never arrives) and its NodeTally. */
class Optimised implements StateReader {
  private readonly held = new Map<StateKindName, Map<string, unknown>>();
  readonly tally = new NodeTally();

  put(kind: StateKindName, name: string, value: unknown): void {
    let m = this.held.get(kind);
    if (!m) this.held.set(kind, (m = new Map()));
    if (value === undefined) {
      if (!m.delete(name)) return;
      if (kind === "node") this.tally.delete(name);
    } else {
      const project = (SKEW_PROJECTIONS as Partial<Record<StateKindName, (v: never) => unknown>>)[kind];
      const v = project ? project(value as never) : value;
      if (project && m.has(name) && isDeepStrictEqual(m.get(name), v)) return;
      m.set(name, v);
      if (kind === "node") this.tally.put(v as SkewStateOf<"node">);
    }
    if (kind === "pool") this.tally.setPools(this.list("pool"));
  }

  get<K extends StateKindName>(kind: K, name: string): SkewStateOf<K> | undefined {
    return this.held.get(kind)?.get(name) as SkewStateOf<K> | undefined;
  }

  list<K extends StateKindName>(kind: K): SkewStateOf<K>[] {
    return [...(this.held.get(kind)?.values() ?? [])] as SkewStateOf<K>[];
  }

  evaluate(): SkewEvaluation {
    return evaluateSkew(skewInputs(this, VIEW, this.tally.tally));
  }
}

/** The rules on the whole objects, nodes listed and tallied from scratch. */
function full(w: World): SkewEvaluation {
  return evaluateSkew({
    clusterVersion: w.cv,
    infrastructure: INFRASTRUCTURE,
    pools: [...w.pools.values()],
    nodes: [...w.nodes.values()],
    machineConfigs: new Map(w.mcs),
    bootImagePolicy: undefined,
    settings: VIEW.settings,
  });
}

/** The optimised path's side of the steps. */
function sink(o: Optimised): ClusterSink<NodeState, PoolState, MachineConfigState, ClusterVersionState> {
  return {
    node: (name, v) => o.put("node", name, v),
    pool: (name, v) => o.put("pool", name, v),
    machineConfig: (name, v) => o.put("machineConfig", name, v),
    clusterVersion: (v) => o.put("clusterVersion", "version", v),
  };
}

describe("the skew view against a full evaluation, under arbitrary field changes", () => {
  it("gives identical skew evaluations, reports and publications at every step", () => {
    checkClusterSteps({
      kinds: ["node", "node", "node", "node", "pool", "pool", "machineConfig", "clusterVersion", "addNode", "deleteNode"],
      model: MODEL,
      numRuns: 200,
      start: () => {
        const w = world();
        const o = new Optimised();
        o.put("infrastructure", "cluster", INFRASTRUCTURE);
        let published: { optimised: SkewReport | undefined; full: SkewReport | undefined } = { optimised: undefined, full: undefined };
        const compare = (when: string): void => {
          const [mine, theirs] = [o.evaluate(), full(w)];
          expect(mine, `evaluation, ${when}`).toEqual(theirs);
          const [a, b] = [toSkewReport(mine), toSkewReport(theirs)];
          expect(a, `report, ${when}`).toEqual(b);
          // skew.evaluated is published on change only: the same steps publish.
          expect(skewReportChanged(published.optimised, a), `published, ${when}`).toBe(skewReportChanged(published.full, b));
          published = { optimised: a, full: b };
        };
        return { world: w, sink: sink(o), compare };
      },
    });
  });
});
