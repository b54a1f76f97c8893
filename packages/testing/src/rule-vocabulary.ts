// The one value vocabulary of the property tests that compare an optimised path with a full
// evaluation of the status and skew rules: for each state-plane field (by name), values the rules
// tell apart, so an arbitrary change is seldom a no-op and crosses the rules' boundaries. Field names
// only: this package stays free of the contracts. A rule that starts telling a new value apart adds
// it here, and every such property test draws it.
import type { Vocabulary } from "./field-changes.js";

const d = (s: string): Date => new Date(s);

/** Values a string field takes, by field name. */
function words(key: string | number | undefined): readonly string[] {
  switch (key) {
    case "currentConfig":
    case "desiredConfig":
    case "targetConfig":
      return ["rendered-worker-old", "rendered-worker-new", "rendered-infra-new", "rendered-master-new", ""];
    case "state":
      return ["Done", "Working", "Rebooting", "Degraded", "Unreconcilable", "Completed", "Partial", ""];
    case "status":
      return ["True", "False", "Unknown"];
    case "operator":
      // Valid operators only: an invalid selector makes pool assignment throw on both paths alike.
      return ["In", "NotIn", "Exists", "DoesNotExist"];
    case "type":
      return ["Ready", "DiskPressure", "NetworkUnavailable", "MemoryPressure", "PIDPressure", "Progressing", "Failing", "Degraded", "BuildInterrupted", "Updating"];
    case "version":
    case "releaseImageVersion":
      return ["4.15.3", "4.16.1", "4.17.0", ""];
    case "image":
    case "currentImage":
    case "desiredImage":
    case "newestImageEquivalentConfig":
      return ["img-a", "img-b", ""];
    case "desiredDrain":
    case "lastAppliedDrain":
      return ["drain-1", "uncordon-1", "drain-2", ""];
    case "controlPlaneTopology":
      return ["HighlyAvailable", "SingleReplica", ""];
    default:
      return ["", "x", "img-a", "failed to drain node: PDB", "node worker-1 is down"];
  }
}

/** Label keys a change sets or deletes: the pools' role selectors, the rules' own labels, and one no rule reads. */
export const RULE_LABEL_KEYS = [
  "node-role.kubernetes.io/worker",
  "node-role.kubernetes.io/infra",
  "node-role.kubernetes.io/master",
  "machineconfiguration.openshift.io/layering-enabled",
  "operator.machineconfiguration.openshift.io/required-for-upgrade",
  "zone",
] as const;

/** Timestamps around the rules' thresholds (a minute, five minutes) before 2024-03-01T12:00:00Z. */
export const RULE_DATES: readonly Date[] = [d("2024-03-01T10:00:00Z"), d("2024-03-01T11:00:00Z"), d("2024-03-01T11:59:30Z"), d("2024-03-01T11:57:00Z")];

export const RULE_VOCABULARY: Vocabulary = { words, maps: new Set(["labels", "matchLabels"]), mapKeys: RULE_LABEL_KEYS, dates: RULE_DATES };
