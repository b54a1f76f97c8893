import { compareOcpVersions, formatOcpVersion, parseOcpVersion, tryParseOcpVersion } from "./ocp.js";
import { compareRhelVersions, formatRhelVersion, parseRhelVersion, tryParseRhcosVersion } from "./rhcos.js";

/** The boot image skew limits a release enforces (mco-behaviors.md §4.6). */
export interface BootImageLimits {
  /** Lowest OCP boot image version, `x.y.z`. */
  readonly ocpVersion: string;
  /** Lowest RHEL `major.minor` an RHCOS boot image may be built on. */
  readonly rhelVersion: string;
}

/** Upstream's compiled-in limits (release-4.22 to 5.0 and main): OCP's first RHEL 9 release. */
export const UPSTREAM_BOOT_IMAGE_LIMITS: BootImageLimits = Object.freeze({ ocpVersion: "4.13.0", rhelVersion: "9.2" });

/** Outcome of comparing one recorded boot image version with a limit. */
export type BootImageCheck =
  | { readonly kind: "OCP"; readonly value: string; readonly comparable: string; readonly limit: string; readonly violation: boolean }
  | { readonly kind: "RHCOS"; readonly value: string; readonly comparable: string; readonly limit: string; readonly violation: boolean }
  /** Upstream logs and ignores these; Lockstep reports them as "no verdict" with a warning. */
  | { readonly kind: "Unparsable"; readonly field: "OCP" | "RHCOS"; readonly value: string; readonly problem: string };

/** An OCP boot image version against the OCP limit: a violation is strictly below it. */
export function checkOcpBootImage(value: string, limit: string): BootImageCheck {
  const limitVersion = parseOcpVersion(limit); // limits are validated configuration: throwing is right
  const parsed = tryParseOcpVersion(value);
  if (!parsed.ok) return { kind: "Unparsable", field: "OCP", value, problem: parsed.error.message };
  return {
    kind: "OCP",
    value,
    comparable: formatOcpVersion(parsed.value),
    limit: formatOcpVersion(limitVersion),
    violation: compareOcpVersions(parsed.value, limitVersion) < 0,
  };
}

/** An RHCOS boot image version (either scheme) against the RHEL limit, comparing RHEL major.minor. */
export function checkRhcosBootImage(value: string, rhelLimit: string): BootImageCheck {
  const limit = parseRhelVersion(rhelLimit);
  const parsed = tryParseRhcosVersion(value);
  if (!parsed.ok) return { kind: "Unparsable", field: "RHCOS", value, problem: parsed.error.message };
  return {
    kind: "RHCOS",
    value,
    comparable: formatRhelVersion(parsed.value.rhel),
    limit: formatRhelVersion(limit),
    violation: compareRhelVersions(parsed.value.rhel, limit) < 0,
  };
}

/**
 * Upstream's `checkBootImageSkew` choice: when an OCP version is recorded it alone is compared,
 * otherwise the RHCOS version. Returns undefined when neither is recorded.
 */
export function checkBootImageRecord(
  record: { readonly ocpVersion?: string; readonly rhcosVersion?: string },
  limits: BootImageLimits,
): BootImageCheck | undefined {
  if (record.ocpVersion) return checkOcpBootImage(record.ocpVersion, limits.ocpVersion);
  if (record.rhcosVersion) return checkRhcosBootImage(record.rhcosVersion, limits.rhelVersion);
  return undefined;
}
