// The pure core without I/O: a plain-object view, a status writer and a fact store in memory.
import { MachineConfigState, type StateKindName } from "@lockstep/contracts";
import { silentLogger } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { clusterVersion, infrastructure, node, pool, settings } from "@lockstep/skew-rules/fixtures";
import { skewMachineConfigOf, skewNodeOf, type ClusterOperatorStatus } from "@lockstep/skew-rules";
import { REASON_HOT_LOOP, SkewEnforcer, NotSyncedError, type FactStore, type StatusWriteOutcome } from "./enforcer.js";
import type { DueFact, LastFacts } from "./facts.js";
import type { StateReader } from "./view.js";

const mc = (name: string, release: string) => MachineConfigState.fromPartial({ name, releaseImageVersion: release });

function view(): StateReader {
  const entries: Array<[StateKindName, { name: string }]> = [
    ["clusterVersion", clusterVersion("4.16.2", ["4.16.2:Completed", "4.15.9:Completed"])],
    ["infrastructure", infrastructure("OpenStack")],
    ["pool", pool("master", { current: "rendered-master-new", machines: 1 })],
    ["pool", pool("worker", { current: "rendered-worker-old", target: "rendered-worker-new", paused: true, machines: 1, updated: 0 })],
    ["machineConfig", skewMachineConfigOf(mc("rendered-master-new", "4.16.2"))],
    ["machineConfig", skewMachineConfigOf(mc("rendered-worker-old", "4.15.9"))],
    ["machineConfig", skewMachineConfigOf(mc("rendered-worker-new", "4.16.2"))],
  ];
  return {
    get: (kind, name) => entries.find(([k, v]) => k === kind && v.name === name)?.[1] as never,
    list: (kind) => entries.filter(([k]) => k === kind).map(([, v]) => v) as never,
  };
}

class MemoryFacts implements FactStore {
  last: LastFacts = {};
  readonly published: DueFact[] = [];
  async refresh(): Promise<LastFacts> {
    return this.last;
  }
  async publish(fact: DueFact): Promise<boolean> {
    this.published.push(fact);
    return true;
  }
}

function enforcer(outcome: (desired: ClusterOperatorStatus) => StatusWriteOutcome, staleness?: () => string | undefined) {
  const written: ClusterOperatorStatus[] = [];
  let requeued = 0;
  const e = new SkewEnforcer({
    view: { settings: settings(), bootImagesNamespace: "openshift-machine-config-operator", bootImagesName: "coreos-bootimages" },
    writer: {
      converge: async (desired) => {
        const status = desired([]);
        written.push(status);
        return outcome(status);
      },
    },
    logger: silentLogger(),
    namespace: "lockstep",
    operatorVersion: "0.1.0-test",
    ...(staleness ? { staleness } : {}),
    requeue: () => requeued++,
    now: () => new Date("2026-01-01T00:00:00Z"),
  });
  const state = view();
  e.beginLoad();
  for (const n of [node("m1", "master", "rendered-master-new"), node("w1", "worker", "rendered-worker-old")]) {
    e.noteChange({ kind: "node", name: n.name, op: "put", value: skewNodeOf(n) }, () => state.list("pool"));
  }
  e.noteChange({ kind: "pool", name: "worker", op: "put" }, () => state.list("pool"));
  return { e, state, written, requeued: () => requeued };
}

const upgradeable = (s: ClusterOperatorStatus | undefined) => s?.conditions.find((c) => c.type === "Upgradeable");
const written = (status: ClusterOperatorStatus): StatusWriteOutcome => ({ result: "written", observed: { relatedObjects: status.relatedObjects } });

describe("SkewEnforcer (the core)", () => {
  it("answers NotSyncedError and reconciles nothing before the view is synced", async () => {
    const { e, written: w } = enforcer(written);
    expect(() => e.evaluate()).toThrow(NotSyncedError);
    await e.reconcile();
    expect(w).toEqual([]);
  });

  it("writes the verdict of the rules and publishes the facts that became due", async () => {
    const { e, state, written: w } = enforcer(written);
    const facts = new MemoryFacts();
    e.markSynced(state, facts);
    expect(await e.reconcile()).toEqual({ requeueAfter: 600_000 });
    expect(upgradeable(w[0])).toMatchObject({ status: "False", reason: "PausedPoolLagging" });
    expect(facts.published.map((f) => f.kind)).toEqual(["skewEvaluated", "upgradeableChanged"]);
  });

  it("on a stale view writes Upgradeable=False StateStale and publishes no fact", async () => {
    const { e, state, written: w } = enforcer(written, () => "the watcher has not been heard from since 2026-01-01T00:00:00Z");
    const facts = new MemoryFacts();
    e.markSynced(state, facts);
    await e.reconcile();
    expect(upgradeable(w[0])).toMatchObject({ status: "False", reason: "StateStale" });
    expect(facts.published).toEqual([]);
  });

  it("reports a refused (hot-loop) write as Degraded on the next reconcile, asked for once", async () => {
    let refuse = true;
    const { e, state, written: w, requeued } = enforcer((s) => (refuse ? { result: "refused", error: { message: "written 3 times", attempts: 3 } } : written(s)));
    e.markSynced(state, new MemoryFacts());
    await e.reconcile();
    expect(requeued()).toBe(1);
    refuse = false;
    await e.reconcile();
    expect(w[1]?.conditions.find((c) => c.type === "Degraded")).toMatchObject({ status: "True", reason: REASON_HOT_LOOP });
  });

  it("schedules an evaluation for the kinds the rules read and for ClusterOperator lockstep only", () => {
    const { e, state } = enforcer(written);
    const pools = () => state.list("pool");
    expect(e.noteChange({ kind: "clusterOperator", name: "lockstep", op: "put" }, pools)).toBe(true);
    expect(e.noteChange({ kind: "clusterOperator", name: "dns", op: "put" }, pools)).toBe(false);
    expect(e.noteChange({ kind: "lease", name: "l1", op: "put" }, pools)).toBe(false);
    expect(e.noteChange({ kind: "node", name: "w1", op: "delete" }, pools)).toBe(true);
  });
});
