// Spec §5: per-node flags, PHASE, ASSESSMENT, EST and MESSAGE.
import {
  CURRENT_CONFIG,
  DESIRED_CONFIG,
  DESIRED_DRAIN,
  LAST_APPLIED_DRAIN,
  MASTER_POOL,
  MCD_DEGRADED,
  MCD_DONE,
  MCD_REASON,
  MCD_REBOOTING,
  MCD_STATE,
  MCD_UNRECONCILABLE,
  MCD_WORKING,
  RELEASE_IMAGE_VERSION,
} from "./annotations.js";
import { findCondition } from "./conditions.js";
import { isMultiArch } from "./history.js";
import { assessAvailability, type AvailabilityNode, type AvailabilityPool, reasonString, unavailableSince, type NodeAvailability } from "./node-availability.js";
import type { NodeAssessment, NodePhase, NodeRecord } from "./model.js";
import { hasKey, type KeysRead, type MachineConfigOf, type NodeOf, type PoolOf, type RuleInputs } from "./reads.js";
import type { ClusterVersion } from "./types.js";

/**
 * What evaluateNode reads itself (assessAvailability declares its own); of the ClusterVersion it
 * reads only the ClusterContext, built by clusterContext() and compared by sameClusterContext().
 */
export const NODE_STATUS_INPUTS = {
  node: { annotations: [CURRENT_CONFIG, DESIRED_CONFIG, MCD_STATE, MCD_REASON, DESIRED_DRAIN, LAST_APPLIED_DRAIN] },
  pool: { configuration: true, paused: true },
  machineConfig: { annotations: [RELEASE_IMAGE_VERSION] },
} as const satisfies RuleInputs;
/** A node as evaluateNode sees it: its own reads and assessAvailability's. */
export type StatusNode = NodeOf<typeof NODE_STATUS_INPUTS> & AvailabilityNode;
export type StatusPool = PoolOf<typeof NODE_STATUS_INPUTS> & AvailabilityPool;
export type StatusMachineConfig = MachineConfigOf<typeof NODE_STATUS_INPUTS>;
type Annotations = KeysRead<(typeof NODE_STATUS_INPUTS)["node"]["annotations"][number]>;

export interface ClusterContext {
  /** history[0].version; undefined with an empty history (then nothing equals it). */
  target: string | undefined;
  migrationInProgress: boolean;
  /** MachineConfig name → release-image-version annotation ("" when missing). */
  mcVersions: ReadonlyMap<string, string>;
}

/** A MachineConfig's entry in ClusterContext.mcVersions. */
export function machineConfigVersion(mc: StatusMachineConfig): string {
  return mc.metadata.annotations?.[RELEASE_IMAGE_VERSION] ?? "";
}

/** The ClusterContext of a ClusterVersion (spec §4.1, §9.3). */
export function clusterContext(cv: ClusterVersion | undefined, mcVersions: ReadonlyMap<string, string>): ClusterContext {
  const history = cv?.status?.history ?? [];
  const progressing = findCondition(cv?.status?.conditions, "Progressing");
  return {
    target: history[0] ? (history[0].version ?? "") : undefined,
    migrationInProgress: isMultiArch(history) && progressing?.status === "True",
    mcVersions,
  };
}

/** Whether two contexts give every node the same row, mcVersions aside (the caller tracks those by name). */
export function sameClusterContext(a: ClusterContext, b: ClusterContext): boolean {
  for (const k in a) if (k !== "mcVersions" && a[k as keyof ClusterContext] !== b[k as keyof ClusterContext]) return false;
  return true;
}

export interface NodeEvaluation {
  record: NodeRecord;
  availability: NodeAvailability;
}

/** Draining: a drain was requested and not yet applied, or the node updates while the MCD still says Done. */
export function isDraining(ann: Annotations, isUpdating: boolean): boolean {
  const desired = ann[DESIRED_DRAIN] ?? "";
  const applied = ann[LAST_APPLIED_DRAIN] ?? "";
  if (desired === "" || applied === "") return false;
  if (desired !== applied && desired.split("-")[0] === "drain") return true;
  return isUpdating && ann[MCD_STATE] === MCD_DONE;
}

