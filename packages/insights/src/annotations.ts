// Annotation and label keys read by the rules (spec §3.2).
const MCO = "machineconfiguration.openshift.io/";

export const CURRENT_CONFIG = `${MCO}currentConfig`;
export const DESIRED_CONFIG = `${MCO}desiredConfig`;
export const MCD_STATE = `${MCO}state`;
export const MCD_REASON = `${MCO}reason`;
export const DESIRED_DRAIN = `${MCO}desiredDrain`;
export const LAST_APPLIED_DRAIN = `${MCO}lastAppliedDrain`;
export const DESIRED_IMAGE = `${MCO}desiredImage`;
export const CURRENT_IMAGE = `${MCO}currentImage`;
export const RELEASE_IMAGE_VERSION = `${MCO}release-image-version`;
export const LAYERING_ENABLED_LABEL = `${MCO}layering-enabled`;
export const POOL_OS_IMAGE = `${MCO}newestImageEquivalentConfig`;

export const MCD_DONE = "Done";
export const MCD_WORKING = "Working";
export const MCD_REBOOTING = "Rebooting";
export const MCD_DEGRADED = "Degraded";
export const MCD_UNRECONCILABLE = "Unreconcilable";

export const MASTER_POOL = "master";
export const WORKER_POOL = "worker";

export const MCO_GROUP = "machineconfiguration.openshift.io";
export const CONFIG_GROUP = "config.openshift.io";
