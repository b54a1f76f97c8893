import type { Warning } from "@lockstep/contracts";
import type { PolicyConfig } from "./config.js";
import type { OperationName } from "./operations.js";

export interface CurrentHold {
  holder: string;
  operation: OperationName | undefined;
  reason: string;
  /** Held through another component's Lease object (we can never write it). */
  foreign: boolean;
  adminHold: boolean;
}

export type ConflictCode = "MaintenanceFlagged" | "UpdateInProgress" | "Held";

export type ConflictOutcome =
  | { kind: "renew" }
  | { kind: "takeover"; audit: string; warnings: Warning[] }
  | { kind: "blocked"; code: ConflictCode; reason: string; warnings: Warning[]; mayRequestPreemption: boolean };

function describe(hold: CurrentHold): string {
  return `${hold.holder}${hold.operation ? ` (${hold.operation})` : ""}${hold.reason ? `: ${hold.reason}` : ""}`;
}

/**
 * The default conflict policy (tables in PolicyConfig): one holder per node; the same holder
 * re-acquiring renews; maintenance is an admin hold that nothing displaces; maintenance asked for
 * while an update holds the node is refused with "update in progress" unless forced (audited);
 * fencing never takes a node from a valid holder; a foreign lease is always respected.
 *
 * "takeover" permits a forced preemption, not an immediate grant: decide() marks the holder's
 * Lease preempted (binding) and grants the forcer only after the holder released or its lease
 * expired, so two holders never both believe they hold the node.
 */
export function evaluateConflict(
  node: string,
  request: { holder: string; operation: OperationName; force: boolean },
  hold: CurrentHold,
  policy: PolicyConfig,
): ConflictOutcome {
  if (hold.holder === request.holder) return { kind: "renew" };
  if (hold.operation === "Maintenance" || hold.adminHold) {
    const message = `maintenance flagged: ${hold.holder}, ${hold.reason || "no reason given"}`;
    return {
      kind: "blocked",
      code: "MaintenanceFlagged",
      reason: message,
      warnings: [{ code: "MaintenanceFlagged", node, message }],
      mayRequestPreemption: false,
    };
  }
  const isUpdate = hold.operation !== undefined && policy.updateOperations.includes(hold.operation);
  const forceAllowed =
    !hold.foreign &&
    hold.operation !== undefined &&
    request.operation !== "Fence" &&
    (policy.forceTakeover[request.operation] ?? []).includes(hold.operation);
  if (request.force && forceAllowed) {
    const warnings: Warning[] = isUpdate
      ? [{ code: "UpdateInProgress", node, message: `update in progress: ${describe(hold)}; forced takeover by ${request.holder}` }]
      : [];
    return { kind: "takeover", audit: `forced takeover by ${request.holder} (${request.operation}) from ${describe(hold)}`, warnings };
  }
  const mayRequestPreemption =
    !hold.foreign && hold.operation !== undefined && (policy.cooperativePreemption[request.operation] ?? []).includes(hold.operation);
  const forceNote = request.force ? `; force not permitted for ${request.operation} over ${hold.operation ?? "an unknown operation"}${hold.foreign ? " held through a foreign lease" : ""}` : "";
  if (request.operation === "Maintenance" && isUpdate) {
    const message = `update in progress: ${describe(hold)}`;
    return {
      kind: "blocked",
      code: "UpdateInProgress",
      reason: message + forceNote,
      warnings: [{ code: "UpdateInProgress", node, message }],
      mayRequestPreemption,
    };
  }
  return { kind: "blocked", code: "Held", reason: `held by ${describe(hold)}${forceNote}`, warnings: [], mayRequestPreemption };
}
