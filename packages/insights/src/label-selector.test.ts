import { describe, expect, it } from "vitest";
import { assignNodesToPools, whichPool } from "./assign-pools.js";
import { selectorMatches } from "./label-selector.js";
import { node, pool } from "./testing/builders.js";

describe("selectorMatches", () => {
  const labels = { a: "1", b: "2" };
  it("absent matches nothing, empty matches everything", () => {
    expect(selectorMatches(undefined, labels)).toBe(false);
    expect(selectorMatches(null, labels)).toBe(false);
    expect(selectorMatches({}, labels)).toBe(true);
  });
  it("matchLabels and matchExpressions", () => {
    expect(selectorMatches({ matchLabels: { a: "1" } }, labels)).toBe(true);
    expect(selectorMatches({ matchLabels: { a: "2" } }, labels)).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "In", values: ["0", "1"] }] }, labels)).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: "c", operator: "In", values: [""] }] }, labels)).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: "a", operator: "NotIn", values: ["1"] }] }, labels)).toBe(false);
    expect(selectorMatches({ matchExpressions: [{ key: "c", operator: "NotIn", values: ["1"] }] }, labels)).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: "b", operator: "Exists" }] }, labels)).toBe(true);
    expect(selectorMatches({ matchExpressions: [{ key: "b", operator: "DoesNotExist" }] }, labels)).toBe(false);
    expect(() => selectorMatches({ matchExpressions: [{ key: "b", operator: "Gt" }] }, labels)).toThrow(/unsupported/);
  });
});

describe("whichPool (spec §4.2)", () => {
  const pools = [pool("worker"), pool("master"), pool("infra"), pool("gpu")];
  const roles = (...r: string[]) => Object.fromEntries(r.map((x) => [`node-role.kubernetes.io/${x}`, ""]));
  it("master first, then custom pools in list order, then worker", () => {
    expect(whichPool(pools, node("n", { labels: roles("master", "worker") }))).toBe("master");
    expect(whichPool(pools, node("n", { labels: roles("worker", "infra") }))).toBe("infra");
    expect(whichPool(pools, node("n", { labels: roles("gpu", "infra") }))).toBe("infra");
    expect(whichPool(pools, node("n", { labels: roles("worker") }))).toBe("worker");
    expect(whichPool(pools, node("n", { labels: roles("other") }))).toBeUndefined();
    expect(whichPool([pool("infra")], node("n", { labels: roles("worker") }))).toBeUndefined();
  });
  it("groups nodes per pool in node-list order", () => {
    const byPool = assignNodesToPools(pools, [node("w2", { labels: roles("worker") }), node("m", { labels: roles("master") }), node("w1", { labels: roles("worker") })]);
    expect(byPool.get("worker")?.map((n) => n.metadata.name)).toEqual(["w2", "w1"]);
    expect(byPool.get("master")?.map((n) => n.metadata.name)).toEqual(["m"]);
  });
});
