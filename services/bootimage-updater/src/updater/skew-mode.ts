// The effective skew enforcement status (mco-behaviors.md §4.3) for the BootImagePolicy status this
// service writes (the role upstream's operator sync plays). The rule itself lives in
// @lockstep/versions, shared with the skew-enforcer, which judges upgrades by the same status.
import type { BootImageSkewStatus } from "@lockstep/contracts";
import type { SkewEnforcementStatus } from "@lockstep/versions";

export type SkewStatus = SkewEnforcementStatus;

/** The state-plane form the core's planner reads (`policy.skewStatus`). */
export function toSkewStatusState(s: SkewStatus): BootImageSkewStatus {
  return { mode: s.mode, manualMode: s.manualMode, ocpVersion: s.ocpVersion, rhcosVersion: s.rhcosVersion };
}
