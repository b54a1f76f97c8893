import type { PoolState } from "@lockstep/contracts";
import { isConditionTrue } from "./conditions.js";
import { findMasterPool, type MachineConfigLookup, releaseOf, sortPools } from "./pools.js";

// assessPools reads pools whole, MachineConfigs only through releaseOf (RELEASE_INPUTS).

/** Where one pool stands against the control plane (mco-behaviors.md §5.6 rule 1). */
export interface PoolAssessment {
  readonly name: string;
  readonly paused: boolean;
  /** `Degraded=True` on the pool. */
  readonly degraded: boolean;
  /** `BuildInterrupted=True` on the pool (on-cluster image builds). */
  readonly buildInterrupted: boolean;
  /** status.configuration.name (the config every node is on). */
  readonly currentConfig: string;
  /** spec.configuration.name (the target rendered config). */
  readonly targetConfig: string;
  /** The release of the current config, "" when its MachineConfig or annotation is missing. */
  readonly version: string;
  /** The release of the target config, "" when unknown. */
  readonly targetVersion: string;
  /** A rollout has not finished: status.configuration differs from spec.configuration. */
  readonly rolloutUnfinished: boolean;
  /** The current config's release differs from the master pool's. */
  readonly releaseDiffers: boolean;
  readonly lagging: boolean;
  readonly machineCount: number;
  readonly updatedMachineCount: number;
  readonly degradedMachineCount: number;
}

export interface PoolLagAssessment {
  /** The master pool's current release (`controlPlaneRelease`), "" when unknown. */
  readonly controlPlaneRelease: string;
  readonly masterPool: string | undefined;
  readonly pools: readonly PoolAssessment[];
}

/**
 * Lag per pool. `Updating=True` is deliberately not used: it also fires for a newly scaled-in,
 * still unready node, the false positive that made upstream drop `PoolUpdating`.
 */
export function assessPools(pools: readonly PoolState[], configs: MachineConfigLookup): PoolLagAssessment {
  const master = findMasterPool(pools);
  const controlPlaneRelease = master ? releaseOf(master.currentConfig, configs) : "";
  const assessed = sortPools(pools).map((pool): PoolAssessment => {
    const version = releaseOf(pool.currentConfig, configs);
    const rolloutUnfinished = pool.targetConfig !== "" && pool.currentConfig !== pool.targetConfig;
    // Only comparable when both releases are known; an unknown release is reported, not guessed.
    const releaseDiffers = pool !== master && controlPlaneRelease !== "" && version !== "" && version !== controlPlaneRelease;
    const counters = pool.counters;
    return {
      name: pool.name,
      paused: pool.paused,
      degraded: isConditionTrue(pool.conditions, "Degraded"),
      buildInterrupted: isConditionTrue(pool.conditions, "BuildInterrupted"),
      currentConfig: pool.currentConfig,
      targetConfig: pool.targetConfig,
      version,
      targetVersion: releaseOf(pool.targetConfig, configs),
      rolloutUnfinished,
      releaseDiffers,
      lagging: rolloutUnfinished || releaseDiffers,
      machineCount: counters?.machineCount ?? 0,
      updatedMachineCount: counters?.updatedMachineCount ?? 0,
      degradedMachineCount: counters?.degradedMachineCount ?? 0,
    };
  });
  return { controlPlaneRelease, masterPool: master?.name, pools: assessed };
}
