// API objects → what the lease policy and the skew rules read: the watcher's own normaliser
// (@lockstep/normalize), then each consumer's projection, exactly as the services get them from
// the state plane.
import type { KubeObject } from "@lockstep/cluster-sim";
import type { DisruptionBudgetState, PoolState } from "@lockstep/contracts";
import { leaseNodeOf, type LeaseNode } from "@lockstep/lease-policy";
import { normalizeClusterVersion, normalizeDisruptionBudget, normalizeInfrastructure, normalizeMachineConfig, normalizeNode, normalizePool, type Obj } from "@lockstep/normalize";
import { DEFAULT_SKEW_SETTINGS, checkUpgrade, evaluateSkew, skewMachineConfigOf, skewNodeOf, type CheckUpgradeResult, type SkewSettings } from "@lockstep/skew-rules";

export const leaseNodeOfObject = (n: KubeObject): LeaseNode => leaseNodeOf(normalizeNode(n as Obj));
export const poolStateOfObject = (p: KubeObject): PoolState => normalizePool(p as Obj);
export const budgetStateOfObject = (b: KubeObject): DisruptionBudgetState => normalizeDisruptionBudget(b as Obj);

export interface SkewWorld {
  clusterVersion: KubeObject;
  infrastructure?: KubeObject | undefined;
  pools: readonly KubeObject[];
  nodes: readonly KubeObject[];
  machineConfigs: readonly KubeObject[];
}

/** The skew-enforcer's answer to "would an update to `target` be accepted?" on this state. */
export function skewCheck(w: SkewWorld, target: string, force = false, settings: SkewSettings = DEFAULT_SKEW_SETTINGS): CheckUpgradeResult {
  const evaluation = evaluateSkew({
    clusterVersion: normalizeClusterVersion(w.clusterVersion as Obj),
    infrastructure: w.infrastructure ? normalizeInfrastructure(w.infrastructure as Obj) : undefined,
    pools: w.pools.map((p) => normalizePool(p as Obj)),
    nodes: w.nodes.map((n) => skewNodeOf(normalizeNode(n as Obj))),
    machineConfigs: new Map(w.machineConfigs.map((m) => [m.metadata.name, skewMachineConfigOf(normalizeMachineConfig(m as Obj))])),
    bootImagePolicy: undefined,
    settings,
  });
  return checkUpgrade(evaluation, target, force);
}
