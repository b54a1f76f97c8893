// Rule and action shapes of lockstep.io/v1alpha1 NodeDisruptionPolicy, mirroring upstream's
// spec.nodeDisruptionPolicy / status.nodeDisruptionPolicyStatus.clusterPolicies (mco-behaviors.md §2.2).

export const ACTION_TYPES = ["Reboot", "Drain", "Reload", "Restart", "DaemonReload", "None", "Special"] as const;
export type NdpActionType = (typeof ACTION_TYPES)[number];

/** Action types an admin may write; `Special` is reserved for the shipped defaults. */
export const SPEC_ACTION_TYPES = ["Reboot", "Drain", "Reload", "Restart", "DaemonReload", "None"] as const;

export interface ServiceRef {
  serviceName: string;
}

export interface NdpAction {
  type: NdpActionType;
  /** Present exactly when type is Reload. */
  reload?: ServiceRef;
  /** Present exactly when type is Restart. */
  restart?: ServiceRef;
}

export interface FileRule {
  path: string;
  actions: NdpAction[];
}

export interface UnitRule {
  name: string;
  actions: NdpAction[];
}

export interface SshKeyRule {
  actions: NdpAction[];
}

/** `spec` of a NodeDisruptionPolicy object. */
export interface NodeDisruptionPolicySpec {
  files?: FileRule[];
  units?: UnitRule[];
  sshkey?: SshKeyRule;
}

export interface ObjectMeta {
  name: string;
  uid?: string;
  generation?: number;
  labels?: Record<string, string>;
}

export interface NodeDisruptionPolicy {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec: NodeDisruptionPolicySpec;
}

/** Where an effective rule came from, for traces and `lockstep policies`. */
export interface RuleSource {
  /** Name of the NodeDisruptionPolicy object. */
  policy: string;
  /** True when the object carries the label lockstep.io/default=true. */
  default: boolean;
  /** Field path inside that object, e.g. `spec.files[3]`. */
  rule: string;
}

export interface EffectiveFileRule extends FileRule {
  source: RuleSource;
}
export interface EffectiveUnitRule extends UnitRule {
  source: RuleSource;
}
export interface EffectiveSshKeyRule extends SshKeyRule {
  source: RuleSource;
}

/**
 * The merged rule set the engine evaluates: upstream's clusterPolicies, with provenance.
 * Order of `files` and `units` matters for tie-breaking (§2.6).
 */
export interface EffectiveRules {
  files: EffectiveFileRule[];
  units: EffectiveUnitRule[];
  /** Absent only when no object sets one; a passwd change then has no rule and reboots. */
  sshkey?: EffectiveSshKeyRule;
}

/** Label that marks the shipped upstream defaults. */
export const DEFAULT_POLICY_LABEL = "lockstep.io/default";
export const POLICY_API_VERSION = "lockstep.io/v1alpha1";
export const POLICY_KIND = "NodeDisruptionPolicy";

/** A rule of one policy overridden by another's for the same file, unit or SSH keys. */
export interface MergeConflict {
  kind: "file" | "unit" | "sshkey";
  /** Path, unit name, or `sshkey`. */
  key: string;
  overridden: RuleSource;
  by: RuleSource;
  message: string;
}
