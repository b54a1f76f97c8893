// ClusterOperator `lockstep` as Kubernetes JSON: reading its status back, building the status body,
// and the fingerprint the hot-loop guard compares. Pure.
import type { Condition } from "@lockstep/contracts";
import type { ClusterOperatorStatus, OperandVersion, RelatedObject } from "@lockstep/skew-rules";

export type Json = Record<string, unknown>;

const obj = (v: unknown): Json | undefined => (v !== null && typeof v === "object" && !Array.isArray(v) ? (v as Json) : undefined);
const str = (v: unknown): string => (typeof v === "string" ? v : "");
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj).filter((x): x is Json => x !== undefined) : []);

export interface ObservedStatus {
  readonly conditions: Condition[];
  readonly versions: OperandVersion[];
  readonly relatedObjects: RelatedObject[];
}

function time(v: unknown): Date | undefined {
  if (typeof v !== "string") return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

/** The status fields Lockstep owns, read defensively: anything malformed counts as absent. */
export function observedStatus(o: Json | undefined): ObservedStatus {
  const status = obj(o?.status);
  return {
    conditions: arr(status?.conditions).map((c) => ({
      type: str(c.type),
      status: str(c.status),
      reason: str(c.reason),
      message: str(c.message),
      lastTransitionTime: time(c.lastTransitionTime),
    })),
    versions: arr(status?.versions).map((v) => ({ name: str(v.name), version: str(v.version) })),
    relatedObjects: arr(status?.relatedObjects).map((r) => ({
      group: str(r.group),
      resource: str(r.resource),
      name: str(r.name),
      ...(str(r.namespace) ? { namespace: str(r.namespace) } : {}),
    })),
  };
}

/**
 * The object to PUT on the status subresource: the observed object with Lockstep's status fields
 * replaced. Its resourceVersion makes the write conditional; other status fields are kept.
 */
export function statusUpdateBody(observed: Json, desired: ClusterOperatorStatus): Json {
  return {
    ...observed,
    status: {
      ...(obj(observed.status) ?? {}),
      conditions: desired.conditions.map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason,
        message: c.message,
        lastTransitionTime: (c.lastTransitionTime ?? new Date(0)).toISOString(),
      })),
      versions: desired.versions.map((v) => ({ name: v.name, version: v.version })),
      relatedObjects: desired.relatedObjects.map((r) => ({ group: r.group, resource: r.resource, name: r.name, ...(r.namespace ? { namespace: r.namespace } : {}) })),
    },
  };
}

/** What a write changes, without times: two writes with equal fingerprints are the same write. */
export function statusFingerprint(s: ClusterOperatorStatus): string {
  return JSON.stringify({
    conditions: [...s.conditions].map((c) => [c.type, c.status, c.reason, c.message]).sort(),
    versions: s.versions.map((v) => [v.name, v.version]),
    relatedObjects: s.relatedObjects.map((r) => [r.group, r.resource, r.namespace ?? "", r.name]),
  });
}

/** A new, empty ClusterOperator (status is written separately, through the subresource). */
export function newClusterOperator(name: string): Json {
  return { apiVersion: "config.openshift.io/v1", kind: "ClusterOperator", metadata: { name }, spec: {} };
}
