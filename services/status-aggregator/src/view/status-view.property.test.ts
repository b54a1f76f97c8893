// The optimised path (the node projection the state cache applies, dropping a put whose projection
// is unchanged, then StatusView's incremental re-evaluation keyed by what the rules read) against a
// plain full evaluation of the whole objects, step by step, while arbitrary fields of arbitrary
// nodes, pools, MachineConfigs and the ClusterVersion change. A field some rule reads but a
// projection or re-evaluation key leaves out shows up here as a difference.
import { isDeepStrictEqual } from "node:util";
import { ClusterOperatorState, ClusterVersionState, MachineConfigState, NodeState, PoolState } from "@lockstep/contracts";
import { FULL_CLUSTER_VERSION, FULL_MACHINE_CONFIG, FULL_NODE, FULL_POOL, renderedConfigs } from "@lockstep/contracts/fixtures";
import { evaluate, inputsFromState, type NodeRecord, parseTime, render } from "@lockstep/insights";
import fc from "fast-check";
import { checkClusterSteps, RULE_VOCABULARY, type ClusterModel, type ClusterSink, type ClusterWorld } from "@lockstep/testing";
import { describe, expect, it } from "vitest";
import { projectNode } from "./node-projection.js";
import { StatusView } from "./status-view.js";

const NOW = parseTime("2024-03-01T12:00:00Z");
const d = (s: string) => new Date(s);
const LAYERED = "machineconfiguration.openshift.io/layering-enabled";
const POOLS = ["master", "worker", "infra"];

// ---- The world ---------------------------------------------------------------------------------

const condition = (type: string, status: string, at = "2024-03-01T10:00:00Z") => ({ type, status, reason: `R${type}`, message: `${type} is ${status}`, lastTransitionTime: d(at) });

// The shared fully populated objects, with the conditions and layering these rules read.
const NODE_TEMPLATE = { ...FULL_NODE, conditions: [condition("Ready", "True")] };
const POOL_TEMPLATE = { ...FULL_POOL, labels: { [LAYERED]: "" }, conditions: [condition("Updating", "True")], layered: true };
const CV_TEMPLATE = { ...FULL_CLUSTER_VERSION, desiredUpdate: { version: "4.16.1", image: "img-b", force: false }, conditions: [condition("Progressing", "True")] };

/** Node shapes a rollout goes through, layered ones included (the images then matter). */
function node(name: string, role: string, i: number): NodeState {
  const oldCfg = `rendered-${role}-old`;
  const newCfg = `rendered-${role}-new`;
  const shapes: Array<Partial<NonNullable<NodeState["mco"]>>> = [
    { currentConfig: newCfg, state: "Done" },
    { currentConfig: oldCfg, state: "Working" },
    { currentConfig: oldCfg, state: "Rebooting", desiredDrain: "drain-1", lastAppliedDrain: "uncordon-1" },
    { currentConfig: oldCfg, state: "Degraded", reason: "failed to drain node: PDB" },
    { currentConfig: oldCfg, desiredConfig: oldCfg, state: "Done" },
    { currentConfig: newCfg, state: "Done", currentImage: "img-b", currentImagePresent: true, desiredImage: "img-b", desiredImagePresent: true },
    { currentConfig: oldCfg, state: "Working", currentImage: "img-a", currentImagePresent: true, desiredImage: "img-b", desiredImagePresent: true },
    { currentConfig: oldCfg, desiredConfig: "", desiredConfigPresent: true, state: "Done" },
    // Present but empty: the image check applies (and fails) only while the annotation is there.
    { currentConfig: newCfg, state: "Done", currentImage: "", currentImagePresent: true },
    { currentConfig: newCfg, state: "Done", desiredImage: "", desiredImagePresent: true },
  ];
  return NodeState.fromPartial({
    name,
    uid: `uid-${name}`,
    labels: { [`node-role.kubernetes.io/${role}`]: "" },
    roles: [role],
    mco: { desiredConfig: newCfg, desiredConfigPresent: true, desiredDrain: "uncordon-1", lastAppliedDrain: "uncordon-1", controlPlaneTopology: "HighlyAvailable", ...shapes[i % shapes.length] },
    conditions: [condition("DiskPressure", "False"), condition("MemoryPressure", "False"), condition("NetworkUnavailable", "False"), condition("Ready", i % 9 === 4 ? "False" : "True")],
    architecture: "amd64",
  });
}

