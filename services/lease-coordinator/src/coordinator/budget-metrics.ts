// lockstep_disruption_budget_allowed_disruptions and lockstep_disruption_budget_disrupted_nodes:
// what each DisruptionBudget's status says, set where the leader evaluates it (a non-leader has no
// series). One series per budget: budgets are few, written by admins, not per node.
import { Gauge, type Registry } from "prom-client";
import type { BudgetStatus } from "./budget-status.js";

export const BUDGET_ALLOWED_METRIC = "lockstep_disruption_budget_allowed_disruptions";
export const BUDGET_DISRUPTED_METRIC = "lockstep_disruption_budget_disrupted_nodes";

export class BudgetMetrics {
  private readonly allowed: Gauge<"budget">;
  private readonly disrupted: Gauge<"budget">;

  constructor(registry: Registry) {
    // A rewiring (NATS reconnect) starts over: budgets are evaluated again at once.
    for (const name of [BUDGET_ALLOWED_METRIC, BUDGET_DISRUPTED_METRIC]) if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
    this.allowed = new Gauge({
      name: BUDGET_ALLOWED_METRIC,
      help: "Nodes a DisruptionBudget allows disrupted at once now; no series while it bounds nothing (no window open, or no limit).",
      labelNames: ["budget"],
      registers: [registry],
    });
    this.disrupted = new Gauge({
      name: BUDGET_DISRUPTED_METRIC,
      help: "Member nodes of a DisruptionBudget that are disrupted now (held by a lease or unavailable), as its last evaluated status says.",
      labelNames: ["budget"],
      registers: [registry],
    });
  }

  /** The budget's status as just evaluated. */
  observe(budget: string, status: Pick<BudgetStatus, "allowed" | "disrupted">): void {
    this.disrupted.set({ budget }, status.disrupted);
    // An invalid budget allows 0 (it fails closed): that is a limit too.
    if (status.allowed !== undefined) this.allowed.set({ budget }, status.allowed);
    else this.allowed.remove({ budget });
  }

  /** The budget is gone, or this replica no longer evaluates it (not the leader). */
  forget(budget: string): void {
    this.disrupted.remove({ budget });
    this.allowed.remove({ budget });
  }

  /** This replica no longer evaluates any budget (it stopped leading). */
  forgetAll(): void {
    this.disrupted.reset();
    this.allowed.reset();
  }
}
