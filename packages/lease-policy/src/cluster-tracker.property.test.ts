// The incremental index against a fresh indexCluster over the same lists, step by step, while nodes,
// pools and budgets are put and deleted arbitrarily (labels moving nodes between pools and budgets,
// readiness and cordons, selectors valid and not, pools selecting nothing or overlapping): every
// query answers alike, the scopes a decision reads are the same, and every budget whose status could
// differ is among those a change reports.
import type { DisruptionBudgetState, LabelSelector, PoolState } from "@lockstep/contracts";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { requiredScopes } from "./capacity.js";
import { indexCluster, type ClusterIndex } from "./cluster.js";
import { ClusterTracker, type ClusterChange } from "./cluster-tracker.js";
import { budget, pool, testPolicy } from "./fixtures.js";
import type { LeaseNode } from "./lease-node.js";

const NODES = ["n0", "n1", "n2", "n3", "n4", "n5"];
const POOLS = ["master", "worker", "infra", "custom"];
const BUDGETS = ["b0", "b1", "b2"];
const ROLE = (r: string) => `node-role.kubernetes.io/${r}`;
const policy = testPolicy({ namespace: "lockstep-leases" });
const NOW = new Date("2026-11-21T10:00:00Z");

const selector = (matchLabels: Record<string, string>, matchExpressions: LabelSelector["matchExpressions"] = []): LabelSelector => ({ matchLabels, matchExpressions });
const SELECTORS: (LabelSelector | undefined)[] = [
  undefined,
  selector({}),
  selector({ rack: "r1" }),
  selector({ [ROLE("worker")]: "" }),
  selector({}, [{ key: "rack", operator: "In", values: ["r1", "r2"] }]),
  selector({}, [{ key: "rack", operator: "DoesNotExist", values: [] }]),
  // Invalid: a budget naming one is an error, a pool with one selects nothing.
  selector({}, [{ key: "rack", operator: "Near", values: [] }]),
  selector({}, [{ key: "rack", operator: "Exists", values: ["r1"] }]),
];

const leaseNode = fc
  .record({
    name: fc.constantFrom(...NODES),
    roles: fc.subarray(["worker", "infra", "master", "custom"]),
    rack: fc.constantFrom(undefined, "r1", "r2"),
    ready: fc.constantFrom("True", "True", "False", "Unknown", undefined),
    unschedulable: fc.boolean(),
    deleting: fc.boolean(),
  })
  .map((n): LeaseNode => ({
    name: n.name,
    uid: `uid-${n.name}`,
    labels: { ...Object.fromEntries(n.roles.map((r) => [ROLE(r), ""])), ...(n.rack ? { rack: n.rack } : {}) },
    unschedulable: n.unschedulable,
    deletionTime: n.deleting ? NOW : undefined,
    conditions: n.ready === undefined ? [] : [{ type: "Ready", status: n.ready }],
  }));

const poolState = fc
  .record({ name: fc.constantFrom(...POOLS), selector: fc.constantFrom<LabelSelector | undefined | "own">("own", "own", ...SELECTORS), maxUnavailable: fc.constantFrom("", "1", "50%") })
  .map(({ name, selector: s, maxUnavailable }): PoolState => {
    const p = pool(name, maxUnavailable);
    return s === "own" ? p : { ...p, nodeSelector: s };
  });

const budgetState = fc
  .record({ name: fc.constantFrom(...BUDGETS), pool: fc.constantFrom("", "", "worker", "infra", "gone"), nodeSelector: fc.constantFrom(...SELECTORS), maxDisrupted: fc.constantFrom("1", "50%") })
  .map((b): DisruptionBudgetState => budget(b.name, { pool: b.pool, nodeSelector: b.nodeSelector, maxDisrupted: b.maxDisrupted }));

