import { NodeState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { isDisruptedWithoutLease } from "./disrupted.js";
import { node, pool } from "./fixtures.js";
import { leaseNodeOf } from "./lease-node.js";
import { primaryPool } from "./pools.js";

const cond = (type: string, status: string) => ({ type, status, reason: "Why", message: "a long message nobody here reads", lastTransitionTime: new Date(1) });

describe("leaseNodeOf", () => {
  const nodes: Array<[string, NodeState]> = [
    ["ready", node("a")],
    ["not ready", node("b", { ready: false })],
    ["cordoned", node("c", { unschedulable: true })],
    ["in a custom pool", node("d", { pool: "infra", labels: { zone: "z1" } })],
    ["being deleted", { ...node("e"), deletionTime: new Date(5) }],
    ["without conditions", { ...node("f"), conditions: [] }],
    ["Ready Unknown among others", { ...node("g"), conditions: [cond("DiskPressure", "True"), cond("Ready", "Unknown"), cond("MemoryPressure", "False")] }],
    ["Ready True among others", { ...node("h"), conditions: [cond("DiskPressure", "True"), cond("Ready", "True")] }],
  ];
  const pools = [pool("master"), pool("worker"), pool("infra")];

  it.each(nodes)("judges a node %s as the whole NodeState would be judged", (_name, n) => {
    const p = leaseNodeOf(n);
    expect(isDisruptedWithoutLease(p)).toBe(isDisruptedWithoutLease(n));
    expect(primaryPool(p, pools)?.name).toBe(primaryPool(n, pools)?.name);
    expect({ name: p.name, uid: p.uid, labels: p.labels, unschedulable: p.unschedulable, deletionTime: p.deletionTime }).toEqual({
      name: n.name,
      uid: n.uid,
      labels: n.labels,
      unschedulable: n.unschedulable,
      deletionTime: n.deletionTime,
    });
  });

  it("keeps only the Ready condition's status, so reasons, messages and other conditions change nothing", () => {
    const a = leaseNodeOf({ ...node("x"), conditions: [cond("DiskPressure", "False"), cond("Ready", "False")] });
    const b = leaseNodeOf({ ...node("x"), conditions: [{ ...cond("Ready", "False"), message: "other", lastTransitionTime: new Date(2) }] });
    expect(a).toEqual(b);
    expect(a.conditions).toEqual([{ type: "Ready", status: "False" }]);
    expect(leaseNodeOf(NodeState.fromPartial({ name: "y" })).conditions).toEqual([]);
  });
});
