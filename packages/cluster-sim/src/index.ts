// @lockstep/cluster-sim: an OpenShift-like cluster generator and update simulator that drives any
// Kubernetes API server (kube-sim by default) over plain JSON HTTP (@lockstep/kube: lists, watches, writes).
export { parseClusterSpec, maxUnavailableCount, SpecError, PLATFORMS, type ClusterSpec, type PoolSpec, type WorkloadSpec, type Platform } from "./spec.js";
export { DEMO_SPEC, onDemoRelease } from "./demo-spec.js";
export { generateCluster, poolRolesOf, type GeneratedCluster } from "./generate/cluster.js";
export { coreosStream, bootImagesConfigMap, amiId } from "./generate/bootimages.js";
export { OPERATORS } from "./generate/operators.js";
export { releaseImage, renderedName, rhcosRelease, kubeVersion, sameMinor } from "./release.js";
export { startSimulation, FAILURE_KINDS, type Simulation, type SimulationOptions, type FailureKind } from "./simulation.js";
export { noopLeaser, LocalLeaser, type NodeLeaser, type DisruptionKind, type PreemptionHandler } from "./leaser.js";
export { DEFAULT_TIMING, mergeTiming, type Timing, type Stage } from "./timing.js";
export { snapshotOf, writeSnapshot, listDocument, snapshotDocuments, SNAPSHOT_PARTS, type ClusterSnapshot } from "./snapshot.js";
export { cvoStep, aggregateUpgradeable, preconditionMessage, upgradeableBlockers } from "./actors/cvo.js";
export { computePoolStatus, planPool, poolCounters, assignPools, unavailable } from "./actors/pool-status.js";
export { daemonStage, daemonStageTiming, drainStage, drainTimeoutReason } from "./actors/daemon.js";
export { applyObjects, KubeWriter } from "./kube.js";
export { TimerWheel } from "./timers.js";
export { scaledClock, type SimClock } from "./clock.js";
export type { KubeObject } from "./types.js";
export type { SimLogger, LeaseMode } from "./context.js";
export { MCO_CONTROLLER_SA, MCO_DAEMON_SA, serviceAccountUser } from "./mco-identity.js";
export { passTargets, requeueAfter } from "./actors/rollout.js";
export { loadScenario, parseScenario, scenariosDir, WAIT_CONDITIONS, type Scenario, type Step, type Assertion, type WaitCondition } from "./scenario.js";
export { runScenario, condition, checkAssertion, type RunOptions, type RunResult } from "./runner.js";
export { kubeConfigForUrl, loadKubeConfig } from "@lockstep/kube/client-node";
// The pure cores the rehearsal (@lockstep/rehearse) drives in virtual time, without the HTTP loops.
export { daemonWrite, uncordonWrite, atSafePoint, type DaemonStage, type DrainStage, type StageWrite } from "./actors/daemon.js";
export { sameStatus, done as nodeDone } from "./actors/pool-status.js";
export { stageSeconds } from "./timing.js";
export { nodeInfo } from "./generate/nodes.js";
export { clusterOperator, MACHINE_CONFIG_OPERATOR } from "./generate/operators.js";
export { A as MCO_ANNOTATIONS, MCD as MCD_STATES } from "./constants.js";
export { setCondition, conditionOf, type Condition } from "./types.js";
