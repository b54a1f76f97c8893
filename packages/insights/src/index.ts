export * from "./types.js";
export * from "./model.js";
export * from "./errors.js";
export * from "./time.js";
export * from "./duration.js";
export { pct } from "./pct.js";
export { tabwrite } from "./tabwriter.js";
export { DETAILS_VALUES, type Details, type DetailArea, parseDetails, areaEnabled } from "./details.js";
export { fixtureNow, FIXTURE_NOW_SKEW } from "./fixture-now.js";
export { evaluate } from "./evaluate.js";
export { render } from "./render.js";
export { inputsFromDocuments, listItems, mcoImageFromDeployment, InputError, type KubeDocuments } from "./kube-inputs.js";
export { timewiseComplete, estimateCompletion, baselineDuration } from "./eta.js";
export { toNodeStatusInsight, rowFromInsight, limitMessage, MESSAGE_LIMIT, PHASE_BY_REASON, type NodeStatusInsight, type InsightCondition, type ResourceRef, type InsightRow } from "./node-insight.js";
export {
  inputsFromState,
  clusterVersionFromState,
  clusterOperatorFromState,
  poolFromState,
  nodeFromState,
  machineConfigFromState,
  ANNOTATION_SOURCES,
  type StateSnapshot,
} from "./from-state.js";
// Building blocks of evaluate(), for evaluators that recompute incrementally (the status-aggregator).
export { machineConfigVersions, requireClusterInputs, completeEvaluation, type ClusterPart } from "./evaluate.js";
export { evaluateNode, ellipsizeNames, clusterContext, sameClusterContext, machineConfigVersion, NODE_STATUS_INPUTS, type ClusterContext, type NodeEvaluation, type StatusNode, type StatusPool, type StatusMachineConfig } from "./node-status.js";
export { whichPool, POOL_ASSIGNMENT_INPUTS, type AssignmentNode, type AssignmentPool } from "./assign-pools.js";
export { summarizePool, summarizePoolLazily, summarizeCountedPool, adjustCounters, countNodes, zeroCounters, poolComplete } from "./pool-summary.js";
export { nodeInsights, pausedPoolInsight, finalizeHealth } from "./health.js";
export { assessControlPlane } from "./control-plane.js";
export { alertInsights } from "./alerts.js";
export { isMultiArch } from "./history.js";
export { findCondition } from "./conditions.js";
export { poolOsImage, NODE_AVAILABILITY_INPUTS, type NodeAvailability, type AvailabilityNode, type AvailabilityPool } from "./node-availability.js";
// What the rules read, for consumers that keep or compare part of an object.
export { NODE_RULE_INPUTS, mergeInputs, nodeStateFields, poolInputsKey, type RuleInputs, type NodeStateFields, type McoField } from "./rule-inputs.js";
export type { NodeOf, PoolOf, MachineConfigOf, KeysRead } from "./reads.js";
