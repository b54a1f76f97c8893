// Maps state-plane snapshots (lockstep.state.v1, as the watcher stores them) to the Kubernetes-shaped
// inputs of the status rules, so the aggregator evaluates exactly what the CLI evaluates offline.
import type {
  MachineConfigDaemonState,
  ClusterOperatorState,
  ClusterVersionState,
  Condition as StateCondition,
  LabelSelector as StateLabelSelector,
  MachineConfigState,
  NodeCondition,
  NodeState,
  PoolState,
} from "@lockstep/contracts";
import {
  CURRENT_CONFIG,
  CURRENT_IMAGE,
  DESIRED_CONFIG,
  DESIRED_DRAIN,
  DESIRED_IMAGE,
  LAST_APPLIED_DRAIN,
  LAYERING_ENABLED_LABEL,
  MCD_REASON,
  MCD_STATE,
  POOL_OS_IMAGE,
  RELEASE_IMAGE_VERSION,
} from "./annotations.js";
import type {
  AlertsResponse,
  ClusterOperator,
  ClusterVersion,
  Condition,
  LabelSelector,
  MachineConfig,
  MachineConfigPool,
  Node,
  StatusInputs,
} from "./types.js";

/** Timestamps of the snapshots are Dates (Kubernetes times are whole seconds, so nothing is lost). */
const time = (d: Date | undefined): string | undefined => (d === undefined ? undefined : d.toISOString());

function condition(c: StateCondition | NodeCondition): Condition {
  return { type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: time(c.lastTransitionTime) };
}

export function clusterVersionFromState(s: ClusterVersionState): ClusterVersion {
  return {
    metadata: { name: s.name },
    status: {
      conditions: s.conditions.map(condition),
      desired: s.desired ? { version: s.desired.version, image: s.desired.image } : undefined,
      history: s.history.map((h) => ({
        state: h.state,
        version: h.version,
        image: h.image,
        startedTime: time(h.startedTime),
        completionTime: time(h.completionTime),
      })),
    },
  };
}

export function clusterOperatorFromState(s: ClusterOperatorState): ClusterOperator {
  // The snapshot keeps annotation keys only; the rules test keys, never values.
  const annotations = Object.fromEntries(s.annotationKeys.map((k) => [k, ""]));
  return {
    metadata: { name: s.name, annotations },
    status: { versions: s.versions.map((v) => ({ name: v.name, version: v.version })), conditions: s.conditions.map(condition) },
  };
}

function selector(s: StateLabelSelector | undefined, present: boolean): LabelSelector | undefined {
  if (!present) return undefined;
  return {
    matchLabels: { ...(s?.matchLabels ?? {}) },
    matchExpressions: (s?.matchExpressions ?? []).map((e) => ({ key: e.key, operator: e.operator, values: [...e.values] })),
  };
}

export function poolFromState(s: PoolState): MachineConfigPool {
  const labels: Record<string, string> = { ...s.labels };
  if (s.layered && !(LAYERING_ENABLED_LABEL in labels)) labels[LAYERING_ENABLED_LABEL] = "";
  const annotations: Record<string, string> = {};
  if (s.newestImageEquivalentConfig !== "") annotations[POOL_OS_IMAGE] = s.newestImageEquivalentConfig;
  return {
    metadata: { name: s.name, labels, annotations },
    spec: { nodeSelector: selector(s.nodeSelector, s.nodeSelectorPresent), paused: s.paused, configuration: { name: s.targetConfig } },
  };
}

/**
 * The MachineConfigDaemonState fields each node annotation is built from in nodeFromState: what a
 * partial NodeState must keep for the annotations a rule reads (rule-inputs.ts). from-state.test.ts
 * checks it against nodeFromState field by field.
 */
export const ANNOTATION_SOURCES: Readonly<Record<string, readonly (keyof MachineConfigDaemonState)[]>> = {
  [CURRENT_CONFIG]: ["currentConfig"],
  [DESIRED_CONFIG]: ["desiredConfig", "desiredConfigPresent"],
  [MCD_STATE]: ["state"],
  [MCD_REASON]: ["reason"],
  [DESIRED_DRAIN]: ["desiredDrain"],
  [LAST_APPLIED_DRAIN]: ["lastAppliedDrain"],
  [CURRENT_IMAGE]: ["currentImage", "currentImagePresent"],
  [DESIRED_IMAGE]: ["desiredImage", "desiredImagePresent"],
};

export function nodeFromState(s: NodeState): Node {
  const annotations: Record<string, string> = {};
  const m = s.mco;
  if (m) {
    // Missing annotations read as "", so only the keys whose presence matters are kept absent.
    const set = (key: string, value: string): void => {
      if (value !== "") annotations[key] = value;
    };
    set(CURRENT_CONFIG, m.currentConfig);
    if (m.desiredConfigPresent || m.desiredConfig !== "") annotations[DESIRED_CONFIG] = m.desiredConfig;
    set(MCD_STATE, m.state);
    set(MCD_REASON, m.reason);
    set(DESIRED_DRAIN, m.desiredDrain);
    set(LAST_APPLIED_DRAIN, m.lastAppliedDrain);
    if (m.currentImagePresent || m.currentImage !== "") annotations[CURRENT_IMAGE] = m.currentImage;
    if (m.desiredImagePresent || m.desiredImage !== "") annotations[DESIRED_IMAGE] = m.desiredImage;
  }
  return {
    metadata: { name: s.name, labels: { ...s.labels }, annotations },
    spec: { unschedulable: s.unschedulable },
    status: { conditions: s.conditions.map(condition) },
  };
}

export function machineConfigFromState(s: MachineConfigState): MachineConfig {
  return { metadata: { name: s.name, annotations: { [RELEASE_IMAGE_VERSION]: s.releaseImageVersion } } };
}

export interface StateSnapshot {
  clusterVersion: ClusterVersionState | undefined;
  /** In the order the rules should see them (the API's: by name). */
  clusterOperators: readonly ClusterOperatorState[];
  pools: readonly PoolState[];
  nodes: readonly NodeState[];
  machineConfigs: readonly MachineConfigState[];
  /**
   * Image of the machine-config-operator container of the MCO deployment. The state plane does
   * not carry that deployment, so the caller supplies it ("" = unknown, as upstream without it).
   */
  mcoImage: string;
  alerts?: AlertsResponse | undefined;
}

export function inputsFromState(s: StateSnapshot): StatusInputs {
  return {
    clusterVersion: s.clusterVersion ? clusterVersionFromState(s.clusterVersion) : undefined,
    clusterOperators: s.clusterOperators.map(clusterOperatorFromState),
    pools: s.pools.map(poolFromState),
    nodes: s.nodes.map(nodeFromState),
    machineConfigs: s.machineConfigs.map(machineConfigFromState),
    mcoImage: s.mcoImage,
    alerts: s.alerts,
  };
}
