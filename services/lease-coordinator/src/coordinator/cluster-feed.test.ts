import type { StateChange } from "@lockstep/bus";
import { stateKey, type StateKindName } from "@lockstep/contracts";
import { leaseNodeOf } from "@lockstep/lease-policy";
import { budget, node, pool, testPolicy } from "@lockstep/lease-policy/fixtures";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { silentLogger } from "@lockstep/runtime";
import { describe, expect, it } from "vitest";
import { LeaseIndex } from "../store/lease-index.js";
import { budgetStatusController } from "./budget-status-controller.js";
import { ClusterFeed } from "./cluster-feed.js";

let revision = 0;
const put = (kind: StateKindName, name: string, value: unknown, namespace?: string): StateChange => ({ key: stateKey(kind, name, namespace), parsed: { kind, name, namespace }, op: "put", value, revision: ++revision });

/** A feed knowing pools worker and infra, a budget on each, and one node in each. */
function feed(): ClusterFeed {
  const f = new ClusterFeed();
  for (const p of [pool("worker", "1"), pool("infra", "1")]) f.apply(put("pool", p.name, p));
  for (const b of [budget("workers", { pool: "worker" }), budget("infras", { pool: "infra" })]) f.apply(put("disruptionBudget", b.name, b));
  for (const n of [node("w1"), node("i1", { pool: "infra" })]) f.apply(put("node", n.name, leaseNodeOf(n)));
  return f;
}

describe("ClusterFeed", () => {
  it("applies node, pool and budget changes and tells the budgets the last one touched", () => {
    const f = feed();
    expect(f.tracker.nodes.map((n) => n.name).sort()).toEqual(["i1", "w1"]);
    const cordoned = put("node", "w1", leaseNodeOf(node("w1", { unschedulable: true })));
    expect(f.apply(cordoned)).toBe(true);
    expect([...f.touchedBy(cordoned)]).toEqual(["workers"]);
    // Not the last change applied: every budget, never too few.
    expect([...f.touchedBy(put("node", "i1", leaseNodeOf(node("i1", { pool: "infra" }))))].sort()).toEqual(["infras", "workers"]);
    expect(f.apply(put("lease", "w1", {}, "lockstep"))).toBe(false);
  });
});

describe("budgetStatusController", () => {
  const controller = (f: ClusterFeed) =>
    budgetStatusController({ kc: kubeConfigForUrl("http://127.0.0.1:1"), policy: testPolicy(), index: new LeaseIndex(testPolicy()), cluster: f, logger: silentLogger(), clock: Date.now });

  it("makes every budget due for a lease change and only the touched ones for a node change; leader only, folded, resynced", () => {
    const f = feed();
    const c = controller(f);
    expect([...c.keysFor!(put("lease", "w1", {}, "lockstep"))].sort()).toEqual(["infras", "workers"]);
    const moved = put("node", "i1", leaseNodeOf(node("i1", { pool: "infra", ready: false })));
    f.apply(moved);
    expect([...c.keysFor!(moved)]).toEqual(["infras"]);
    expect([...c.allKeys!(undefined as never)].sort()).toEqual(["infras", "workers"]);
    expect(c).toMatchObject({ leaderOnly: true, delayMs: 500, resyncMs: 30_000 });
  });
});
