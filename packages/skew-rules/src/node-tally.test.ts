import type { PoolState } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { node, pool } from "./fixtures.js";
import { NodeTally, type PoolTally, tallyNodes } from "./node-tally.js";
import type { SkewNode } from "./rule-inputs.js";

/** A tally as sorted plain data, to compare two by value. */
function plain(t: PoolTally): Array<[string, Array<[string, unknown, number]>]> {
  return [...t]
    .map(([p, classes]): [string, Array<[string, unknown, number]>] => [p, [...classes].map(([k, c]): [string, unknown, number] => [k, c.mco, c.count]).sort((a, b) => (a[0] < b[0] ? -1 : 1))])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

describe("tallyNodes", () => {
  it("counts each pool's members by MCO progress; every pool is present", () => {
    const pools = [pool("master"), pool("worker"), pool("empty")];
    const t = tallyNodes(
      [
        node("m1", "master", "a"),
        node("w1", "worker", "a"),
        node("w2", "worker", "a"),
        node("w3", "worker", "a", { desired: "b", state: "Working" }),
        { name: "w4", labels: { "node-role.kubernetes.io/worker": "" }, mco: undefined },
        node("x1", "nopool", "a"),
      ],
      pools,
    );
    expect(plain(t)).toEqual([
      ["empty", []],
      ["master", [["+Done\na\na", { state: "Done", currentConfig: "a", desiredConfig: "a" }, 1]]],
      [
        "worker",
        [
          ["", undefined, 1],
          ["+Done\na\na", { state: "Done", currentConfig: "a", desiredConfig: "a" }, 2],
          ["+Working\na\nb", { state: "Working", currentConfig: "a", desiredConfig: "b" }, 1],
        ],
      ],
    ]);
  });
});

describe("NodeTally", () => {
  it("equals the tally from scratch after every step of a random walk of node and pool changes", () => {
    let seed = 11;
    const rnd = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return (seed >>> 8) % n;
    };
    const pick = <T>(xs: readonly T[]): T => xs[rnd(xs.length)]!;
    const roles = ["master", "worker", "infra", "gpu", "none"];
    const configs = ["a", "b", "c"];
    const states = ["Done", "Working", "Degraded", "Unreconcilable", ""];
    // Pool sets differing in members and selectors; "wide" selects by a label some nodes carry.
    const poolSets: PoolState[][] = [
      [pool("master"), pool("worker")],
      [pool("master"), pool("worker"), pool("infra")],
      [pool("master"), pool("worker", { role: "gpu" }), pool("infra"), pool("gpu")],
      [pool("worker"), pool("wide", { role: "worker" }), { ...pool("all"), nodeSelector: { matchLabels: {}, matchExpressions: [] } }],
      [pool("master", { current: "rendered-master-other", paused: true }), pool("worker", { target: "x" })], // status-only changes
    ];
    const randomNode = (name: string): SkewNode => {
      const labels: Record<string, string> = {};
      for (let i = rnd(3); i > 0; i--) labels[`node-role.kubernetes.io/${pick(roles)}`] = "";
      if (rnd(5) === 0) return { name, labels, mco: undefined };
      return { name, labels, mco: { state: pick(states), currentConfig: pick(configs), desiredConfig: pick(configs) } };
    };
    const tally = new NodeTally();
    const live = new Map<string, SkewNode>();
    let pools: PoolState[] = [];
    for (let step = 0; step < 3_000; step++) {
      const r = rnd(20);
      const name = `n${rnd(60)}`;
      if (r === 0) {
        pools = pick(poolSets);
        tally.setPools(pools);
      } else if (r < 5) {
        live.delete(name);
        tally.delete(name);
      } else {
        const n = randomNode(name);
        live.set(name, n);
        tally.put(n);
      }
      expect(plain(tally.tally), `step ${step}`).toEqual(plain(tallyNodes([...live.values()], pools)));
    }
    expect(live.size).toBeGreaterThan(20);
  });
});
