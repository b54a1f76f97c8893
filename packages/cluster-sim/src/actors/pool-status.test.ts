import { describe, expect, it } from "vitest";
import { A, MCD } from "../constants.js";
import type { KubeObject } from "../types.js";
import { assignPools, computePoolStatus, planPool, poolCounters } from "./pool-status.js";

function node(name: string, o: { cur?: string; des?: string; state?: string; reason?: string; ready?: boolean; unsched?: boolean; zone?: string; created?: string; labels?: Record<string, string> } = {}): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      creationTimestamp: o.created ?? "2024-01-01T00:00:00Z",
      labels: { "node-role.kubernetes.io/worker": "", ...(o.zone ? { "topology.kubernetes.io/zone": o.zone } : {}), ...o.labels },
      annotations: { [A.currentConfig]: o.cur ?? "old", [A.desiredConfig]: o.des ?? o.cur ?? "old", [A.state]: o.state ?? MCD.done, [A.reason]: o.reason ?? "" },
    },
    spec: o.unsched ? { unschedulable: true } : {},
    status: { conditions: [{ type: "Ready", status: o.ready === false ? "False" : "True" }] },
  };
}

const pool = (o: { target?: string; max?: number | string; paused?: boolean; name?: string } = {}): KubeObject => ({
  apiVersion: "machineconfiguration.openshift.io/v1",
  kind: "MachineConfigPool",
  metadata: { name: o.name ?? "worker", generation: 2 },
  spec: { configuration: { name: o.target ?? "new" }, nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${o.name ?? "worker"}`]: "" } }, paused: o.paused ?? false, maxUnavailable: o.max },
});

describe("pool counters (§1.2)", () => {
  it("counts updated, ready, unavailable and degraded nodes", () => {
    const nodes = [
      node("a", { cur: "new" }),
      node("b", { cur: "new", unsched: true }),
      node("c", { cur: "old", des: "new", state: MCD.working }),
      node("d", { cur: "old", des: "new", state: MCD.degraded, reason: "boom" }),
      node("e"),
    ];
    expect(poolCounters(nodes, "new")).toEqual({ machineCount: 5, updatedMachineCount: 2, readyMachineCount: 1, unavailableMachineCount: 2, degradedMachineCount: 1 });
  });
});

describe("pool status (§1.3–1.4)", () => {
  it("keeps status.configuration until every node is updated, then reports Updated", () => {
    const p = { ...pool(), status: { configuration: { name: "old" } } };
    const mid = computePoolStatus(p, [node("a", { cur: "new" }), node("b", { cur: "old", des: "new", state: MCD.working })], "T");
    expect(mid.configuration).toEqual({ name: "old" });
    const conds = mid.conditions as Array<{ type: string; status: string; message: string }>;
    expect(conds.find((c) => c.type === "Updating")).toMatchObject({ status: "True", message: "All nodes are updating to MachineConfig new" });
    const done = computePoolStatus(p, [node("a", { cur: "new" }), node("b", { cur: "new" })], "T");
    expect(done.configuration).toEqual({ name: "new" });
    expect((done.conditions as Array<{ type: string; status: string; message: string }>).find((c) => c.type === "Updated")).toMatchObject({ status: "True", message: "All nodes are updated with MachineConfig new" });
  });

  it("reports paused pools and degraded nodes with Go-quoted reasons", () => {
    const st = computePoolStatus(pool({ paused: true }), [node("a"), node("b", { des: "new", state: MCD.degraded, reason: 'failed "x"' })], "T");
    const c = (t: string) => (st.conditions as Array<Record<string, string>>).find((x) => x.type === t)!;
    expect(c("Updating")).toMatchObject({ status: "False", message: "Pool is paused; will not update to MachineConfig new" });
    expect(c("NodeDegraded")).toMatchObject({ status: "True", reason: "1 nodes are reporting degraded status on sync", message: 'Node b is reporting: "failed \\"x\\""' });
    expect(c("Degraded").status).toBe("True");
  });
});

describe("node controller plan (§1.6)", () => {
  it("hands out at most maxUnavailable minus unavailable nodes, zone then age order", () => {
    const nodes = [
      node("z-old", { zone: "b", created: "2024-01-01T00:00:00Z" }),
      node("a-new", { zone: "a", created: "2024-02-01T00:00:00Z" }),
      node("a-old", { zone: "a", created: "2024-01-01T00:00:00Z" }),
      node("nozone", {}),
      node("busy", { cur: "old", des: "new", state: MCD.working }),
    ];
    const { capacity, candidates } = planPool(pool({ max: 3 }), nodes);
    expect(capacity).toBe(2);
    expect(candidates.map((n) => n.metadata.name)).toEqual(["a-old", "a-new", "z-old", "nozone"]);
  });

  it("rounds percentages down with a minimum of 1, and failing nodes on the target use capacity", () => {
    const nodes = Array.from({ length: 9 }, (_, i) => node(`n${i}`));
    expect(planPool(pool({ max: "10%" }), nodes).capacity).toBe(1);
    expect(planPool(pool({ max: "25%" }), nodes).capacity).toBe(2);
    nodes.push(node("bad", { des: "new", state: MCD.degraded }));
    expect(planPool(pool({ max: "25%" }), nodes).capacity).toBe(1);
  });

  it("does nothing for a paused pool", () => {
    expect(planPool(pool({ paused: true }), [node("a")])).toEqual({ capacity: 0, candidates: [] });
  });
});

describe("pool assignment", () => {
  it("puts a node with worker and custom roles in the custom pool", () => {
    const pools = [pool({ name: "master" }), pool({ name: "worker" }), pool({ name: "infra" })];
    const m = assignPools(pools, [node("w"), node("i", { labels: { "node-role.kubernetes.io/infra": "" } })]);
    expect(m.get("worker")!.map((n) => n.metadata.name)).toEqual(["w"]);
    expect(m.get("infra")!.map((n) => n.metadata.name)).toEqual(["i"]);
  });
});
