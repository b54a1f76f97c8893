import type { LeaseState, ObjectRef } from "@lockstep/contracts";
import type { ForeignLeaseSource, PolicyConfig } from "./config.js";
import { isOperationName, type OperationName } from "./operations.js";

/** Keys Lockstep writes on its Leases. Node names can exceed label limits, so identity goes in annotations. */
export const LABEL_MANAGED_BY = "app.kubernetes.io/managed-by";
export const MANAGED_BY = "lockstep";
export const LABEL_KIND = "lockstep.io/lease-kind";
export const LABEL_OPERATION = "lockstep.io/operation";
export const ANN_NODE = "lockstep.io/node";
export const ANN_OPERATION = "lockstep.io/operation";
export const ANN_REASON = "lockstep.io/reason";
export const ANN_FORCED_BY = "lockstep.io/forced-takeover-from";
/**
 * Preemption, in two strengths, both naming the preemptor as "<holder> (<operation>)"
 * (preemptorLabel): the cooperative request (ANN_PREEMPT) is a polite ask the holder may ignore
 * until its lease expires; a forced preemption (ANN_PREEMPTED_BY + ANN_PREEMPTED_AT) is binding:
 * the holder may no longer renew, only release, and the node is reserved for the preemptor.
 */
export const ANN_PREEMPT = "lockstep.io/preemption-requested-by";
export const ANN_PREEMPTED_BY = "lockstep.io/preempted-by";
export const ANN_PREEMPTED_AT = "lockstep.io/preempted-at";
/** The preemptor's own reason (its request's), so holders read it as a field (NodeLease.preemption). */
export const ANN_PREEMPTED_REASON = "lockstep.io/preempted-reason";
/**
 * A binding preemption its preemptor withdrew (CancelPreemption): "<holder> (<operation>)" and when.
 * Kept across the holder's renewals, dropped by the next grant to anyone else.
 */
export const ANN_PREEMPTION_WITHDRAWN_BY = "lockstep.io/preemption-withdrawn-by";
export const ANN_PREEMPTION_WITHDRAWN_AT = "lockstep.io/preemption-withdrawn-at";
export const ANN_RELEASED_AT = "lockstep.io/released-at";
export const ANN_SCOPE = "lockstep.io/budget-scope";

/** The coordination.k8s.io/v1 Lease body Lockstep writes (plain JSON, ready for client-node). */
export interface LeaseBody {
  apiVersion: "coordination.k8s.io/v1";
  kind: "Lease";
  metadata: {
    name: string;
    namespace: string;
    resourceVersion?: string;
    labels: Record<string, string>;
    annotations: Record<string, string>;
    ownerReferences: Array<{ apiVersion: string; kind: string; name: string; uid: string }>;
  };
  spec: {
    holderIdentity?: string;
    leaseDurationSeconds: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions: number;
  };
}

/** One CAS write for the caller: create when expectedResourceVersion is null, else replace with it. */
export interface LeaseWrite {
  namespace: string;
  name: string;
  expectedResourceVersion: string | null;
  body: LeaseBody;
}

export type LeaseKind = "node" | "slot" | "foreign";

/** A Lease as the policy reads it. Never throws on bad input: problems land in `corrupt`. */
export interface LeaseRecord {
  namespace: string;
  name: string;
  resourceVersion: string;
  kind: LeaseKind;
  /** The node the lease is about ("" when it cannot be told, e.g. a foreign Pod lease). */
  node: string;
  /** Written by Lockstep (our labels present). */
  owned: boolean;
  holder: string;
  durationSeconds: number;
  acquireTime: Date | undefined;
  renewTime: Date | undefined;
  renewTimeRaw: string;
  transitions: number;
  operation: OperationName | undefined;
  reason: string;
  preemptionRequestedBy: string;
  /** Binding preemption: "<holder> (<operation>)", "" when none. */
  preemptedBy: string;
  /** The preemptor's holder identity, parsed from preemptedBy. */
  preemptorHolder: string;
  preemptedAt: Date | undefined;
  /** The preemptor's request reason ("" when marked by an older coordinator). */
  preemptedReason: string;
  /** A withdrawn binding preemption: "<holder> (<operation>)", "" when none. */
  preemptionWithdrawnBy: string;
  preemptionWithdrawnAt: Date | undefined;
  releasedAt: Date | undefined;
  /** Slot leases: the budget scope key and slot index. */
  scope: string;
  slotIndex: number;
  /** Why the lease must be treated as free; undefined when it is well formed. */
  corrupt: string | undefined;
  annotations: Record<string, string>;
}

/** RFC3339Micro, the only layout the API server accepts for MicroTime (exactly six fractional digits). */
export function formatMicroTime(date: Date): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

export function nodeLeaseName(node: string): string {
  return node;
}

const SLOT_PREFIX = "lockstep-slot.";

export function slotLeaseName(scope: string, index: number): string {
  return `${SLOT_PREFIX}${scope}.${index}`;
}

