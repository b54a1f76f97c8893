import { describe, expect, it } from "vitest";
import { parseDetails } from "./details.js";
import { StatusError } from "./errors.js";
import { evaluate } from "./evaluate.js";
import { fixtureNow } from "./fixture-now.js";
import { render } from "./render.js";
import { clusterVersion, cond, mc, node, operator, pool } from "./testing/builders.js";
import type { StatusInputs } from "./types.js";
import { parseTime } from "./time.js";

const history = [{ version: "4.2.0", state: "Partial", image: "b", startedTime: "2024-01-01T00:00:00Z" }, { version: "4.1.0", state: "Completed", image: "a", startedTime: "2023-01-01T00:00:00Z", completionTime: "2023-01-01T01:00:00Z" }];
const roles = (r: string) => ({ [`node-role.kubernetes.io/${r}`]: "" });

function inputs(o: Partial<StatusInputs> = {}): StatusInputs {
  return {
    clusterVersion: clusterVersion(history),
    clusterOperators: [operator("etcd", { version: "4.2.0" }), operator("dns", { version: "4.1.0" })],
    pools: [pool("master"), pool("worker")],
    nodes: [
      node("master-0", { labels: roles("master"), current: "rendered-master-new", desired: "rendered-master-new", state: "Done" }),
      node("worker-0", { current: "rendered-worker-old", desired: "rendered-worker-old", state: "Done" }),
    ],
    machineConfigs: [mc("rendered-master-new", "4.2.0"), mc("rendered-worker-new", "4.2.0"), mc("rendered-worker-old", "4.1.0")],
    mcoImage: "",
    ...o,
  };
}
const at = { now: parseTime("2024-01-01T00:30:00Z"), wallClock: parseTime("2024-01-01T00:30:00Z") };

describe("evaluate: fatal errors (spec §3.3)", () => {
  const fail = (i: StatusInputs) => {
    try {
      evaluate(i, at);
    } catch (err) {
      return err;
    }
    return undefined;
  };
  it("in order: no ClusterVersion, no operators, no Progressing", () => {
    const e1 = fail(inputs({ clusterVersion: undefined, clusterOperators: [] }));
    expect(e1).toBeInstanceOf(StatusError);
    expect((e1 as StatusError).message).toBe(
      "no cluster version information available - you must be connected to an OpenShift version 4 server to fetch the current version",
    );
    expect((fail(inputs({ clusterOperators: [] })) as StatusError).message).toBe(
      "no cluster operator information available - you must be connected to an OpenShift version 4 server",
    );
    expect((fail(inputs({ clusterVersion: clusterVersion(history, { conditions: [cond("Failing", "False")] }) })) as StatusError).message).toBe(
      "no current Progressing info, see `oc describe clusterversion` for more details.\n",
    );
  });
  it("rejects unknown --details values", () => {
    expect(() => parseDetails("workers")).toThrow("invalid value for --details: workers (must be one of none, all, nodes, health, operators)");
    expect(parseDetails("operators")).toBe("operators");
  });
});

describe("evaluate: the not-updating gate (spec §4.3)", () => {
  const idle = clusterVersion(history, { progressing: "False" });
  it("applies when CV is not progressing and every non-empty worker pool is complete", () => {
    const done = node("worker-0", { current: "rendered-worker-new", desired: "rendered-worker-new", state: "Done" });
    const e = evaluate(inputs({ clusterVersion: idle, nodes: [done] }), at);
    expect(e.notUpdating).toBe(true);
    expect(render(e, "all")).toBe("The cluster is not updating.\n");
  });
  it("does not apply while a worker pool is outdated, whatever the master pool says", () => {
    expect(evaluate(inputs({ clusterVersion: idle }), at).notUpdating).toBe(false);
  });
});

describe("evaluate: pools", () => {
  it("summarises master separately and workers in pool-list order, counting per §7.1", () => {
    const e = evaluate(inputs({ pools: [pool("master"), pool("worker"), pool("infra")] }), at);
    expect(e.masterPool?.assessment).toBe("Completed");
    expect(e.workerPools.map((p) => [p.name, p.assessment, p.empty])).toEqual([
      ["worker", "Pending", false],
      ["infra", "Completed", true],
    ]);
    expect(e.workerPools[0]?.counters).toMatchObject({ total: 1, available: 1, outdated: 1, pending: 1 });
  });

  it("a paused pool with excluded nodes yields the paused-pool insight", () => {
    const e = evaluate(inputs({ pools: [pool("master"), pool("worker", { paused: true })] }), at);
    expect(e.health.insights.map((i) => i.summary)).toEqual(["Outdated nodes in a paused pool 'worker' will not be updated"]);
  });

  it("a seriously unavailable node that is not updating yields a Warning insight", () => {
    const sick = node("worker-0", {
      current: "rendered-worker-old",
      desired: "rendered-worker-old",
      state: "Done",
      conditions: [cond("Ready", "False", "2024-01-01T00:10:00Z", { message: "kubelet" })],
    });
    const e = evaluate(inputs({ nodes: [sick] }), at);
    expect(e.health.insights.map((i) => [i.level, i.summary, i.description])).toEqual([
      ["Warning", "Node worker-0 is not ready", 'Node has a Ready!=True condition with Reason "Not ready" and message "kubelet"'],
    ]);
    // Measured against the wall clock input: 3 minutes is still excused.
    const early = evaluate(inputs({ nodes: [sick] }), { now: at.now, wallClock: parseTime("2024-01-01T00:13:00Z") });
    expect(early.health.fallback).toBe(true);
  });
});

describe("fixtureNow (spec §3.4)", () => {
  it("is the latest CV/CO transition plus 368,975 ns", () => {
    const cv = clusterVersion(history, { conditions: [cond("Progressing", "True", "2024-01-01T00:00:00Z")] });
    const ops = [operator("a", { progressing: cond("Progressing", "True", "2024-01-01T00:05:00Z") })];
    expect(fixtureNow(cv, ops)).toBe(parseTime("2024-01-01T00:05:00Z") + 368_975n);
  });
});