const pool = (name: string) =>
  PoolState.fromPartial({ name, nodeSelectorPresent: true, nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: "" } }, targetConfig: `rendered-${name}-new`, currentConfig: `rendered-${name}-old` });

interface World extends ClusterWorld<NodeState, PoolState, MachineConfigState, ClusterVersionState> {
  operators: ClusterOperatorState[];
}

/** `migration`: the newest two history entries share a version (a multi-arch migration). */
function world(migration: boolean): World {
  const nodes = new Map<string, NodeState>();
  for (let i = 0; i < 2; i++) nodes.set(`master-${i}`, node(`master-${i}`, "master", i * 4));
  for (let i = 0; i < 10; i++) nodes.set(`worker-${i}`, node(`worker-${i}`, "worker", i));
  for (let i = 0; i < 3; i++) nodes.set(`infra-${i}`, node(`infra-${i}`, "infra", i + 5));
  const mcs = renderedConfigs(POOLS, "4.15.3", "4.16.1");
  const cv = ClusterVersionState.fromPartial({
    name: "version",
    desired: { version: "4.16.1", image: "img-b" },
    conditions: [condition("Failing", "False"), condition("Progressing", "True")],
    history: [
      { state: "Partial", version: "4.16.1", image: "img-b", startedTime: d("2024-03-01T10:00:00Z") },
      { state: "Completed", version: migration ? "4.16.1" : "4.15.3", image: "img-a", startedTime: d("2024-01-01T10:00:00Z"), completionTime: d("2024-01-01T11:00:00Z") },
    ],
  });
  const operators = ["dns", "etcd"].map((name) =>
    ClusterOperatorState.fromPartial({
      name,
      annotationKeys: ["include.release.openshift.io/self-managed-high-availability"],
      versions: [{ name: "operator", version: "4.16.1" }],
      conditions: [condition("Available", "True"), condition("Degraded", "False"), condition("Progressing", "False")],
    }),
  );
  const pools = new Map(POOLS.map((p) => [p, pool(p)]));
  // infra is layered: its nodes' images are judged against the pool's.
  pools.set("infra", { ...pool("infra"), layered: true, newestImageEquivalentConfig: "img-b" });
  return { cv, operators, pools, mcs, nodes };
}

// ---- The two paths -----------------------------------------------------------------------------

const byName = <T extends { name: string }>(xs: Iterable<T>): T[] => [...xs].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

/** render() of an evaluation, or the rules' error. */
function shown(f: () => Parameters<typeof render>[0]): string {
  try {
    return render(f(), "all");
  } catch (err) {
    return `error: ${(err as Error).message}`;
  }
}

/** What the aggregator has: projected nodes (a put with an unchanged projection never arrives) and the incremental view. */
class Optimised {
  readonly view = new StatusView();
  private readonly held = new Map<string, NodeState>();

  node(name: string, s: NodeState | undefined): void {
    if (!s) {
      this.held.delete(name);
      this.view.setNode(name, undefined);
      return;
    }
    const p = projectNode(s);
    const previous = this.held.get(name);
    if (previous && isDeepStrictEqual(previous, p)) return;
    this.held.set(name, p);
    this.view.setNode(name, p);
  }
}

