// The effective skew enforcement status (mco-behaviors.md §4.3), computed here because Lockstep's
// bootimage-updater writes BootImagePolicy status, the role upstream's operator sync plays. The
// skew-enforcer computes the same rows for its verdict; services share no code, so this is our own
// implementation from the spec, built on the core's installVersion.

import type { BootImagePolicyState, BootImageSkewStatus, ClusterVersionState, InfrastructureState } from "@lockstep/contracts";
import { bootImagePlatform, installVersion, type SelectionMode } from "../bootimages/index.js";

export type SkewMode = "Automatic" | "Manual" | "None";

export interface SkewStatus {
  readonly mode: SkewMode;
  /** Manual only: OCPVersion or RHCOSVersion. */
  readonly manualMode: "" | "OCPVersion" | "RHCOSVersion";
  readonly ocpVersion: string;
  readonly rhcosVersion: string;
  /** The §4.3 row that decided it (1–6), for logs. */
  readonly row: number;
}

export interface SkewModeInputs {
  readonly policy: BootImagePolicyState | undefined;
  readonly infra: InfrastructureState | undefined;
  readonly clusterVersion: ClusterVersionState | undefined;
  /** The MachineSets selection mode this pass writes into managedBootImagesStatus. */
  readonly selectionMode: SelectionMode;
}

/**
 * First matching row of §4.3 wins. Row 3 (BareMetal on the non-legacy provisioning path) needs the
 * metal3 Provisioning object, which Lockstep does not watch: as upstream with an unreadable
 * Provisioning, the cluster counts as legacy and falls through to rows 4–6.
 */
export function effectiveSkewStatus(i: SkewModeInputs): SkewStatus {
  const p = i.policy;
  if (p?.skewMode === "Manual") {
    const manualMode = p.skewManualMode === "RHCOSVersion" ? "RHCOSVersion" : "OCPVersion";
    return {
      mode: "Manual",
      manualMode,
      ocpVersion: manualMode === "OCPVersion" ? p.skewManualOcpVersion : "",
      rhcosVersion: manualMode === "RHCOSVersion" ? p.skewManualRhcosVersion : "",
      row: 1,
    };
  }
  if (p?.skewMode === "None") return { mode: "None", manualMode: "", ocpVersion: "", rhcosVersion: "", row: 2 };
  if (i.infra?.controlPlaneTopology === "SingleReplica") return { mode: "None", manualMode: "", ocpVersion: "", rhcosVersion: "", row: 4 };
  const install = installVersion(i.clusterVersion);
  if (bootImagePlatform(i.infra) && i.selectionMode === "All") {
    const prev = p?.skewStatus;
    // Seeded only when entering Automatic; afterwards the record is maintained by the boot image passes.
    if (prev?.mode === "Automatic" && (prev.ocpVersion || prev.rhcosVersion)) {
      return { mode: "Automatic", manualMode: "", ocpVersion: prev.ocpVersion, rhcosVersion: prev.rhcosVersion, row: 5 };
    }
    return { mode: "Automatic", manualMode: "", ocpVersion: install, rhcosVersion: "", row: 5 };
  }
  return { mode: "Manual", manualMode: "OCPVersion", ocpVersion: install, rhcosVersion: "", row: 6 };
}

/** The state-plane form the core's planner reads (`policy.skewStatus`). */
export function toSkewStatusState(s: SkewStatus): BootImageSkewStatus {
  return { mode: s.mode, manualMode: s.manualMode, ocpVersion: s.ocpVersion, rhcosVersion: s.rhcosVersion };
}
