// A NodeRecord for the table and summary tests: the flags follow from the assessment and phase, as
// the node assessment sets them; `flags` overrides any field.
import type { NodeAssessment, NodePhase, NodeRecord } from "./model.js";
import { ZERO_TIME } from "./time.js";

export function nodeRecord(name: string, assessment: NodeAssessment, phase: NodePhase, flags: Partial<NodeRecord> = {}): NodeRecord {
  return {
    name,
    pool: "worker",
    scopeType: "WorkerPool",
    assessment,
    phase,
    version: "4.1.0",
    estimate: "?",
    message: "",
    isUpdated: phase === "Updated",
    isUpdating: assessment === "Progressing",
    isUnavailable: assessment === "Unavailable",
    isDegraded: assessment === "Degraded",
    isDraining: phase === "Draining",
    unavailableReason: "",
    unavailableSince: ZERO_TIME,
    degradedReason: "",
    ...flags,
  };
}
