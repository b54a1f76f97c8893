import type {
  BootImagePolicyState,
  ClusterVersionState,
  InfrastructureState,
  PoolState,
  SkewReport,
} from "@lockstep/contracts";
import { effectiveSkewStatus, type SkewEnforcementStatus } from "@lockstep/versions";
import { type BootImageVerdict, evaluateBootImageSkew } from "./boot-image-skew.js";
import { type Completion, evaluateCompletion } from "./completion.js";
import { docsMinor } from "./docs-minor.js";
import { assessPools, type PoolLagAssessment } from "./pool-lag.js";
import type { PoolTally } from "./node-tally.js";
import type { MachineConfigLookup } from "./pools.js";
import type { SkewNode } from "./rule-inputs.js";
import type { SkewSettings } from "./settings.js";
import { evaluateUpgradeable, type UpgradeableVerdict } from "./upgradeable.js";

/** Everything the verdicts are computed from: plain snapshots from the state plane. */
export interface SkewInputs {
  readonly clusterVersion: ClusterVersionState | undefined;
  readonly infrastructure: InfrastructureState | undefined;
  readonly pools: readonly PoolState[];
  /** The nodes, or their tally by pool as a NodeTally keeps it current (the same pools). */
  readonly nodes: readonly SkewNode[] | PoolTally;
  readonly machineConfigs: MachineConfigLookup;
  readonly bootImagePolicy: BootImagePolicyState | undefined;
  readonly bareMetalLegacyProvisioning?: boolean | undefined;
  readonly settings: SkewSettings;
}

export interface SkewEvaluation {
  /** ClusterVersion status.desired.version (the CVO's "current" for minor checks). */
  readonly currentVersion: string;
  readonly lag: PoolLagAssessment;
  readonly bootImageStatus: SkewEnforcementStatus;
  readonly bootImage: BootImageVerdict;
  /** The standing verdict, judged against the next minor. */
  readonly upgradeable: UpgradeableVerdict;
  readonly completion: Completion;
  /** spec.desiredUpdate when it was forced: recorded, since a forced update bypassed the block. */
  readonly forcedUpdate: string | undefined;
  readonly settings: SkewSettings;
}

export function evaluateSkew(inputs: SkewInputs): SkewEvaluation {
  const cv = inputs.clusterVersion;
  const currentVersion = cv?.desired?.version ?? "";
  const lag = assessPools(inputs.pools, inputs.machineConfigs);
  const bootImageStatus = effectiveSkewStatus({
    policy: inputs.bootImagePolicy,
    infrastructure: inputs.infrastructure,
    clusterVersion: cv,
    bareMetalLegacyProvisioning: inputs.bareMetalLegacyProvisioning,
  });
  const bootImage = evaluateBootImageSkew({
    status: bootImageStatus,
    policyConditions: inputs.bootImagePolicy?.conditions ?? [],
    currentVersion,
    docsMinor: docsMinor(cv),
    settings: inputs.settings,
    platform: inputs.infrastructure?.platform ?? "",
    controlPlaneTopology: inputs.infrastructure?.controlPlaneTopology ?? "",
  });
  const upgradeable = evaluateUpgradeable({ lag, bootImage, settings: inputs.settings, currentVersion });
  const completion = evaluateCompletion({
    clusterVersion: cv,
    pools: inputs.pools,
    nodes: inputs.nodes,
    machineConfigs: inputs.machineConfigs,
  });
  const forcedUpdate = cv?.desiredUpdate?.force ? cv.desiredUpdate.version || cv.desiredUpdate.image : undefined;
  return { currentVersion, lag, bootImageStatus, bootImage, upgradeable, completion, forcedUpdate, settings: inputs.settings };
}

/** The wire form served by `SkewService.GetSkewReport` and carried by `skew.evaluated`. */
export function toSkewReport(e: SkewEvaluation): SkewReport {
  const reasonOf = new Map(e.upgradeable.blockingPools.map((b) => [b.pool, b.reason]));
  return {
    controlPlaneVersion: e.lag.controlPlaneRelease,
    targetVersion: e.completion.targetVersion,
    upgradeable: e.upgradeable.status === "True",
    reason: e.upgradeable.reason,
    message: e.upgradeable.message,
    laggingPools: e.lag.pools
      .filter((p) => p.lagging || p.degraded)
      .map((p) => ({
        pool: p.name,
        reason: reasonOf.get(p.name) ?? (p.paused ? "PausedPoolLagging" : p.degraded ? "DegradedPool" : "PoolUpdating"),
        poolVersion: p.version,
        machineCount: p.machineCount,
        updatedMachineCount: p.updatedMachineCount,
        degradedMachineCount: p.degradedMachineCount,
        paused: p.paused,
      })),
    bootImage: {
      mode: e.bootImage.mode,
      ocpVersion: e.bootImage.ocpVersion,
      rhcosVersion: e.bootImage.rhcosVersion,
      ocpLimit: e.bootImage.limits.ocpVersion,
      rhcosLimit: e.bootImage.limits.rhelVersion,
      violated: e.bootImage.outcome === "Violation",
      warning: e.bootImage.warning,
    },
    updateComplete: e.completion.complete,
    incompletePools: e.completion.incompletePools.map((p) => p.pool),
    completionMessage: e.completion.message,
  };
}

/** `skew.evaluated` is published on change only: compares two reports by value. */
export function skewReportChanged(previous: SkewReport | undefined, next: SkewReport): boolean {
  return previous === undefined || JSON.stringify(previous) !== JSON.stringify(next);
}
