import type { BudgetSchedule, DisruptionBudgetState, PoolState } from "@lockstep/contracts";
import { Cron } from "croner";
import type { PolicyConfig } from "./config.js";
import { parseDuration } from "./duration.js";
import { isOperationName, type OperationName } from "./operations.js";
import { budgetMembership, type ClusterIndex } from "./cluster.js";
import type { LeaseNode } from "./lease-node.js";
import { primaryPool } from "./pools.js";

/** A DisruptionBudget evaluated at one instant. */
export interface BudgetEvaluation {
  name: string;
  valid: boolean;
  /** Human-readable status: why it is invalid, or what it allows now. */
  message: string;
  /** Whether it bounds anything right now (invalid budgets are active and allow 0: fail closed). */
  active: boolean;
  limit: number;
  members: string[];
  operations: OperationName[];
}

/** "2" or "10%" of `members`, percentages rounded up so small pools are not frozen (Karpenter). */
export function parseMaxDisrupted(text: string, members: number): { limit: number } | { error: string } {
  const raw = text.trim();
  const pct = /^(\d+)%$/.exec(raw);
  if (pct) {
    const value = Number(pct[1]);
    if (value > 100) return { error: `maxDisrupted "${text}" is over 100%` };
    return { limit: Math.ceil((value * members) / 100) };
  }
  if (/^\d+$/.test(raw)) return { limit: Number(raw) };
  return { error: `maxDisrupted "${text}" is neither a count nor a percentage` };
}

function validTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/**
 * Whether a schedule window is open at `now`: a cron hit (in the schedule's time zone, UTC when
 * empty) happened within the last `duration`. Croner evaluates wall-clock time in the zone, so
 * windows across midnight and DST changes follow the zone's clock.
 */
export function scheduleActive(schedule: BudgetSchedule, now: Date): { active: boolean } | { error: string } {
  if (schedule.cron.trim() === "") return { error: "schedule has no cron" };
  if (schedule.duration.trim() === "") return { error: `schedule "${schedule.cron}" has no duration` };
  const duration = parseDuration(schedule.duration);
  if ("error" in duration) return { error: `schedule "${schedule.cron}": ${duration.error}` };
  const zone = schedule.timeZone.trim() || "UTC";
  if (!validTimeZone(zone)) return { error: `schedule "${schedule.cron}": unknown time zone "${zone}"` };
  if (schedule.cron.trim().split(/\s+/).length > 5 && !schedule.cron.trim().startsWith("@")) {
    return { error: `schedule "${schedule.cron}": expected 5 cron fields (minute hour day month weekday)` };
  }
  let cron: Cron;
  try {
    cron = new Cron(schedule.cron, { timezone: zone, paused: true });
  } catch (err) {
    return { error: `schedule "${schedule.cron}": invalid cron (${(err as Error).message})` };
  }
  const last = cron.previousRuns(1, now)[0];
  if (last === undefined) return { active: false };
  return { active: now.getTime() - last.getTime() < duration.seconds * 1000 };
}

function invalid(name: string, members: string[], operations: OperationName[], why: string): BudgetEvaluation {
  return { name, valid: false, message: `invalid budget, allowing 0: ${why}`, active: true, limit: 0, members, operations };
}

/**
 * Evaluates a DisruptionBudget. Without schedules it always applies. With schedules: while windows
 * are open the smallest of their values applies (a window without its own value uses the budget's);
 * when all are closed, the budget is inactive (Karpenter "deny window") unless some window carries
 * its own value, in which case the budget's base value applies outside windows ("allow window":
 * base "0" and a window of "2" allows 2 only inside it).
 */
export function evaluateBudget(
  budget: DisruptionBudgetState,
  nodes: readonly LeaseNode[],
  pools: readonly PoolState[],
  now: Date,
  policy: PolicyConfig,
  cluster?: ClusterIndex,
): BudgetEvaluation {
  const name = budget.name;
  const unknownOps = budget.operations.filter((o) => !isOperationName(o));
  const operations = (budget.operations.length === 0 ? policy.defaultBudgetOperations : budget.operations.filter(isOperationName)) as OperationName[];
  const membership = cluster ? cluster.budgetMembers(budget) : budgetMembership(budget, nodes, (n) => primaryPool(n, pools));
  if ("error" in membership) return invalid(name, [], operations, membership.error);
  const members = membership.members;
  // Invalid budgets still cover their nodes (for the operations they name) so they fail closed.
  if (unknownOps.length > 0) return invalid(name, members, operations.length ? operations : policy.defaultBudgetOperations, `unknown operations ${unknownOps.join(", ")}`);
  if (budget.maxDisrupted.trim() === "") return invalid(name, members, operations, "maxDisrupted is empty");
  const base = parseMaxDisrupted(budget.maxDisrupted, members.length);
  if ("error" in base) return invalid(name, members, operations, base.error);
  if (budget.schedules.length === 0) {
    return { name, valid: true, message: `allows ${base.limit} of ${members.length} nodes`, active: true, limit: base.limit, members, operations };
  }
  let windowLimit: number | undefined;
  let anyOwnValue = false;
  for (const schedule of budget.schedules) {
    const state = scheduleActive(schedule, now);
    if ("error" in state) return invalid(name, members, operations, state.error);
    const own = schedule.maxDisrupted.trim();
    if (own !== "") anyOwnValue = true;
    const value = own === "" ? base : parseMaxDisrupted(own, members.length);
    if ("error" in value) return invalid(name, members, operations, `schedule "${schedule.cron}": ${value.error}`);
    if (state.active) windowLimit = Math.min(windowLimit ?? Number.POSITIVE_INFINITY, value.limit);
  }
  if (windowLimit !== undefined) {
    return { name, valid: true, message: `window open: allows ${windowLimit} of ${members.length} nodes`, active: true, limit: windowLimit, members, operations };
  }
  if (anyOwnValue) {
    return { name, valid: true, message: `outside its windows: allows ${base.limit} of ${members.length} nodes`, active: true, limit: base.limit, members, operations };
  }
  return { name, valid: true, message: "no window open: not bounding", active: false, limit: Number.POSITIVE_INFINITY, members, operations };
}
