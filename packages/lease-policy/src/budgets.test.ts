import { describe, expect, it } from "vitest";
import { evaluateBudget, parseMaxDisrupted, scheduleActive } from "./budgets.js";
import { parseDuration } from "./duration.js";
import { budget, node, pool, testPolicy } from "./fixtures.js";
import { poolMaxUnavailable, primaryPool } from "./pools.js";
import { matchesSelector } from "./selector.js";

const policy = testPolicy();

describe("budgets and pools", () => {
  it("DisruptionBudget percentages round up; MachineConfigPool percentages round down with a minimum of 1", () => {
    expect(parseMaxDisrupted("10%", 4)).toEqual({ limit: 1 });
    expect(parseMaxDisrupted("0%", 4)).toEqual({ limit: 0 });
    expect(parseMaxDisrupted("34%", 10)).toEqual({ limit: 4 });
    expect(poolMaxUnavailable(pool("worker", "34%"), 10).limit).toBe(3);
    expect(poolMaxUnavailable(pool("worker", "10%"), 4).limit).toBe(1);
    expect(poolMaxUnavailable(pool("worker", ""), 4).limit).toBe(1);
    expect(poolMaxUnavailable(pool("worker", "0"), 4).limit).toBe(1);
    expect(poolMaxUnavailable(pool("worker", "lots"), 4)).toEqual({ limit: 0, message: 'pool worker: invalid maxUnavailable "lots", allowing 0' });
  });
  it("assigns a node to master first, then a custom pool over worker", () => {
    const pools = [pool("worker"), pool("infra"), pool("master")];
    expect(primaryPool(node("a", { pool: "worker", labels: { "node-role.kubernetes.io/infra": "" } }), pools)?.name).toBe("infra");
    expect(primaryPool(node("b", { pool: "master", labels: { "node-role.kubernetes.io/worker": "" } }), pools)?.name).toBe("master");
    expect(primaryPool(node("c"), pools)?.name).toBe("worker");
  });
  it("schedules: active within duration of the last hit, in the schedule's zone", () => {
    const s = { cron: "30 23 * * *", duration: "1h", timeZone: "Asia/Tokyo", maxDisrupted: "" };
    expect(scheduleActive(s, new Date("2026-11-21T14:45:00Z"))).toEqual({ active: true });
    expect(scheduleActive(s, new Date("2026-11-21T15:31:00Z"))).toEqual({ active: false });
  });
  it("a deny window (no own value) is inactive outside its window", () => {
    const nodes = [node("w1"), node("w2")];
    const b = budget("freeze", { pool: "worker", maxDisrupted: "0", schedules: [{ cron: "0 9 * * 1-5", duration: "8h", timeZone: "UTC", maxDisrupted: "" }] });
    expect(evaluateBudget(b, nodes, [pool("worker")], new Date("2026-11-23T10:00:00Z"), policy)).toMatchObject({ active: true, limit: 0 });
    expect(evaluateBudget(b, nodes, [pool("worker")], new Date("2026-11-22T10:00:00Z"), policy)).toMatchObject({ active: false });
  });
  it("selects by label selector and bounds only the named operations", () => {
    const nodes = [node("w1", { labels: { rack: "r1" } }), node("w2", { labels: { rack: "r2" } })];
    const ev = evaluateBudget(budget("rack", { nodeSelector: { matchLabels: {}, matchExpressions: [{ key: "rack", operator: "In", values: ["r1"] }] }, operations: ["PowerOff"] }), nodes, [], new Date(), policy);
    expect(ev).toMatchObject({ valid: true, members: ["w1"], operations: ["PowerOff"], limit: 1 });
    expect(matchesSelector({ matchLabels: {}, matchExpressions: [{ key: "x", operator: "Bogus", values: [] }] }, { x: "1" })).toBe(false);
  });
  it("parses Go-style durations", () => {
    expect(parseDuration("1h30m")).toEqual({ seconds: 5400 });
    expect(parseDuration("90s")).toEqual({ seconds: 90 });
    expect("error" in parseDuration("8 hours")).toBe(true);
    expect("error" in parseDuration("0s")).toBe(true);
  });
});
