// The BootImagePolicy status the updater writes (the upstream MachineConfiguration status fields on
// Lockstep's object, DESIGN.md): managedBootImagesStatus, bootImageSkewEnforcementStatus (the record
// the skew-enforcer reads), conditions and per-MachineSet results. Pure: the edge sends `doc` as a
// merge patch of the status subresource only when `fingerprint` changed.

import type { BootImagePolicyState, Condition, LabelSelector } from "@lockstep/contracts";
import {
  DEGRADED,
  PROGRESSING,
  setCondition,
  type MachineSetDecision,
  type ManagedMachineSetsStatus,
  type PassCounters,
  type SkewRecordUpdate,
} from "../bootimages/index.js";
import type { SkewStatus } from "./skew-mode.js";

export interface PassResult {
  readonly conditions: { readonly progressing?: Condition | undefined; readonly degraded: Condition };
  /** Absent when the pass evaluated no MachineSet (controller-level problem, first seeding): results stay. */
  readonly decisions?: readonly MachineSetDecision[] | undefined;
  readonly counters?: PassCounters | undefined;
}

export interface StatusInputs {
  readonly generation: number;
  readonly selection: ManagedMachineSetsStatus;
  /** Effective skew status before this pass's record update. */
  readonly skew: SkewStatus;
  readonly skewRecord: SkewRecordUpdate;
  readonly releaseVersion: string;
  /** Absent when the pass must leave conditions and results alone (cluster mid-update, unsupported platform). */
  readonly result?: PassResult | undefined;
}

type K8sCondition = { type: string; status: string; reason: string; message: string; lastTransitionTime: string };

export interface MachineSetResult {
  namespace: string;
  name: string;
  /** Updated, UpToDate, Skipped, Excluded or Error. */
  result: string;
  reason: string;
  currentImage: string;
  targetImage: string;
}

export interface PolicyStatusDoc {
  observedGeneration: number;
  managedBootImagesStatus: { machineManagers: Array<{ resource: string; apiGroup: string; selection: Record<string, unknown> }> };
  bootImageSkewEnforcementStatus: Record<string, unknown>;
  /** The recorded cluster boot image version (printer column); empty when nothing is tracked. */
  clusterBootImageVersion: string;
  conditions?: K8sCondition[];
  machineSets?: MachineSetResult[];
  summary?: { total: number; updated: number; upToDate: number; skipped: number; excluded: number; errored: number; releaseVersion: string };
}

const RESULT: Readonly<Record<MachineSetDecision["action"], string>> = { patch: "Updated", upToDate: "UpToDate", skip: "Skipped", excluded: "Excluded", error: "Error" };

function k8sSelector(s: LabelSelector): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (Object.keys(s.matchLabels).length > 0) out["matchLabels"] = { ...s.matchLabels };
  if (s.matchExpressions.length > 0) out["matchExpressions"] = s.matchExpressions.map((e) => ({ key: e.key, operator: e.operator, ...(e.values.length ? { values: [...e.values] } : {}) }));
  return out;
}

/** The skew status after this pass: the record is replaced only in Automatic mode and only when the pass says so (§4.5). */
export function recordedSkew(skew: SkewStatus, record: SkewRecordUpdate): SkewStatus {
  if (skew.mode !== "Automatic" || record.action !== "set") return skew;
  return { ...skew, ocpVersion: record.ocpVersion ?? "", rhcosVersion: record.rhcosVersion ?? "" };
}

function skewDoc(s: SkewStatus): Record<string, unknown> {
  const versions = (o: Record<string, unknown>) => ({ ...o, ...(s.ocpVersion ? { ocpVersion: s.ocpVersion } : {}), ...(s.rhcosVersion ? { rhcosVersion: s.rhcosVersion } : {}) });
  // null removes the member of the other mode under merge-patch semantics.
  switch (s.mode) {
    case "Automatic":
      return { mode: "Automatic", automatic: versions({}), manual: null };
    case "Manual":
      return { mode: "Manual", manual: versions({ mode: s.manualMode }), automatic: null };
    case "None":
      return { mode: "None", automatic: null, manual: null };
  }
}

