import type { Condition } from "@lockstep/contracts";
import { type BootImageCheck, type BootImageLimits, checkBootImageRecord, majorMinor, type SkewEnforcementStatus, type SkewMode, tryParseOcpVersion } from "@lockstep/versions";
import { findCondition } from "./conditions.js";
import { bootImageDegradedMessage, bootImageSkewMessage, ocpSkewDetail, rhcosSkewDetail } from "./messages.js";
import { bootImageLimitsFor, type SkewSettings } from "./settings.js";

export type BootImageOutcome = "Violation" | "WithinLimit" | "NoVerdict";

/** Why there is no verdict. */
export type NoVerdictCause = "ModeNone" | "UpdateProgressing" | "NothingRecorded" | "Unparsable";

export interface BootImageVerdict {
  readonly mode: SkewMode;
  readonly ocpVersion: string;
  readonly rhcosVersion: string;
  /** The limits of the current release that were applied. */
  readonly limits: BootImageLimits;
  readonly outcome: BootImageOutcome;
  readonly noVerdictCause?: NoVerdictCause;
  readonly check?: BootImageCheck;
  /** Message A or B for a violation; "" otherwise. */
  readonly message: string;
  /** Set when the record cannot be parsed (§4.6: no verdict, but never silently). */
  readonly warning: string;
  /** `mcc_boot_image_skew_enforcement_none`: 1 when mode None on a cluster neither single-node nor BareMetal. */
  readonly enforcementNoneMetric: 0 | 1;
}

export interface BootImageSkewInputs {
  readonly status: SkewEnforcementStatus;
  /** Conditions of BootImagePolicy `cluster` (BootImageUpdateProgressing / BootImageUpdateDegraded). */
  readonly policyConditions: readonly Condition[];
  /** The running release (ClusterVersion status.desired.version): its limits apply. */
  readonly currentVersion: string;
  /** `<X.Y>` of the documentation link (see `docsMinor`). */
  readonly docsMinor: string;
  readonly settings: SkewSettings;
  readonly platform: string;
  readonly controlPlaneTopology: string;
}

function unparsableWarning(check: Extract<BootImageCheck, { kind: "Unparsable" }>): string {
  return `Boot image skew was not checked: the recorded ${check.field} boot image version ${JSON.stringify(check.value)} cannot be parsed (${check.problem}); record a valid version on BootImagePolicy cluster`;
}

function violationMessage(check: BootImageCheck, docsMinor: string): string {
  if (check.kind === "OCP") return bootImageSkewMessage(ocpSkewDetail(check.value, check.limit), docsMinor);
  if (check.kind === "RHCOS") return bootImageSkewMessage(rhcosSkewDetail(check.value, check.comparable, check.limit), docsMinor);
  return "";
}

/** mco-behaviors.md §4.6–4.7 against the limits of the current release. */
export function evaluateBootImageSkew(inputs: BootImageSkewInputs): BootImageVerdict {
  const { status } = inputs;
  const limits = bootImageLimitsFor(inputs.settings, inputs.currentVersion);
  const base = {
    mode: status.mode,
    ocpVersion: status.ocpVersion,
    rhcosVersion: status.rhcosVersion,
    limits,
    message: "",
    warning: "",
    enforcementNoneMetric: 0 as 0 | 1,
  };
  if (status.mode === "None") {
    const metric = inputs.controlPlaneTopology !== "SingleReplica" && inputs.platform !== "BareMetal" ? 1 : 0;
    return { ...base, outcome: "NoVerdict", noVerdictCause: "ModeNone", enforcementNoneMetric: metric };
  }
  if (status.mode === "Automatic") {
    const degraded = findCondition(inputs.policyConditions, "BootImageUpdateDegraded");
    if (degraded?.status === "True") {
      return { ...base, outcome: "Violation", message: bootImageDegradedMessage(degraded.message) };
    }
    const progressing = findCondition(inputs.policyConditions, "BootImageUpdateProgressing");
    if (!progressing || progressing.status === "True") return { ...base, outcome: "NoVerdict", noVerdictCause: "UpdateProgressing" };
  }
  const check = checkBootImageRecord(status, limits);
  if (!check) return { ...base, outcome: "NoVerdict", noVerdictCause: "NothingRecorded" };
  if (check.kind === "Unparsable") return { ...base, outcome: "NoVerdict", noVerdictCause: "Unparsable", check, warning: unparsableWarning(check) };
  if (check.violation) return { ...base, outcome: "Violation", check, message: violationMessage(check, inputs.docsMinor) };
  return { ...base, outcome: "WithinLimit", check };
}

/**
 * Lockstep's proactive check (§4.6): would the record violate the limits of a proposed target
 * release? Returns a warning, or undefined when the target's limits are met or cannot be judged.
 */
export function targetBootImageWarning(verdict: BootImageVerdict, targetVersion: string, settings: SkewSettings): string | undefined {
  if (verdict.mode === "None" || !tryParseOcpVersion(targetVersion).ok) return undefined;
  const limits = bootImageLimitsFor(settings, targetVersion);
  const check = checkBootImageRecord(verdict, limits);
  if (!check || check.kind === "Unparsable" || !check.violation) return undefined;
  const recorded = check.kind === "OCP" ? `OCP boot image version ${check.value}` : `RHCOS boot image version ${check.value} (RHEL ${check.comparable})`;
  return (
    `The cluster boot image (${recorded}) is below the limit ${check.limit} of the target release ${majorMinor(targetVersion)}: ` +
    `after this update upgrades will be disabled and new machines may fail to join until the boot images are updated`
  );
}
