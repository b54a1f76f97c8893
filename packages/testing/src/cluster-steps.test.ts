import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyClusterStep, checkClusterSteps, clusterSteps, loadWorld, type ClusterModel, type ClusterSink, type ClusterWorld } from "./cluster-steps.js";
import { RULE_VOCABULARY } from "./rule-vocabulary.js";

interface Obj {
  name: string;
  labels: Record<string, string>;
  state: string;
  version?: string;
}
type World = ClusterWorld<Obj, Obj, Obj, Obj>;
const obj = (name: string, state = "Done"): Obj => ({ name, labels: {}, state });
const template: Obj = { name: "t", labels: { a: "" }, state: "Done", version: "4.16.1" };
const MODEL: ClusterModel<Obj, Obj, Obj, Obj> = {
  pools: ["master", "worker"],
  vocabulary: { words: (k) => (k === "state" ? ["Done", "Working"] : ["x", "y"]), maps: new Set(["labels"]), mapKeys: ["a", "b"], dates: [] },
  templates: { node: template, pool: template, machineConfig: template, clusterVersion: template },
  node: (name, pool, i) => obj(name, i % 2 === 0 ? "Done" : "Working"),
  pool: (name) => obj(name),
};

function world(): World {
  return {
    cv: obj("version"),
    pools: new Map(MODEL.pools.map((p) => [p, obj(p)])),
    mcs: new Map([["rendered-1", obj("rendered-1")]]),
    nodes: new Map(["n1", "n2", "n3"].map((n) => [n, obj(n)])),
  };
}

/** A sink that keeps its own world, as an optimised path keeps its own state. */
function mirror(): { w: World; sink: ClusterSink<Obj, Obj, Obj, Obj> } {
  const w: World = { cv: obj("none"), pools: new Map(), mcs: new Map(), nodes: new Map() };
  const set = <T>(m: Map<string, T>, name: string, v: T | undefined) => (v === undefined ? m.delete(name) : m.set(name, v));
  return {
    w,
    sink: {
      node: (n, v) => set(w.nodes, n, v),
      pool: (n, v) => set(w.pools, n, v),
      machineConfig: (n, v) => set(w.mcs, n, v),
      clusterVersion: (v) => (w.cv = v),
    },
  };
}

describe("cluster steps", () => {
  it("apply every step to the world and to the sink alike", () => {
    fc.assert(
      fc.property(clusterSteps(["node", "addNode", "deleteNode", "pool", "machineConfig", "clusterVersion"]), (steps) => {
        const w = world();
        const m = mirror();
        loadWorld(w, m.sink);
        for (const s of steps) {
          applyClusterStep(w, m.sink, s, MODEL);
          expect(m.w).toEqual(w);
        }
      }),
      { numRuns: 100 },
    );
  });

  it("change fields, so a run of steps is seldom a no-op", () => {
    const w = world();
    const before = structuredClone(w);
    for (let i = 0; i < 20; i++) applyClusterStep(w, mirror().sink, { kind: "node", target: i, where: i * 7, how: i * 3, what: i }, MODEL);
    expect(w.nodes).not.toEqual(before.nodes);
  });

  it("checkClusterSteps compares after the load and after every step, and fails on a difference", () => {
    const seen: string[][] = [];
    checkClusterSteps({
      kinds: ["node", "addNode", "deleteNode"],
      model: MODEL,
      numRuns: 20,
      variant: fc.boolean(),
      start: (v) => {
        const m = mirror();
        const when: string[] = [typeof v];
        seen.push(when);
        const run = { world: world(), sink: m.sink, compare: (w: string) => (when.push(w), expect(m.w).toEqual(run.world)) };
        return run;
      },
    });
    expect(seen.length).toBeGreaterThanOrEqual(20);
    for (const when of seen) expect(when.slice(0, 3)).toEqual(["boolean", "load", "step 0"]);
    // An optimised path that drops deletions is caught.
    expect(() =>
      checkClusterSteps({
        kinds: ["deleteNode"],
        model: MODEL,
        numRuns: 20,
        start: () => {
          const m = mirror();
          const run = { world: world(), sink: { ...m.sink, node: (n: string, v: Obj | undefined) => v && m.sink.node(n, v) }, compare: () => expect(m.w).toEqual(run.world) };
          return run;
        },
      }),
    ).toThrow();
  });

  it("the rule vocabulary gives every field at least two values, so a change is never a no-op", () => {
    for (const key of ["currentConfig", "state", "status", "operator", "type", "version", "image", "desiredDrain", "controlPlaneTopology", "anything"]) {
      expect(new Set(RULE_VOCABULARY.words(key)).size, key).toBeGreaterThanOrEqual(2);
    }
    expect(RULE_VOCABULARY.mapKeys.length).toBeGreaterThanOrEqual(2);
  });
});
