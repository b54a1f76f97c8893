// The harness of the property tests that compare an optimised path (projections, incremental
// views, tallies) with a plain full evaluation: a small cluster (nodes, pools, MachineConfigs, the
// ClusterVersion), arbitrary steps over it (a field of an object changed, a node added or deleted,
// a pool gone or back), each applied to the world and to the optimised path alike, and
// checkClusterSteps, the one property every such test runs. What the objects look like is the
// test's (ClusterModel); which values their fields take is usually RULE_VOCABULARY; the shapes here
// are generic, so this package stays free of the contracts.
import fc from "fast-check";
import { changeField, type Change, type Vocabulary } from "./field-changes.js";

/** The cluster as the full evaluation sees it: whole objects, by name. */
export interface ClusterWorld<N, P, M, V> {
  cv: V;
  pools: Map<string, P>;
  mcs: Map<string, M>;
  nodes: Map<string, N>;
}

export type ClusterStepKind = "node" | "addNode" | "deleteNode" | "pool" | "machineConfig" | "clusterVersion";

/** One step: its kind, which object (`target`), and the field change (`where`, `how`, `what`). */
export interface ClusterStep extends Change {
  kind: ClusterStepKind;
  target: number;
}

/** What the objects are like; the templates are fully populated, so a change can fill in any part. */
export interface ClusterModel<N, P, M, V> {
  pools: readonly string[];
  vocabulary: Vocabulary;
  templates: { node: N; pool: P; machineConfig: M; clusterVersion: V };
  /** A node added by a step; `i` picks its shape. */
  node(name: string, pool: string, i: number): N;
  /** A pool that went away, back as at the start. */
  pool(name: string): P;
}

/** The optimised path: where each change goes (undefined: deleted). */
export interface ClusterSink<N, P, M, V> {
  node(name: string, value: N | undefined): void;
  pool(name: string, value: P | undefined): void;
  machineConfig(name: string, value: M): void;
  clusterVersion(value: V): void;
}

/**
 * Steps of the given kinds; a kind listed twice is drawn twice as often (field changes of nodes
 * are the common case, so tests list "node" several times).
 */
export function clusterSteps(kinds: readonly ClusterStepKind[], maxLength = 40): fc.Arbitrary<ClusterStep[]> {
  const step = fc.record({ kind: fc.constantFrom(...kinds), target: fc.nat(), where: fc.nat(), how: fc.nat(), what: fc.nat() });
  return fc.array(step, { minLength: 1, maxLength });
}

/** Every object of the world into the sink, as a cache's initial load would bring them. */
export function loadWorld<N, P extends { name: string }, M extends { name: string }, V>(w: ClusterWorld<N, P, M, V>, sink: ClusterSink<N, P, M, V>): void {
  sink.clusterVersion(w.cv);
  for (const p of w.pools.values()) sink.pool(p.name, p);
  for (const m of w.mcs.values()) sink.machineConfig(m.name, m);
  for (const [n, s] of w.nodes) sink.node(n, s);
}

/** Applies one step to the world and to the sink. */
export function applyClusterStep<N, P, M, V>(w: ClusterWorld<N, P, M, V>, sink: ClusterSink<N, P, M, V>, s: ClusterStep, model: ClusterModel<N, P, M, V>): void {
  const pick = <T>(xs: readonly T[]): T => xs[s.target % xs.length]!;
  const change = <T>(root: T, template: T): T => changeField(root, template, s, model.vocabulary);
  switch (s.kind) {
    case "node": {
      if (w.nodes.size === 0) return;
      const name = pick([...w.nodes.keys()]);
      const next = change(w.nodes.get(name)!, model.templates.node);
      w.nodes.set(name, next);
      sink.node(name, next);
      return;
    }
    case "addNode": {
      const name = `extra-${s.target % 3}`;
      const next = model.node(name, model.pools[s.how % model.pools.length]!, s.what);
      w.nodes.set(name, next);
      sink.node(name, next);
      return;
    }
    case "deleteNode": {
      if (w.nodes.size === 0) return;
      const name = pick([...w.nodes.keys()]);
      w.nodes.delete(name);
      sink.node(name, undefined);
      return;
    }
    case "pool": {
      const name = pick(model.pools);
      const before = w.pools.get(name);
      // A pool can also go away and come back.
      const next = before === undefined ? model.pool(name) : s.how % 17 === 0 ? undefined : change(before, model.templates.pool);
      if (next) w.pools.set(name, next);
      else w.pools.delete(name);
      sink.pool(name, next);
      return;
    }
    case "machineConfig": {
      if (w.mcs.size === 0) return;
      const name = pick([...w.mcs.keys()]);
      const next = change(w.mcs.get(name)!, model.templates.machineConfig);
      w.mcs.set(name, next);
      sink.machineConfig(name, next);
      return;
    }
    case "clusterVersion": {
      w.cv = change(w.cv, model.templates.clusterVersion);
      sink.clusterVersion(w.cv);
      return;
    }
  }
}

/** One run of checkClusterSteps: the world, the optimised path's sink, and the comparison of the two. */
export interface ClusterRun<N, P, M, V> {
  world: ClusterWorld<N, P, M, V>;
  sink: ClusterSink<N, P, M, V>;
  /** Asserts the optimised path agrees with a full evaluation of `world` (`when`: "load" or "step i", for the message). */
  compare(when: string): void;
}

export interface ClusterStepsProperty<N, P, M, V, T> {
  /** Step kinds, as for clusterSteps (repeat a kind to draw it more often). */
  kinds: readonly ClusterStepKind[];
  model: ClusterModel<N, P, M, V>;
  numRuns: number;
  /** A further arbitrary input of a run (a variant of the world), handed to `start`. */
  variant?: fc.Arbitrary<T>;
  /** A fresh run: the world, and the optimised path set up but not yet given the world. */
  start(variant: T): ClusterRun<N, P, M, V>;
}

/**
 * The property of every optimised-path test: after the world is loaded, and after each arbitrary
 * step, the optimised path agrees with a full evaluation (the run's `compare`).
 */
export function checkClusterSteps<N, P extends { name: string }, M extends { name: string }, V, T = undefined>(p: ClusterStepsProperty<N, P, M, V, T>): void {
  const variant = p.variant ?? (fc.constant(undefined) as unknown as fc.Arbitrary<T>);
  fc.assert(
    fc.property(variant, clusterSteps(p.kinds), (v, steps) => {
      const run = p.start(v);
      loadWorld(run.world, run.sink);
      run.compare("load");
      for (const [i, s] of steps.entries()) {
        applyClusterStep(run.world, run.sink, s, p.model);
        run.compare(`step ${i}`);
      }
    }),
    { numRuns: p.numRuns },
  );
}