function toK8s(c: Condition, now: Date): K8sCondition {
  return { type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: (c.lastTransitionTime ?? now).toISOString() };
}

/**
 * The status document. `previousConditions` (last written, else the snapshot's) keep their
 * lastTransitionTime when unchanged.
 */
export function buildPolicyStatus(i: StatusInputs, previousConditions: readonly Condition[], now: Date): { doc: PolicyStatusDoc; fingerprint: string; skew: SkewStatus } {
  const skew = recordedSkew(i.skew, i.skewRecord);
  // machineManagers is an array, replaced whole by a merge patch: absent members need no null.
  const selection: Record<string, unknown> =
    i.selection.mode === "Partial" && i.selection.selector ? { mode: "Partial", partial: { machineResourceSelector: k8sSelector(i.selection.selector) } } : { mode: i.selection.mode };
  const doc: PolicyStatusDoc = {
    observedGeneration: i.generation,
    managedBootImagesStatus: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection }] },
    bootImageSkewEnforcementStatus: skewDoc(skew),
    clusterBootImageVersion: skew.mode === "None" ? "" : skew.ocpVersion || skew.rhcosVersion,
  };
  if (i.result) {
    let conds: Condition[] = [...previousConditions];
    if (i.result.conditions.progressing) conds = setCondition(conds, i.result.conditions.progressing, now);
    conds = setCondition(conds, i.result.conditions.degraded, now);
    doc.conditions = conds.filter((c) => c.type === PROGRESSING || c.type === DEGRADED).map((c) => toK8s(c, now));
  }
  if (i.result?.decisions && i.result.counters) {
    doc.machineSets = i.result.decisions.map((d) => ({
      namespace: d.namespace,
      name: d.name,
      result: RESULT[d.action],
      reason: d.reason,
      currentImage: d.currentImage ?? "",
      targetImage: d.targetImage ?? "",
    }));
    const c = i.result.counters;
    doc.summary = { total: c.total, updated: c.patched, upToDate: c.upToDate, skipped: c.skipped, excluded: c.excluded, errored: c.errored, releaseVersion: i.releaseVersion };
  }
  // Transition times are not part of "changed": they follow from the rest.
  const fingerprint = JSON.stringify({ ...doc, conditions: doc.conditions?.map(({ lastTransitionTime: _t, ...rest }) => rest) });
  return { doc, fingerprint, skew };
}

/** Whether the state-plane snapshot already shows what `doc` would write (the fields it carries). */
export function snapshotAgrees(policy: BootImagePolicyState | undefined, doc: PolicyStatusDoc, skew: SkewStatus): boolean {
  if (!policy) return false;
  if (policy.machineSetsStatusMode !== doc.managedBootImagesStatus.machineManagers[0]?.selection["mode"]) return false;
  const s = policy.skewStatus;
  if (!s || s.mode !== skew.mode || s.ocpVersion !== skew.ocpVersion || s.rhcosVersion !== skew.rhcosVersion || (skew.mode === "Manual" && s.manualMode !== skew.manualMode)) return false;
  for (const c of doc.conditions ?? []) {
    const o = policy.conditions.find((x) => x.type === c.type);
    if (!o || o.status !== c.status || o.reason !== c.reason || o.message !== c.message) return false;
  }
  return true;
}

/** Conditions from a written document, in state-plane form (to carry transition times forward). */
export function conditionsOf(doc: PolicyStatusDoc | undefined): Condition[] | undefined {
  return doc?.conditions?.map((c) => ({ type: c.type, status: c.status, reason: c.reason, message: c.message, lastTransitionTime: new Date(c.lastTransitionTime) }));
}
