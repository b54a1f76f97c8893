// Boot image skew enforcement mode (mco-behaviors.md §4.3) and the install version it is seeded
// with. The bootimage-updater writes this status and the skew-enforcer judges by it, so both read it
// from here: two implementations could disagree on a cluster and block an upgrade that the other
// considers fine. Inputs are structural (the state-plane messages fit them) to keep this package free
// of the contracts.
import { normaliseOcpVersion, tryParseOcpVersion } from "./ocp.js";

/** Deliberately a violation of every limit (§4.3): what an unknown install version counts as. */
export const UNKNOWN_INSTALL_VERSION = "0.0.0";

export interface VersionHistory {
  readonly history: ReadonlyArray<{ readonly state: string; readonly version: string }>;
}

/**
 * The install version: the oldest `Completed` history entry (history is newest first), else the
 * oldest entry, normalised to x.y.z; `0.0.0` when ClusterVersion is missing or unparsable.
 */
export function installVersion(cv: VersionHistory | undefined): string {
  const history = cv?.history ?? [];
  if (history.length === 0) return UNKNOWN_INSTALL_VERSION;
  let entry = history[history.length - 1];
  for (let i = history.length - 1; i >= 0; i--) {
    if (history[i]!.state === "Completed") {
      entry = history[i];
      break;
    }
  }
  const parsed = tryParseOcpVersion(entry?.version ?? "");
  return parsed.ok ? normaliseOcpVersion(parsed.value) : UNKNOWN_INSTALL_VERSION;
}

export interface PlatformInfo {
  readonly platform: string;
  readonly azureCloudName?: string;
  readonly controlPlaneTopology?: string;
}

/** Platforms whose MachineSets get boot image updates (mco-behaviors.md §3.2). */
export function platformSupportsBootImageUpdates(infra: PlatformInfo | undefined): boolean {
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

export interface SkewPolicyInfo {
  readonly skewMode: string;
  readonly skewManualMode: string;
  readonly skewManualOcpVersion: string;
  readonly skewManualRhcosVersion: string;
  readonly skewStatus?: { readonly mode: string; readonly ocpVersion: string; readonly rhcosVersion: string } | undefined;
  readonly machineSetsMode: string;
  readonly machineSetsStatusMode: string;
}

/**
 * The MachineSet selection mode in force: the status as last written, else the spec, else the
 * platform default (All on supported platforms).
 */
export function machineSetsMode(policy: SkewPolicyInfo | undefined, infra: PlatformInfo | undefined): string {
  if (policy?.machineSetsStatusMode) return policy.machineSetsStatusMode;
  if (policy?.machineSetsMode) return policy.machineSetsMode;
  return platformSupportsBootImageUpdates(infra) ? "All" : "None";
}

export type SkewMode = "Automatic" | "Manual" | "None";

/** The effective skew enforcement status (upstream's `status.bootImageSkewEnforcementStatus`). */
export interface SkewEnforcementStatus {
  readonly mode: SkewMode;
  /** Manual only: `OCPVersion` or `RHCOSVersion`. */
  readonly manualMode: "" | "OCPVersion" | "RHCOSVersion";
  readonly ocpVersion: string;
  readonly rhcosVersion: string;
  /** Which §4.3 row decided the mode (1–6), for logs and reports. */
  readonly rule: 1 | 2 | 3 | 4 | 5 | 6;
}

export interface SkewModeInputs {
  readonly policy: SkewPolicyInfo | undefined;
  readonly infrastructure: PlatformInfo | undefined;
  readonly clusterVersion: VersionHistory | undefined;
  /**
   * BareMetal only: `Provisioning/provisioning-configuration` has a non-empty
   * `spec.provisioningOSDownloadURL`. Undefined (not watched, or unreadable) counts as legacy, as upstream.
   */
  readonly bareMetalLegacyProvisioning?: boolean | undefined;
  /**
   * The MachineSet selection mode being written in the same pass (the bootimage-updater knows it
   * before the status shows it); otherwise `machineSetsMode(policy, infrastructure)`.
   */
  readonly selectionMode?: string | undefined;
}

/** mco-behaviors.md §4.3: the first matching row wins. */
export function effectiveSkewStatus(inputs: SkewModeInputs): SkewEnforcementStatus {
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
  const selection = inputs.selectionMode ?? machineSetsMode(policy, infra);
  if (platformSupportsBootImageUpdates(infra) && selection === "All") {
    const previous = policy?.skewStatus;
    // Seeded only when entering Automatic; afterwards the bootimage-updater maintains the record.
    if (previous?.mode === "Automatic" && (previous.ocpVersion || previous.rhcosVersion)) {
      return { mode: "Automatic", manualMode: "", ocpVersion: previous.ocpVersion, rhcosVersion: previous.rhcosVersion, rule: 5 };
    }
    return { mode: "Automatic", manualMode: "", ocpVersion: install, rhcosVersion: "", rule: 5 };
  }
  return { mode: "Manual", manualMode: "OCPVersion", ocpVersion: install, rhcosVersion: "", rule: 6 };
}
