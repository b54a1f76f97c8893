export * from "./types.js";
export * from "./model.js";
export * from "./errors.js";
export * from "./time.js";
export * from "./duration.js";
export { pct } from "./pct.js";
export { tabwrite } from "./tabwriter.js";
export { DETAILS_VALUES, type Details, type DetailArea, parseDetails, areaEnabled } from "./details.js";
export { fixtureNow, FIXTURE_NOW_SKEW } from "./fixtureNow.js";
export { evaluate } from "./evaluate.js";
export { render } from "./render.js";
export { inputsFromDocuments, listItems, mcoImageFromDeployment, InputError, type KubeDocuments } from "./kubeInputs.js";
export { timewiseComplete, estimateCompletion, baselineDuration } from "./eta.js";
export { toNodeStatusInsight, rowFromInsight, limitMessage, MESSAGE_LIMIT, type NodeStatusInsight, type InsightCondition, type ResourceRef, type InsightRow } from "./nodeInsight.js";
export {
  inputsFromState,
  clusterVersionFromState,
  clusterOperatorFromState,
  poolFromState,
  nodeFromState,
  machineConfigFromState,
  type StateSnapshot,
} from "./fromState.js";
// Building blocks of evaluate(), for evaluators that recompute incrementally (the status-aggregator).
export { machineConfigVersions } from "./evaluate.js";
export { evaluateNode, type ClusterContext, type NodeEvaluation } from "./nodeStatus.js";
export { whichPool } from "./assignPools.js";
export { summarizePool, summarizePoolLazily, summarizeCountedPool, adjustCounters, countNodes, zeroCounters, poolComplete } from "./poolSummary.js";
export { nodeInsights, pausedPoolInsight, finalizeHealth } from "./health.js";
export { assessControlPlane } from "./controlPlane.js";
export { alertInsights } from "./alerts.js";
export { isMultiArch } from "./history.js";
export { findCondition } from "./conditions.js";
export { poolOsImage, type NodeAvailability } from "./nodeAvailability.js";
