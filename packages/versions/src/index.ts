// Public surface of @lockstep/versions: pure OpenShift / RHCOS version parsing and comparison, and
// the boot image skew rules built on them.
export { VersionParseError, type ParseResult } from "./errors.js";
export {
  type OcpVersion,
  parseOcpVersion,
  tryParseOcpVersion,
  formatOcpVersion,
  normaliseOcpVersion,
  majorMinor,
  compareOcpVersions,
  isPrerelease,
} from "./ocp.js";
export { type UpdateKind, type UpdateClassification, classifyUpdate } from "./classify.js";
export {
  type RhelVersion,
  type RhcosVersion,
  parseRhcosVersion,
  tryParseRhcosVersion,
  rhelOf,
  parseRhelVersion,
  tryParseRhelVersion,
  formatRhelVersion,
  compareRhelVersions,
} from "./rhcos.js";
export {
  type BootImageLimits,
  type BootImageCheck,
  UPSTREAM_BOOT_IMAGE_LIMITS,
  checkOcpBootImage,
  checkRhcosBootImage,
  checkBootImageRecord,
} from "./boot-image.js";
export {
  UNKNOWN_INSTALL_VERSION,
  type VersionHistory,
  type PlatformInfo,
  type SkewPolicyInfo,
  type SkewMode,
  type SkewEnforcementStatus,
  type SkewModeInputs,
  installVersion,
  platformSupportsBootImageUpdates,
  machineSetsMode,
  effectiveSkewStatus,
} from "./skew-mode.js";
