// Literal upstream texts (mco-behaviors.md §4.7, §5.2). Kept byte-exact; tests pin them.

export const REASON_AS_EXPECTED = "AsExpected";
export const REASON_DEGRADED_POOL = "DegradedPool";
export const REASON_INTERRUPTED_BUILD = "InterruptedBuild";
export const REASON_POOL_UPDATING = "PoolUpdating";
/** Lockstep-specific (§5.6 rule 2). */
export const REASON_PAUSED_POOL_LAGGING = "PausedPoolLagging";
export const REASON_BOOT_IMAGE_SKEW = "ClusterBootImageSkewError";
/**
 * Lockstep-specific warning reason (status stays True) for a boot image record that cannot be
 * parsed: §4.6 asks for a warning instead of upstream's silent pass. Modelled on upstream's
 * `KubeletSkewUnchecked`.
 */
export const REASON_BOOT_IMAGE_SKEW_UNCHECKED = "ClusterBootImageSkewUnchecked";

export const MSG_DEGRADED_POOL =
  "One or more machine config pools are degraded, please see `oc get mcp` for further details and resolve before upgrading";
export const MSG_POOL_UPDATING = "One or more machine config pools are updating, please see `oc get mcp` for further details";
export const MSG_INTERRUPTED_BUILD =
  "One or more machine config pools' builds have been interrupted, please see `oc get mcp` for further details and resolve before upgrading";

/** Message A. */
export function bootImageDegradedMessage(degradedMessage: string): string {
  return `Upgrades have been disabled due to boot image update failures: boot image controller is degraded: ${degradedMessage}`;
}

/** Message B. */
export function bootImageSkewMessage(detail: string, docsMinor: string): string {
  return (
    `Upgrades have been disabled because ${detail}. To enable upgrades, please update your boot images or disable ` +
    `boot image skew enforcement by following the documentation at ` +
    `https://docs.redhat.com/en/documentation/openshift_container_platform/${docsMinor}/html/machine_configuration/mco-update-boot-skew-mgmt`
  );
}

export function ocpSkewDetail(version: string, limit: string): string {
  return `the cluster is using OCP boot image version ${version}, which is below the minimum required version ${limit}`;
}

/** No space before `(RHEL version:` — an upstream literal. */
export function rhcosSkewDetail(version: string, rhel: string, limit: string): string {
  return `the cluster is using RHCOS boot image version ${version}(RHEL version: ${rhel}), which is below the minimum required RHEL version ${limit}`;
}