/** Everything evaluated from scratch from the whole objects. */
function full(w: World): { shown: string; records: NodeRecord[] } {
  const fresh = new StatusView();
  fresh.setClusterVersion(w.cv);
  for (const p of w.pools.values()) fresh.setPool(p.name, p);
  for (const m of w.mcs.values()) fresh.setMachineConfig(m.name, m);
  for (const [n, s] of w.nodes) fresh.setNode(n, s);
  fresh.flush(NOW);
  const inputs = inputsFromState({
    clusterVersion: w.cv,
    clusterOperators: byName(w.operators),
    pools: byName(w.pools.values()),
    nodes: byName(w.nodes.values()),
    machineConfigs: byName(w.mcs.values()),
    mcoImage: "",
  });
  return { shown: shown(() => evaluate(inputs, { now: NOW, wallClock: NOW })), records: fresh.nodeRecords().map((r) => r.record) };
}

/** The events a step gives: rows changed, rows gone, ASSESSMENT/PHASE transitions. */
interface Events {
  changed: string[];
  removed: string[];
  transitions: string[];
}

function diff(before: readonly NodeRecord[], after: readonly NodeRecord[]): Events {
  const old = new Map(before.map((r) => [r.name, r]));
  const now = new Set(after.map((r) => r.name));
  const events: Events = { changed: [], removed: [...old.keys()].filter((n) => !now.has(n)).sort(), transitions: [] };
  for (const r of after) {
    const o = old.get(r.name);
    if (o && isDeepStrictEqual(o, r)) continue;
    events.changed.push(r.name);
    if (o && (o.assessment !== r.assessment || o.phase !== r.phase)) events.transitions.push(`${r.name} ${r.pool} ${o.assessment}/${o.phase} -> ${r.assessment}/${r.phase}`);
  }
  events.changed.sort();
  events.transitions.sort();
  return events;
}

const MODEL: ClusterModel<NodeState, PoolState, MachineConfigState, ClusterVersionState> = {
  pools: POOLS,
  vocabulary: RULE_VOCABULARY,
  templates: { node: NODE_TEMPLATE, pool: POOL_TEMPLATE, machineConfig: FULL_MACHINE_CONFIG, clusterVersion: CV_TEMPLATE },
  node,
  pool: (name) => world(false).pools.get(name)!,
};

/** The optimised path's side of the steps. */
function sink(o: Optimised): ClusterSink<NodeState, PoolState, MachineConfigState, ClusterVersionState> {
  return {
    node: (name, v) => o.node(name, v),
    pool: (name, v) => o.view.setPool(name, v),
    machineConfig: (name, v) => o.view.setMachineConfig(name, v),
    clusterVersion: (v) => o.view.setClusterVersion(v),
  };
}

function eventsOf(r: ReturnType<StatusView["flush"]>): Events {
  return {
    changed: r.changed.map((c) => c.record.name).sort(),
    removed: [...r.removed].sort(),
    transitions: r.transitions.map((t) => `${t.node} ${t.pool} ${t.previousAssessment}/${t.previousPhase} -> ${t.record.assessment}/${t.record.phase}`).sort(),
  };
}

describe("StatusView against a full evaluation, under arbitrary field changes", () => {
  it("gives identical insights, rows and events at every step", () => {
    checkClusterSteps({
      kinds: ["node", "node", "node", "node", "pool", "pool", "machineConfig", "clusterVersion", "clusterVersion", "addNode", "deleteNode"],
      model: MODEL,
      numRuns: 200,
      variant: fc.boolean(),
      start: (migration) => {
        const w = world(migration);
        const o = new Optimised();
        for (const op of w.operators) o.view.setClusterOperator(op.name, op);
        let expected: ReturnType<typeof full> | undefined;
        const compare = (when: string): void => {
          const events = eventsOf(o.view.flush(NOW));
          const next = full(w);
          // The load's events are the first rows, not a change.
          if (expected) expect(events, `events, ${when}`).toEqual(diff(expected.records, next.records));
          expect(o.view.nodeRecords().map((r) => r.record), `rows, ${when}`).toEqual(next.records);
          expect(shown(() => o.view.evaluation(NOW, NOW)), `insights, ${when}`).toBe(next.shown);
          expected = next;
        };
        return { world: w, sink: sink(o), compare };
      },
    });
  });
});