const step: fc.Arbitrary<{ change: ClusterChange; check: boolean }> = fc.record({
  change: fc.oneof(
    { weight: 6, arbitrary: leaseNode.map((n): ClusterChange => ({ kind: "node", name: n.name, value: n })) },
    { weight: 2, arbitrary: fc.constantFrom(...NODES).map((name): ClusterChange => ({ kind: "node", name })) },
    { weight: 2, arbitrary: poolState.map((p): ClusterChange => ({ kind: "pool", name: p.name, value: p })) },
    { weight: 1, arbitrary: fc.constantFrom(...POOLS).map((name): ClusterChange => ({ kind: "pool", name })) },
    { weight: 2, arbitrary: budgetState.map((b): ClusterChange => ({ kind: "disruptionBudget", name: b.name, value: b })) },
    { weight: 1, arbitrary: fc.constantFrom(...BUDGETS).map((name): ClusterChange => ({ kind: "disruptionBudget", name })) },
  ),
  // Not every step is followed by reads, so the lazily built parts are also updated unread.
  check: fc.boolean(),
});

const sorted = (s: Iterable<string>) => [...s].sort();

/** What a budget's status is computed from: its members, its error, its members disrupted without a lease. */
function statusInputs(c: ClusterIndex, b: DisruptionBudgetState): string {
  const m = c.budgetMembers(b);
  return JSON.stringify({ error: "error" in m ? m.error : "", members: m.members, disrupted: m.members.filter((n) => c.disruptedWithoutLease.has(n)) });
}

function expectSameAnswers(t: ClusterTracker, fresh: ClusterIndex): void {
  expect(t.nodes).toEqual(fresh.nodes);
  t.nodes.forEach((n, i) => expect(n).toBe(fresh.nodes[i]));
  expect(t.pools).toEqual(fresh.pools);
  expect(t.budgets).toEqual(fresh.budgets);
  for (const name of [...NODES, "nope"]) {
    expect(t.node(name)).toBe(fresh.node(name));
    expect(t.poolOf(name)).toBe(fresh.poolOf(name));
  }
  for (const p of [...POOLS, "gone"]) expect(sorted(t.poolMembers(p))).toEqual(sorted(fresh.poolMembers(p)));
  for (const b of fresh.budgets) {
    const [mine, theirs] = [t.budgetMembers(b), fresh.budgetMembers(b)];
    expect(mine.members).toEqual(theirs.members);
    expect("error" in mine ? mine.error : undefined).toEqual("error" in theirs ? theirs.error : undefined);
    expect(sorted(mine.set)).toEqual(sorted(theirs.set));
  }
  expect(sorted(t.disruptedWithoutLease)).toEqual(sorted(fresh.disruptedWithoutLease));
  for (const n of t.nodes) {
    for (const op of ["Update", "Maintenance"] as const) {
      const scopes = (cluster: ClusterIndex) =>
        requiredScopes(n.name, op, { nodes: cluster.nodes, pools: cluster.pools, budgets: cluster.budgets, leases: [], cluster }, NOW, policy).map((s) => ({ ...s, members: sorted(s.members) }));
      expect(scopes(t)).toEqual(scopes(fresh));
    }
  }
}

describe("ClusterTracker", () => {
  it("answers every query as a fresh indexCluster over the same lists, and reports every budget whose status inputs changed", () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 60 }), (steps) => {
        const world = { node: new Map<string, LeaseNode>(), pool: new Map<string, PoolState>(), disruptionBudget: new Map<string, DisruptionBudgetState>() };
        const t = new ClusterTracker();
        const fresh = () => indexCluster([...world.node.values()], [...world.pool.values()], [...world.disruptionBudget.values()]);
        let before = fresh();
        for (const [i, { change, check }] of steps.entries()) {
          const objects = world[change.kind] as Map<string, unknown>;
          if (change.value === undefined) objects.delete(change.name);
          else objects.set(change.name, change.value);
          const touched = t.apply(change);
          const after = fresh();
          for (const b of after.budgets) {
            const old = before.budgets.find((x) => x.name === b.name);
            if (old === undefined || statusInputs(before, old) !== statusInputs(after, b)) expect(touched, `step ${i}: budget ${b.name}`).toContain(b.name);
          }
          if (check || i === steps.length - 1) expectSameAnswers(t, after);
          before = after;
        }
      }),
      { numRuns: 300 },
    );
  });
});