export function calculatePhase(isUpdating: boolean, draining: boolean, isUpdated: boolean, paused: boolean, state: string): NodePhase {
  if (isUpdating && draining) return "Draining";
  if (isUpdating) {
    if (state === MCD_WORKING) return "Updating";
    if (state === MCD_REBOOTING) return "Rebooting";
    if (state === MCD_DONE) return "Updated";
    return "Updating";
  }
  if (isUpdated) return "Updated";
  if (paused) return "Paused";
  return "Pending";
}

const BASE: Record<NodePhase, { assessment: NodeAssessment; estimate: string }> = {
  Paused: { assessment: "Excluded", estimate: "-" },
  Pending: { assessment: "Outdated", estimate: "?" },
  Draining: { assessment: "Progressing", estimate: "+10m" },
  Updating: { assessment: "Progressing", estimate: "+5m" },
  Rebooting: { assessment: "Progressing", estimate: "+5m" },
  Updated: { assessment: "Completed", estimate: "-" },
};

/** Replaces the node name by `<node>` when the name has at least 8 characters. */
export function ellipsizeNames(message: string, name: string): string {
  if (name.length < 8 || message === "") return message;
  return message.split(name).join("<node>");
}

export function evaluateNode(node: StatusNode, pool: StatusPool, ctx: ClusterContext): NodeEvaluation {
  const ann: Annotations = node.metadata.annotations ?? {};
  const name = node.metadata.name;
  const lookup = (mc: string): { version: string; found: boolean } => {
    const version = ctx.mcVersions.get(mc) ?? "";
    return { version, found: version !== "" };
  };
  const currentConfig = ann[CURRENT_CONFIG] ?? "";
  const desiredConfig = ann[DESIRED_CONFIG] ?? "";
  const current = lookup(currentConfig);
  const desired = lookup(desiredConfig);
  const hasDesired = hasKey(ann, DESIRED_CONFIG);
  const configsMatch = currentConfig === desiredConfig;
  const desiredIsPoolTarget = desiredConfig === (pool.spec?.configuration?.name ?? "");
  const equalsTarget = (v: string): boolean => ctx.target !== undefined && v === ctx.target;

  const availability = assessAvailability(node, pool);
  const state = ann[MCD_STATE] ?? "";
  const isDegraded = desiredConfig !== "" && (state === MCD_DEGRADED || state === MCD_UNRECONCILABLE);
  const isUpdated =
    current.found &&
    equalsTarget(current.version) &&
    (!ctx.migrationInProgress || !hasDesired || (configsMatch && desiredIsPoolTarget));
  const isUpdating =
    !isUpdated && current.found && desired.found && equalsTarget(desired.version) && !configsMatch && desiredIsPoolTarget;
  const draining = isDraining(ann, isUpdating);
  const phase = calculatePhase(isUpdating, draining, isUpdated, pool.spec?.paused === true, state);

  let { assessment, estimate } = BASE[phase];
  let message = "";
  if (availability.isUnavailable && !isUpdating) {
    assessment = "Unavailable";
    message = reasonString(availability.reasons);
    estimate = isUpdated ? "-" : "?";
  }
  const degradedReason = ann[MCD_REASON] ?? "";
  if (isDegraded) {
    assessment = "Degraded";
    message = degradedReason;
    estimate = isUpdated ? "-" : "?";
  }

  const poolName = pool.metadata.name;
  return {
    availability,
    record: {
      name,
      pool: poolName,
      scopeType: poolName === MASTER_POOL ? "ControlPlane" : "WorkerPool",
      assessment,
      phase,
      version: current.version,
      estimate,
      message: ellipsizeNames(message, name),
      isUpdated,
      isUpdating,
      isUnavailable: availability.isUnavailable,
      isDegraded,
      isDraining: draining,
      unavailableReason: reasonString(availability.reasons),
      unavailableSince: unavailableSince(availability.reasons),
      degradedReason,
    },
  };
}
