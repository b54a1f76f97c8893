// BootImageUpdateProgressing / BootImageUpdateDegraded with upstream's message formats
// (mco-behaviors.md §3.14). Degraded is computed from the union of errors of every kind (Lockstep rule).

import type { Condition } from "@lockstep/contracts";

export const PROGRESSING = "BootImageUpdateProgressing";
export const DEGRADED = "BootImageUpdateDegraded";
/** Reason before the first sync. */
export const REASON_NA = "NA";

export interface KindCounters {
  readonly total: number;
  /** Includes skipped and excluded MachineSets, not errored ones. */
  readonly ok: number;
  readonly skipped: number;
  readonly errored: number;
}

const ZERO: KindCounters = { total: 0, ok: 0, skipped: 0, errored: 0 };

function reconciled(c: KindCounters, kind: string): string {
  return c.skipped > 0
    ? `Reconciled ${c.ok - c.skipped} of ${c.total} ${kind} (${c.skipped} skipped)`
    : `Reconciled ${c.ok} of ${c.total} ${kind}`;
}

export function progressingMessage(mapi: KindCounters, cpms: KindCounters = ZERO): string {
  return [reconciled(mapi, "MAPI MachineSets"), reconciled(cpms, "ControlPlaneMachineSets"), "Reconciled 0 of 0 CAPI MachineSets", "Reconciled 0 of 0 CAPI MachineDeployments"].join(" | ");
}

/** `<aggregate>`: the single error's text, or `[e1, e2, …]` (Go's utilerrors aggregate). */
export function aggregateErrors(errors: readonly string[]): string {
  return errors.length === 1 ? (errors[0] as string) : `[${errors.join(", ")}]`;
}

export function degradedMessage(mapiErrored: number, errors: readonly string[], cpmsErrored = 0): string {
  const base = `${mapiErrored} Degraded MAPI MachineSets | ${cpmsErrored} Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments`;
  return errors.length > 0 ? `${base} | Error(s): ${aggregateErrors(errors)}` : base;
}

function cond(type: string, status: boolean, reason: string, message: string): Condition {
  return { type, status: status ? "True" : "False", reason, message };
}

export function progressingCondition(mapi: KindCounters, reason: string): Condition {
  return cond(PROGRESSING, mapi.total !== mapi.ok + mapi.errored, reason, progressingMessage(mapi));
}

export function degradedCondition(mapiErrored: number, errors: readonly string[], reason: string): Condition {
  return cond(DEGRADED, errors.length > 0, reason, degradedMessage(mapiErrored, errors));
}

/** Both conditions before the first sync; Degraded uses the corrected text (documented divergence). */
export function defaultConditions(): { progressing: Condition; degraded: Condition } {
  return { progressing: progressingCondition(ZERO, REASON_NA), degraded: degradedCondition(0, [], REASON_NA) };
}

/**
 * Puts `next` into `conditions`, refreshing lastTransitionTime whenever anything in the
 * condition changed (upstream refreshes on any change, not only status).
 */
export function setCondition(conditions: readonly Condition[], next: Condition, now: Date): Condition[] {
  const prev = conditions.find((c) => c.type === next.type);
  const same = prev && prev.status === next.status && prev.reason === next.reason && prev.message === next.message;
  const merged: Condition = same ? prev : { ...next, lastTransitionTime: now };
  return prev ? conditions.map((c) => (c.type === next.type ? merged : c)) : [...conditions, merged];
}
