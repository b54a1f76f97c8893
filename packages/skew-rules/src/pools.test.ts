import { describe, expect, it } from "vitest";
import { node, pool } from "./fixtures.js";
import { findMasterPool, nodesByPool, primaryPoolOf, REQUIRED_FOR_UPGRADE_LABEL } from "./pools.js";
import { selectorMatches } from "./selector.js";

describe("selectorMatches", () => {
  const labels = { a: "1", b: "2" };
  it.each([
    [undefined, true],
    [{ matchLabels: { a: "1" }, matchExpressions: [] }, true],
    [{ matchLabels: { a: "2" }, matchExpressions: [] }, false],
    [{ matchLabels: {}, matchExpressions: [{ key: "b", operator: "In", values: ["2", "3"] }] }, true],
    [{ matchLabels: {}, matchExpressions: [{ key: "b", operator: "NotIn", values: ["2"] }] }, false],
    [{ matchLabels: {}, matchExpressions: [{ key: "c", operator: "NotIn", values: ["2"] }] }, true],
    [{ matchLabels: {}, matchExpressions: [{ key: "c", operator: "Exists", values: [] }] }, false],
    [{ matchLabels: {}, matchExpressions: [{ key: "c", operator: "DoesNotExist", values: [] }] }, true],
    [{ matchLabels: {}, matchExpressions: [{ key: "a", operator: "Gt", values: ["0"] }] }, false],
  ])("%j → %s", (selector, expected) => {
    expect(selectorMatches(selector, labels)).toBe(expected);
  });
});

describe("pool membership", () => {
  const pools = [pool("master"), pool("worker"), pool("infra"), pool("gpu")];
  it.each([
    [{ "node-role.kubernetes.io/master": "", "node-role.kubernetes.io/worker": "" }, "master"],
    [{ "node-role.kubernetes.io/worker": "" }, "worker"],
    [{ "node-role.kubernetes.io/worker": "", "node-role.kubernetes.io/infra": "" }, "infra"],
    [{ "node-role.kubernetes.io/infra": "", "node-role.kubernetes.io/gpu": "" }, undefined],
    [{ other: "" }, undefined],
  ])("%j belongs to %s", (labels, expected) => {
    expect(primaryPoolOf({ ...node("n", "x", "c"), labels }, pools)).toBe(expected);
  });

  it("ignores pools with an empty selector and lists every pool", () => {
    const all = { ...pool("everything"), nodeSelector: { matchLabels: {}, matchExpressions: [] } };
    const members = nodesByPool([node("w1", "worker", "c"), node("m1", "master", "c")], [...pools, all]);
    expect(members.get("everything")).toEqual([]);
    expect(members.get("worker")?.map((n) => n.name)).toEqual(["w1"]);
    expect(members.get("master")?.map((n) => n.name)).toEqual(["m1"]);
  });

  it("finds the master pool by name, else by the required-for-upgrade label", () => {
    expect(findMasterPool([pool("worker"), pool("master")])?.name).toBe("master");
    expect(findMasterPool([pool("worker"), pool("cp", { labels: { [REQUIRED_FOR_UPGRADE_LABEL]: "" } })])?.name).toBe("cp");
    expect(findMasterPool([pool("worker")])).toBeUndefined();
  });
});
