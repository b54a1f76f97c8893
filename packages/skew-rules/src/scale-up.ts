import type { BootImagesState, MachineSetState } from "@lockstep/contracts";
import { checkBootImageRecord } from "@lockstep/versions";
import type { BootImageVerdict } from "./boot-image-skew.js";
import { matchMachineSetImage } from "./machine-set-image.js";
import { REASON_STATE_STALE } from "./stale.js";

/** Mirrors `CheckScaleUpResponse`, plus how the MachineSet's boot image version was known. */
export interface ScaleUpResult {
  readonly allowed: boolean;
  /** BootImageCurrent, AsExpected, NotRHCOS, SkewEnforcementNone, BootImageSkewUnchecked, BootImageTooOld or StateStale. */
  readonly reason: string;
  readonly message: string;
  /** `stream`: its image is the release's current one; `cluster-record`: the cluster boot image record. */
  readonly source: "stream" | "cluster-record" | "none";
}

const WINDOWS_OS_LABEL = "machine.openshift.io/os-id";

/**
 * The reactive check before scaling a MachineSet up. A MachineSet's boot image version is known
 * in one of two ways: when its providerSpec image is exactly the stream image of the
 * `coreos-bootimages` ConfigMap, it boots the current release's image (version = the ConfigMap's
 * releaseVersion, else the stream's RHCOS release); otherwise nothing on the object says which
 * build it is, so the cluster boot image record (the BootImagePolicy skew status, which is reset
 * to the install version whenever a MachineSet is skipped) stands for it. It is refused when that
 * version is below the current release's limit, and while the view is `stale` (why, as
 * ClusterOperator lockstep says it): the MachineSet, the ConfigMap and the record may all have
 * moved since, so "allowed" could not be vouched for — fail closed, as CheckUpgrade does.
 */
export function checkScaleUp(ms: MachineSetState, verdict: BootImageVerdict, bootImages: BootImagesState | undefined, stale?: string): ScaleUpResult {
  const name = `${ms.namespace}/${ms.name}`;
  if (stale !== undefined) {
    return {
      allowed: false,
      reason: REASON_STATE_STALE,
      message: `MachineSet ${name}: Lockstep cannot tell whether its boot image meets this release's minimum: ${stale}. Scaling up is refused until it is heard from again; check the watcher (lockstep-watcher pods, their logs and the API server).`,
      source: "none",
    };
  }
  if (ms.templateLabels[WINDOWS_OS_LABEL] === "Windows") {
    return { allowed: true, reason: "NotRHCOS", message: `MachineSet ${name} boots Windows; RHCOS boot image skew does not apply`, source: "none" };
  }
  const match = matchMachineSetImage(ms, bootImages);
  if (match.matched) {
    const record = bootImages?.releaseVersion ? { ocpVersion: bootImages.releaseVersion } : { rhcosVersion: match.rhcosRelease };
    const check = checkBootImageRecord(record, verdict.limits);
    if (check && check.kind !== "Unparsable" && check.violation) {
      return {
        allowed: false,
        reason: "BootImageTooOld",
        message: `MachineSet ${name} uses the stream image ${match.image} (${check.value}), which is below the minimum ${check.limit}; the coreos-bootimages ConfigMap is stale`,
        source: "stream",
      };
    }
    return { allowed: true, reason: "BootImageCurrent", message: `MachineSet ${name} uses the release's current boot image ${match.image}`, source: "stream" };
  }
  if (verdict.mode === "None") {
    return {
      allowed: true,
      reason: "SkewEnforcementNone",
      message: `MachineSet ${name}: boot image skew enforcement is disabled (mode None), so its boot image ${match.image || "(unknown)"} is not checked; scaling may not succeed`,
      source: "none",
    };
  }
  const check = checkBootImageRecord(verdict, verdict.limits);
  if (!check || check.kind === "Unparsable") {
    return {
      allowed: true,
      reason: "BootImageSkewUnchecked",
      message: `MachineSet ${name}: ${match.why}, and the cluster boot image record ${check ? "cannot be parsed" : "is empty"}; allowed without a check`,
      source: "cluster-record",
    };
  }
  const recorded = check.kind === "OCP" ? `OCP ${check.value}` : `RHCOS ${check.value} (RHEL ${check.comparable})`;
  if (check.violation) {
    return {
      allowed: false,
      reason: "BootImageTooOld",
      message:
        `MachineSet ${name}: ${match.why}; the cluster boot image record is ${recorded}, below the minimum ${check.limit} of this release. ` +
        `Update its boot image (enable managed boot images, or update it by hand and record the version in BootImagePolicy cluster) before scaling up`,
      source: "cluster-record",
    };
  }
  return {
    allowed: true,
    reason: "AsExpected",
    message: `MachineSet ${name}: ${match.why}; the cluster boot image record ${recorded} meets the minimum ${check.limit}`,
    source: "cluster-record",
  };
}
