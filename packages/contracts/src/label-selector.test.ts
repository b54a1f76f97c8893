import { LabelSelector } from "./gen/lockstep/common/v1/common.js";
import { describe, expect, it } from "vitest";
import { compileSelector, labelSelectorIsEmpty, matchesLabelSelector } from "./label-selector.js";

const sel = (s: Parameters<typeof LabelSelector.fromPartial>[0]) => compileSelector(LabelSelector.fromPartial(s));
const L = { "machine.openshift.io/cluster-api-machine-role": "worker", zone: "a", gpu: "true" };

describe("compileSelector", () => {
  it.each([
    { name: "empty matches all", s: {}, want: true },
    { name: "matchLabels hit", s: { matchLabels: { zone: "a" } }, want: true },
    { name: "matchLabels miss", s: { matchLabels: { zone: "b" } }, want: false },
    { name: "matchLabels absent key", s: { matchLabels: { other: "a" } }, want: false },
    { name: "In hit", s: { matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }, want: true },
    { name: "In absent key", s: { matchExpressions: [{ key: "x", operator: "In", values: ["a"] }] }, want: false },
    { name: "NotIn hit", s: { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] }, want: false },
    { name: "NotIn absent key matches", s: { matchExpressions: [{ key: "x", operator: "NotIn", values: ["a"] }] }, want: true },
    { name: "Exists", s: { matchExpressions: [{ key: "gpu", operator: "Exists" }] }, want: true },
    { name: "DoesNotExist", s: { matchExpressions: [{ key: "gpu", operator: "DoesNotExist" }] }, want: false },
    { name: "all requirements ANDed", s: { matchLabels: { zone: "a" }, matchExpressions: [{ key: "gpu", operator: "DoesNotExist" }] }, want: false },
  ])("$name", ({ s, want }) => {
    const r = sel(s);
    expect(r.ok && r.matches(L)).toBe(want);
  });
  it.each([
    { s: { matchExpressions: [{ key: "a", operator: "Equals", values: ["x"] }] }, msg: /not a valid operator/ },
    { s: { matchExpressions: [{ key: "a", operator: "In", values: [] }] }, msg: /values must be non-empty/ },
    { s: { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] }, msg: /values must be empty/ },
  ])("invalid %#", ({ s, msg }) => {
    const r = sel(s);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(msg);
  });
});

describe("matchesLabelSelector", () => {
  it("matches everything without a selector, nothing with an invalid one", () => {
    expect(matchesLabelSelector(undefined, L)).toBe(true);
    expect(matchesLabelSelector(LabelSelector.fromPartial({ matchExpressions: [{ key: "zone", operator: "Near", values: [] }] }), L)).toBe(false);
    expect(matchesLabelSelector(LabelSelector.fromPartial({ matchExpressions: [{ key: "zone", operator: "In", values: ["a", "b"] }] }), L)).toBe(true);
    expect(labelSelectorIsEmpty(LabelSelector.fromPartial({}))).toBe(true);
    expect(labelSelectorIsEmpty(LabelSelector.fromPartial({ matchLabels: { a: "b" } }))).toBe(false);
  });
});
