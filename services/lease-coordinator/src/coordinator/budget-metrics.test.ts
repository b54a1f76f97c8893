import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { BUDGET_ALLOWED_METRIC, BUDGET_DISRUPTED_METRIC, BudgetMetrics } from "./budget-metrics.js";

const text = async (r: Registry) => (await r.getSingleMetricAsString(BUDGET_ALLOWED_METRIC)) + (await r.getSingleMetricAsString(BUDGET_DISRUPTED_METRIC));

describe("BudgetMetrics", () => {
  it("reports each budget's allowed and disrupted nodes, allowed only while the budget bounds something, and forgets a budget", async () => {
    const registry = new Registry();
    const m = new BudgetMetrics(registry);
    m.observe("workers", { allowed: 2, disrupted: 2 });
    m.observe("infra", { allowed: undefined, disrupted: 1 });
    let t = await text(registry);
    expect(t).toContain(`${BUDGET_ALLOWED_METRIC}{budget="workers"} 2`);
    expect(t).toContain(`${BUDGET_DISRUPTED_METRIC}{budget="workers"} 2`);
    expect(t).toContain(`${BUDGET_DISRUPTED_METRIC}{budget="infra"} 1`);
    expect(t).not.toContain(`${BUDGET_ALLOWED_METRIC}{budget="infra"}`);
    // The schedule ends: no limit any more.
    m.observe("workers", { allowed: undefined, disrupted: 0 });
    m.forget("infra");
    t = await text(registry);
    expect(t).not.toContain(`${BUDGET_ALLOWED_METRIC}{budget="workers"}`);
    expect(t).toContain(`${BUDGET_DISRUPTED_METRIC}{budget="workers"} 0`);
    expect(t).not.toContain(`budget="infra"`);
    // A second registration on the same registry (a rewiring) replaces the first.
    new BudgetMetrics(registry).observe("workers", { allowed: 1, disrupted: 0 });
    expect(await text(registry)).toContain(`${BUDGET_ALLOWED_METRIC}{budget="workers"} 1`);
  });

  it("forgets every budget when this replica stops leading", async () => {
    const registry = new Registry();
    const m = new BudgetMetrics(registry);
    m.observe("workers", { allowed: 2, disrupted: 1 });
    m.observe("infra", { allowed: 1, disrupted: 0 });
    m.forgetAll();
    expect(await text(registry)).not.toContain("budget=");
  });
});