function foreignNode(name: string, source: ForeignLeaseSource): string {
  if (source.naming === "node") return name;
  return name.startsWith("node-") ? name.slice("node-".length) : "";
}

/** Operation implied by well-known foreign holder identities (medik8s, KEP admin prefix). */
export function inferForeignOperation(holder: string, policy: PolicyConfig): OperationName | undefined {
  if (holder.startsWith(policy.adminHolderPrefix)) return "Maintenance";
  if (holder === "node-maintenance") return "Maintenance";
  if (holder.startsWith("NodeHealthCheck-") || holder.startsWith("MachineHealthCheck-")) return "Fence";
  return undefined;
}

/** How a preemptor is named on a Lease and in messages: "<holder> (<operation>)". */
export function preemptorLabel(holder: string, operation: OperationName): string {
  return `${holder} (${operation})`;
}

/** Inverse of preemptorLabel; a label without an operation is all holder. */
export function parsePreemptor(label: string): { holder: string; operation: OperationName | undefined } {
  const m = /^(.*) \(([A-Za-z]+)\)$/.exec(label);
  if (m === null) return { holder: label, operation: undefined };
  return { holder: m[1] as string, operation: isOperationName(m[2] as string) ? (m[2] as OperationName) : undefined };
}

function parseTime(value: unknown): Date | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value;
  if (typeof value !== "string" || value === "") return undefined;
  const ms = Date.parse(value);
  return Number.isNaN(ms) ? undefined : new Date(ms);
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (value === null || typeof value !== "object") return out;
  for (const [k, v] of Object.entries(value)) if (typeof v === "string") out[k] = v;
  return out;
}

function asInt(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.trunc(value) : 0;
}

/**
 * Normalises a raw coordination.k8s.io/v1 Lease (as returned by the API, times as strings) into the
 * state-plane LeaseState. Tolerates anything: garbage yields an empty, corrupt-looking state.
 */
export function leaseStateFromObject(obj: unknown): LeaseState {
  const o = (obj !== null && typeof obj === "object" ? obj : {}) as Record<string, unknown>;
  const meta = (o.metadata !== null && typeof o.metadata === "object" ? o.metadata : {}) as Record<string, unknown>;
  const spec = (o.spec !== null && typeof o.spec === "object" ? o.spec : {}) as Record<string, unknown>;
  const owners: ObjectRef[] = Array.isArray(meta.ownerReferences)
    ? meta.ownerReferences
        .filter((r): r is Record<string, unknown> => r !== null && typeof r === "object")
        .map((r) => ({
          group: "",
          version: typeof r.apiVersion === "string" ? r.apiVersion : "",
          kind: typeof r.kind === "string" ? r.kind : "",
          namespace: "",
          name: typeof r.name === "string" ? r.name : "",
          uid: typeof r.uid === "string" ? r.uid : "",
        }))
    : [];
  const rawRenew = spec.renewTime instanceof Date ? spec.renewTime.toISOString() : spec.renewTime;
  return {
    namespace: typeof meta.namespace === "string" ? meta.namespace : "",
    name: typeof meta.name === "string" ? meta.name : "",
    uid: typeof meta.uid === "string" ? meta.uid : "",
    resourceVersion: typeof meta.resourceVersion === "string" ? meta.resourceVersion : "",
    holderIdentity: typeof spec.holderIdentity === "string" ? spec.holderIdentity : "",
    leaseDurationSeconds: asInt(spec.leaseDurationSeconds),
    acquireTime: parseTime(spec.acquireTime),
    renewTime: parseTime(spec.renewTime),
    leaseTransitions: asInt(spec.leaseTransitions),
    labels: stringMap(meta.labels),
    annotations: stringMap(meta.annotations),
    ownerReferences: owners,
    rawRenewTime: typeof rawRenew === "string" ? rawRenew : "",
  };
}

/**
 * Reads a LeaseState as the policy sees it. Returns undefined for leases that are not about nodes
 * (e.g. a medik8s Pod lease, or a Lease in a namespace we do not coordinate).
 */
