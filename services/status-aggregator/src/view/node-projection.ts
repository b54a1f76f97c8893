// What the aggregator keeps of a node snapshot (StateCache's `project` option): the fields the
// status rules (via nodeFromState) and the preview read, in a NodeState with the rest left empty.
// At 10,000 nodes the decoded snapshots were the largest part of the aggregator's heap, and the
// cache also kept each one's bytes. Which fields: derived from the rules' own declarations
// (NODE_RULE_INPUTS), once, here. Pure, returns plain data.
import type { MachineConfigDaemonState, NodeCondition, NodeState } from "@lockstep/contracts";
import { type McoField, NODE_RULE_INPUTS, nodeStateFields } from "@lockstep/insights";

/** What the preview reads of a node's snapshot (preview/preview.ts, previewNode). */
export const PREVIEW_NODE_INPUTS = { mco: ["currentConfig", "controlPlaneTopology"] } as const satisfies { mco: readonly McoField[] };

const FIELDS = nodeStateFields(NODE_RULE_INPUTS);
/** The node conditions the rules read; the order among them is kept. */
const READ_CONDITIONS = FIELDS.conditions;
const MCO_FIELDS: readonly McoField[] = [...new Set([...FIELDS.mco, ...PREVIEW_NODE_INPUTS.mco])];
const KEEP_LABELS = FIELDS.labels;
const KEEP_UNSCHEDULABLE = FIELDS.unschedulable;
const NO_LABELS: Record<string, string> = {};

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

// Whether each field is kept, decided once: the projection below is one fixed-shape literal, as
// cheap as a hand-written one (a loop over the field names measured clearly slower).
const keep = (f: McoField): boolean => MCO_FIELDS.includes(f);
const [currentConfig, desiredConfig, desiredConfigPresent, state, reason, desiredDrain, lastAppliedDrain, postConfigAction] = (
  ["currentConfig", "desiredConfig", "desiredConfigPresent", "state", "reason", "desiredDrain", "lastAppliedDrain", "postConfigAction"] as const
).map(keep);
const [currentImage, currentImagePresent, desiredImage, desiredImagePresent, controlPlaneTopology] = (
  ["currentImage", "currentImagePresent", "desiredImage", "desiredImagePresent", "controlPlaneTopology"] as const
).map(keep);

/** The kept fields; the others at their empty value. */
function projectMco(m: MachineConfigDaemonState): MachineConfigDaemonState {
  return {
    currentConfig: currentConfig ? m.currentConfig : "",
    desiredConfig: desiredConfig ? m.desiredConfig : "",
    desiredConfigPresent: desiredConfigPresent ? m.desiredConfigPresent : false,
    state: state ? m.state : "",
    reason: reason ? m.reason : "",
    desiredDrain: desiredDrain ? m.desiredDrain : "",
    lastAppliedDrain: lastAppliedDrain ? m.lastAppliedDrain : "",
    postConfigAction: postConfigAction ? m.postConfigAction : "",
    currentImage: currentImage ? m.currentImage : "",
    currentImagePresent: currentImagePresent ? m.currentImagePresent : false,
    desiredImage: desiredImage ? m.desiredImage : "",
    desiredImagePresent: desiredImagePresent ? m.desiredImagePresent : false,
    controlPlaneTopology: controlPlaneTopology ? m.controlPlaneTopology : "",
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
    labels: KEEP_LABELS ? s.labels : NO_LABELS,
    roles: NO_ROLES,
    mco: s.mco && projectMco(s.mco),
    unschedulable: KEEP_UNSCHEDULABLE ? s.unschedulable : false,
    conditions,
    architecture: "",
    kubeletVersion: "",
  };
}
