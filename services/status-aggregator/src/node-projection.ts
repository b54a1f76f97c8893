// What the aggregator keeps of a node snapshot (StateCache's `project` option): the fields the
// status rules (via nodeFromState) and the preview read, in a NodeState with the rest left empty.
// At 10,000 nodes the decoded snapshots were the largest part of the aggregator's heap, and the
// cache also kept each one's bytes. Pure, returns plain data.
import type { MachineConfigDaemonState, NodeCondition, NodeState } from "@lockstep/contracts";

/** The node conditions the rules read (nodeAvailability); the order among them is kept. */
const READ_CONDITIONS = new Set(["Ready", "DiskPressure", "NetworkUnavailable"]);

/**
 * One Date per distinct transition time: nodes' conditions mostly share a few, and each Date costs
 * ~100 bytes. Bounded: cleared when full (a miss only costs a new Date). Shared Dates are safe
 * because a projection is never mutated.
 */
const DATES_MAX = 4096;
const dates = new Map<number, Date>();
function sharedDate(d: Date | undefined): Date | undefined {
  if (d === undefined) return undefined;
  const t = d.getTime();
  let shared = dates.get(t);
  if (!shared) {
    if (dates.size >= DATES_MAX) dates.clear();
    dates.set(t, (shared = d));
  }
  return shared;
}

const NO_ROLES: string[] = [];

function projectMco(m: MachineConfigDaemonState): MachineConfigDaemonState {
  return {
    currentConfig: m.currentConfig,
    desiredConfig: m.desiredConfig,
    desiredConfigPresent: m.desiredConfigPresent,
    state: m.state,
    reason: m.reason,
    desiredDrain: m.desiredDrain,
    lastAppliedDrain: m.lastAppliedDrain,
    postConfigAction: "",
    currentImage: m.currentImage,
    currentImagePresent: m.currentImagePresent,
    desiredImage: m.desiredImage,
    desiredImagePresent: m.desiredImagePresent,
    // The preview's disruption decision reads it.
    controlPlaneTopology: m.controlPlaneTopology,
  };
}

export function projectNode(s: NodeState): NodeState {
  const conditions: NodeCondition[] = [];
  for (const c of s.conditions) {
    if (READ_CONDITIONS.has(c.type)) conditions.push({ type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: sharedDate(c.lastTransitionTime) });
  }
  return {
    name: s.name,
    uid: "",
    // All labels: pools select nodes by arbitrary selectors.
    labels: s.labels,
    roles: NO_ROLES,
    mco: s.mco && projectMco(s.mco),
    unschedulable: s.unschedulable,
    conditions,
    architecture: "",
    kubeletVersion: "",
  };
}
