import type { NodeLease, Warning } from "@lockstep/contracts";
import { evaluateBudget } from "./budgets.js";
import type { PolicyConfig } from "./config.js";
import { toNodeLease } from "./node-lease.js";
import type { ObservedState } from "./types.js";
import { buildView } from "./view.js";

/**
 * What an admin should see before starting an upgrade: nodes under maintenance (the upgrade will
 * leave them alone and cannot finish there until released), nodes otherwise held, leases for nodes
 * that no longer exist, corrupt leases, and budgets that are invalid or currently allow nothing.
 */
export function preflightUpgrade(observed: ObservedState, now: Date, policy: PolicyConfig): { warnings: Warning[]; held: NodeLease[] } {
  const view = buildView(observed, now.getTime(), policy);
  const warnings: Warning[] = [];
  const held: NodeLease[] = [];
  const nodeNames = new Set(observed.nodes.map((n) => n.name));
  for (const rec of view.records) {
    if (rec.kind === "slot") continue;
    const v = view.validity(rec);
    if (!nodeNames.has(rec.node)) {
      if (rec.holder !== "") warnings.push({ code: "OrphanLease", node: rec.node, message: `lease ${rec.namespace}/${rec.name} names node ${rec.node}, which does not exist; it holds nothing` });
      continue;
    }
    if (rec.corrupt !== undefined && rec.holder !== "") {
      warnings.push({ code: "CorruptLease", node: rec.node, message: `lease ${rec.namespace}/${rec.name} is corrupt (${rec.corrupt}) and counts as free` });
    }
    if (v.status !== "held") continue;
    held.push(toNodeLease(rec));
    const who = `${rec.holder}, ${rec.reason || "no reason given"}`;
    if (rec.operation === "Maintenance" || v.adminHold) {
      warnings.push({ code: "MaintenanceFlagged", node: rec.node, message: `node ${rec.node} is under maintenance (maintenance flagged: ${who}); the upgrade will not touch it until it is released` });
    } else {
      warnings.push({ code: "NodeHeld", node: rec.node, message: `node ${rec.node} is held by ${who}${rec.operation ? ` for ${rec.operation}` : ""}` });
    }
    if (v.futureRenewTime) warnings.push({ code: "ClockSkew", node: rec.node, message: `lease ${rec.namespace}/${rec.name} has renewTime ${rec.renewTimeRaw} in the future` });
  }
  for (const budget of observed.budgets) {
    const ev = evaluateBudget(budget, observed.nodes, observed.pools, now, policy);
    if (!ev.valid) warnings.push({ code: "InvalidBudget", node: "", message: `DisruptionBudget ${budget.name}: ${ev.message}` });
    else if (ev.active && ev.limit === 0 && ev.members.length > 0) warnings.push({ code: "BudgetBlocks", node: "", message: `DisruptionBudget ${budget.name} allows no disruption now (${ev.message})` });
  }
  held.sort((a, b) => a.node.localeCompare(b.node));
  return { warnings, held };
}