export function decodeLease(state: LeaseState, policy: PolicyConfig): LeaseRecord | undefined {
  const labels = state.labels ?? {};
  const ann = state.annotations ?? {};
  const owned = labels[LABEL_MANAGED_BY] === MANAGED_BY;
  let kind: LeaseKind;
  let node: string;
  if (state.namespace === policy.namespace) {
    kind = labels[LABEL_KIND] === "slot" ? "slot" : "node";
    node = kind === "slot" ? (ann[ANN_NODE] ?? "") : state.name;
  } else {
    const source = policy.foreignSources.find((s) => s.namespace === state.namespace);
    if (source === undefined) return undefined;
    kind = "foreign";
    node = foreignNode(state.name, source);
    if (node === "") return undefined;
  }
  const holder = state.holderIdentity ?? "";
  const annotatedOp = ann[ANN_OPERATION];
  const operation =
    annotatedOp !== undefined && isOperationName(annotatedOp) ? annotatedOp : inferForeignOperation(holder, policy);
  let corrupt: string | undefined;
  if (holder !== "") {
    if (state.renewTime === undefined) corrupt = state.rawRenewTime ? `unparseable renewTime "${state.rawRenewTime}"` : "no renewTime";
    else if (!(state.leaseDurationSeconds > 0)) corrupt = `leaseDurationSeconds ${state.leaseDurationSeconds} is not positive`;
    else if (state.leaseTransitions < 0) corrupt = `negative leaseTransitions ${state.leaseTransitions}`;
  }
  // Slot identity comes from the name, which nobody can edit in place, not from annotations.
  const slotName = kind === "slot" && state.name.startsWith(SLOT_PREFIX) ? state.name.slice(SLOT_PREFIX.length) : "";
  const scope = slotName.includes(".") ? slotName.slice(0, slotName.lastIndexOf(".")) : "";
  const indexText = slotName.slice(slotName.lastIndexOf(".") + 1);
  return {
    namespace: state.namespace,
    name: state.name,
    resourceVersion: state.resourceVersion,
    kind,
    node,
    owned,
    holder,
    durationSeconds: state.leaseDurationSeconds,
    acquireTime: state.acquireTime,
    renewTime: state.renewTime,
    renewTimeRaw: state.rawRenewTime || (state.renewTime ? formatMicroTime(state.renewTime) : ""),
    transitions: Math.max(0, state.leaseTransitions),
    operation,
    reason: ann[ANN_REASON] ?? "",
    preemptionRequestedBy: ann[ANN_PREEMPT] ?? "",
    preemptedBy: ann[ANN_PREEMPTED_BY] ?? "",
    preemptorHolder: parsePreemptor(ann[ANN_PREEMPTED_BY] ?? "").holder,
    preemptedAt: parseTime(ann[ANN_PREEMPTED_AT]),
    preemptedReason: ann[ANN_PREEMPTED_REASON] ?? "",
    preemptionWithdrawnBy: ann[ANN_PREEMPTION_WITHDRAWN_BY] ?? "",
    preemptionWithdrawnAt: parseTime(ann[ANN_PREEMPTION_WITHDRAWN_AT]),
    releasedAt: parseTime(ann[ANN_RELEASED_AT]),
    scope,
    slotIndex: /^\d+$/.test(indexText) ? Number(indexText) : -1,
    corrupt,
    annotations: { ...ann },
  };
}

/** What changes when a lease is rewritten; observed-time expiry keys on it (client-go's rule). */
export function leaseFingerprint(rec: Pick<LeaseRecord, "resourceVersion" | "holder" | "renewTimeRaw">): string {
  return `${rec.resourceVersion}|${rec.holder}|${rec.renewTimeRaw}`;
}

export interface EncodeInput {
  namespace: string;
  name: string;
  kind: "node" | "slot";
  node: string;
  nodeUid: string;
  holder: string;
  operation: OperationName | undefined;
  reason: string;
  durationSeconds: number;
  acquireTime: Date | undefined;
  renewTime: Date | undefined;
  transitions: number;
  resourceVersion?: string | undefined;
  /** Extra annotations (preemption requests, release marks, audit). */
  annotations?: Record<string, string>;
  scope?: string;
}

/** Builds the Lease body. Release writes an empty holder with a 1 s duration, never 0 (422 upstream). */
export function encodeLease(input: EncodeInput): LeaseBody {
  const labels: Record<string, string> = { [LABEL_MANAGED_BY]: MANAGED_BY, [LABEL_KIND]: input.kind };
  const annotations: Record<string, string> = { [ANN_NODE]: input.node, ...(input.annotations ?? {}) };
  if (input.operation !== undefined && input.holder !== "") {
    labels[LABEL_OPERATION] = input.operation.toLowerCase();
    annotations[ANN_OPERATION] = input.operation;
    annotations[ANN_REASON] = input.reason;
  }
  if (input.kind === "slot" && input.scope !== undefined) annotations[ANN_SCOPE] = input.scope;
  const body: LeaseBody = {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: {
      name: input.name,
      namespace: input.namespace,
      labels,
      annotations,
      // The Node owns its lease so deleting the Node garbage-collects it (no ghost locks).
      ownerReferences: input.nodeUid ? [{ apiVersion: "v1", kind: "Node", name: input.node, uid: input.nodeUid }] : [],
    },
    spec: {
      leaseDurationSeconds: Math.max(1, Math.trunc(input.durationSeconds)),
      leaseTransitions: Math.max(0, input.transitions),
    },
  };
  if (input.resourceVersion) body.metadata.resourceVersion = input.resourceVersion;
  if (input.holder !== "") body.spec.holderIdentity = input.holder;
  if (input.acquireTime) body.spec.acquireTime = formatMicroTime(input.acquireTime);
  if (input.renewTime) body.spec.renewTime = formatMicroTime(input.renewTime);
  return body;
}
