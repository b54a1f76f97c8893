// The node disruption policies in force: the shipped defaults (read once from the package's
// manifests) merged with the cluster's own NodeDisruptionPolicies, as the status-aggregator's
// preview merges them. Invalid objects take no part, as upstream.
import type { KubeObject } from "@lockstep/cluster-sim";
import { loadPolicyManifests, resolvePolicies, type EffectiveRules } from "@lockstep/disruption";

export async function disruptionRules(clusterPolicies: readonly KubeObject[] = []): Promise<EffectiveRules> {
  return resolvePolicies([...(await loadPolicyManifests()), ...clusterPolicies]).rules;
}
