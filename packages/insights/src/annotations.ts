// Annotation and label keys read by the rules (spec §3.2).
const MCO = "machineconfiguration.openshift.io/";

export const CURRENT_CONFIG = `${MCO}currentConfig` as const;
export const DESIRED_CONFIG = `${MCO}desiredConfig` as const;
export const MCD_STATE = `${MCO}state` as const;
export const MCD_REASON = `${MCO}reason` as const;
export const DESIRED_DRAIN = `${MCO}desiredDrain` as const;
export const LAST_APPLIED_DRAIN = `${MCO}lastAppliedDrain` as const;
export const DESIRED_IMAGE = `${MCO}desiredImage` as const;
export const CURRENT_IMAGE = `${MCO}currentImage` as const;
export const RELEASE_IMAGE_VERSION = `${MCO}release-image-version` as const;
export const LAYERING_ENABLED_LABEL = `${MCO}layering-enabled` as const;
export const POOL_OS_IMAGE = `${MCO}newestImageEquivalentConfig` as const;

export const MCD_DONE = "Done";
export const MCD_WORKING = "Working";
export const MCD_REBOOTING = "Rebooting";
export const MCD_DEGRADED = "Degraded";
export const MCD_UNRECONCILABLE = "Unreconcilable";

export const MASTER_POOL = "master";
export const WORKER_POOL = "worker";

export const MCO_GROUP = "machineconfiguration.openshift.io";
export const CONFIG_GROUP = "config.openshift.io";
