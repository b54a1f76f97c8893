// What each NodeDisruptionPolicy object's status should say (Accepted / Conflicting), from the
// objects in the state plane. Pure: the writer compares it with what the object carries.
import type { Condition, NodeDisruptionPolicyState } from "@lockstep/contracts";
import { policyObjectFromState, resolvePolicies } from "@lockstep/disruption";

export interface DesiredPolicyStatus {
  name: string;
  /** Conditions to write; lastTransitionTime kept from the object when the status did not change. */
  conditions: Condition[];
  /** True when the object's conditions differ (ignoring lastTransitionTime). */
  changed: boolean;
}

function sameCondition(a: Condition | undefined, b: Condition): boolean {
  return !!a && a.status === b.status && a.reason === b.reason && a.message === b.message;
}

export function desiredPolicyStatuses(states: readonly NodeDisruptionPolicyState[], now: Date): DesiredPolicyStatus[] {
  const resolved = resolvePolicies(states.map(policyObjectFromState));
  const byName = new Map(states.map((s) => [s.name, s]));
  return resolved.statuses.map((st) => {
    const observed = byName.get(st.name)?.conditions ?? [];
    let changed = observed.length !== st.conditions.length;
    const conditions = st.conditions.map((c) => {
      const prev = observed.find((o) => o.type === c.type);
      const same = sameCondition(prev, { ...c, lastTransitionTime: undefined });
      if (!same) changed = true;
      return { type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: same && prev?.lastTransitionTime ? prev.lastTransitionTime : now };
    });
    return { name: st.name, conditions, changed };
  });
}
