import type { BootImagePolicyState, ClusterVersionState, InfrastructureState } from "@lockstep/contracts";
import { installVersion } from "./install-version.js";

export type SkewMode = "Automatic" | "Manual" | "None";

/** The effective skew enforcement status (upstream's `status.bootImageSkewEnforcementStatus`). */
export interface SkewEnforcementStatus {
  readonly mode: SkewMode;
  /** Manual only: `OCPVersion` or `RHCOSVersion`. */
  readonly manualMode: "" | "OCPVersion" | "RHCOSVersion";
  readonly ocpVersion: string;
  readonly rhcosVersion: string;
  /** Which §4.3 row decided the mode (1–6), for logs and the report. */
  readonly rule: 1 | 2 | 3 | 4 | 5 | 6;
}

export interface ModeInputs {
  readonly policy: BootImagePolicyState | undefined;
  readonly infrastructure: InfrastructureState | undefined;
  readonly clusterVersion: ClusterVersionState | undefined;
  /**
   * BareMetal only: `Provisioning/provisioning-configuration` has a non-empty
   * `spec.provisioningOSDownloadURL`. Undefined (not watched, or unreadable) counts as legacy, as upstream.
   */
  readonly bareMetalLegacyProvisioning?: boolean | undefined;
}

/** Platforms whose MachineSets get boot image updates (mco-behaviors.md §3.2). */
export function platformSupportsBootImageUpdates(infra: InfrastructureState | undefined): boolean {
  switch (infra?.platform) {
    case "AWS":
    case "GCP":
    case "VSphere":
      return true;
    case "Azure":
      return infra.azureCloudName !== "AzureStackCloud";
    default:
      return false;
  }
}

/**
 * The MachineSet selection mode in force: the status as last written, else the spec, else the
 * platform default (All on supported platforms).
 */
export function machineSetsMode(policy: BootImagePolicyState | undefined, infra: InfrastructureState | undefined): string {
  if (policy?.machineSetsStatusMode) return policy.machineSetsStatusMode;
  if (policy?.machineSetsMode) return policy.machineSetsMode;
  return platformSupportsBootImageUpdates(infra) ? "All" : "None";
}

/** mco-behaviors.md §4.3: the first matching row wins. */
export function effectiveSkewStatus(inputs: ModeInputs): SkewEnforcementStatus {
  const { policy, infrastructure: infra } = inputs;
  const none = (rule: 2 | 3 | 4): SkewEnforcementStatus => ({ mode: "None", manualMode: "", ocpVersion: "", rhcosVersion: "", rule });
  if (policy?.skewMode === "Manual") {
    const manualMode = policy.skewManualMode === "RHCOSVersion" ? "RHCOSVersion" : "OCPVersion";
    return {
      mode: "Manual",
      manualMode,
      ocpVersion: manualMode === "OCPVersion" ? policy.skewManualOcpVersion : "",
      rhcosVersion: manualMode === "RHCOSVersion" ? policy.skewManualRhcosVersion : "",
      rule: 1,
    };
  }
  if (policy?.skewMode === "None") return none(2);
  const legacyBareMetal = inputs.bareMetalLegacyProvisioning ?? true;
  if (infra?.platform === "BareMetal" && !legacyBareMetal) return none(3);
  if (infra?.controlPlaneTopology === "SingleReplica") return none(4);
  const install = installVersion(inputs.clusterVersion);
  if (platformSupportsBootImageUpdates(infra) && machineSetsMode(policy, infra) === "All") {
    const previous = policy?.skewStatus;
    // Seeded only when entering Automatic; afterwards the bootimage-updater owns the record.
    if (previous?.mode === "Automatic" && (previous.ocpVersion || previous.rhcosVersion)) {
      return { mode: "Automatic", manualMode: "", ocpVersion: previous.ocpVersion, rhcosVersion: previous.rhcosVersion, rule: 5 };
    }
    return { mode: "Automatic", manualMode: "", ocpVersion: install, rhcosVersion: "", rule: 5 };
  }
  return { mode: "Manual", manualMode: "OCPVersion", ocpVersion: install, rhcosVersion: "", rule: 6 };
}
