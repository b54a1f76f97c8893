// The effective NodeDisruptionPolicy rules: the objects in the state plane, plus the shipped
// upstream defaults when the cluster has no default object installed (so a preview is right even
// before the chart installed them). Pure once the default manifests are loaded.
import type { ListEffectivePoliciesResponse, NodeDisruptionPolicyState } from "@lockstep/contracts";
import { type ResolvedPolicies, effectiveRulesToProto, formatProblem, isDefaultPolicy, policyObjectFromState, resolvePolicies } from "@lockstep/disruption";

export function effectivePolicies(states: readonly NodeDisruptionPolicyState[], shippedDefaults: readonly unknown[]): ResolvedPolicies {
  const objects: unknown[] = states.map(policyObjectFromState);
  if (!objects.some(isDefaultPolicy)) objects.push(...shippedDefaults);
  return resolvePolicies(objects);
}

export function effectivePoliciesToProto(resolved: ResolvedPolicies): ListEffectivePoliciesResponse {
  return {
    rules: effectiveRulesToProto(resolved.rules),
    rejectedPolicies: resolved.statuses.flatMap((s) => (s.validation.ok ? [] : [`${s.name}: ${s.validation.problems.map(formatProblem).join("; ")}`])),
  };
}
