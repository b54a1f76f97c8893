// Annotation, label and condition literals (mco-behaviors.md §1.1, Appendix A).
const P = "machineconfiguration.openshift.io/";
export const A = {
  currentConfig: `${P}currentConfig`,
  desiredConfig: `${P}desiredConfig`,
  state: `${P}state`,
  reason: `${P}reason`,
  desiredDrain: `${P}desiredDrain`,
  lastAppliedDrain: `${P}lastAppliedDrain`,
  postConfigAction: `${P}post-config-action`,
  controlPlaneTopology: `${P}controlPlaneTopology`,
  releaseImageVersion: `${P}release-image-version`,
  generatedByControllerVersion: `${P}generated-by-controller-version`,
} as const;

export const MCD = { done: "Done", working: "Working", degraded: "Degraded", unreconcilable: "Unreconcilable", rebooting: "Rebooting" } as const;

export const ROLE_LABEL = (role: string) => `node-role.kubernetes.io/${role}`;
export const ZONE_LABEL = "topology.kubernetes.io/zone";
export const REQUIRED_FOR_UPGRADE = "operator.machineconfiguration.openshift.io/required-for-upgrade";
/** Labels the simulator puts on what it creates, so it can find (and clean) its own objects. */
export const SIM_LABEL = "sim.lockstep.io/managed";
export const SIM_WORKLOAD_LABEL = "sim.lockstep.io/workload";
export const MCO_NAMESPACE = "openshift-machine-config-operator";
export const MACHINE_API_NAMESPACE = "openshift-machine-api";
/** Controller hash written on rendered configs (any stable 40-hex value). */
export const MCO_CONTROLLER_VERSION = "5ac7b4ae0bca76358e4d40f546306775a8e0ea2c";
