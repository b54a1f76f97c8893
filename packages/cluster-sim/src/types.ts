// Loose object shapes: the simulator reads and writes plain JSON, like kwok's templates.
/* eslint-disable @typescript-eslint/no-explicit-any */
export interface ObjectMeta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  resourceVersion?: string;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  generation?: number;
  uid?: string;
  ownerReferences?: any[];
  [k: string]: unknown;
}

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: any;
  status?: any;
  data?: Record<string, string>;
  [k: string]: unknown;
}

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastHeartbeatTime?: string;
  [k: string]: unknown;
}

export const annotationsOf = (o: KubeObject | undefined): Record<string, string> => o?.metadata?.annotations ?? {};
export const labelsOf = (o: KubeObject | undefined): Record<string, string> => o?.metadata?.labels ?? {};

export function conditionOf(o: KubeObject | undefined, type: string): Condition | undefined {
  const cs = o?.status?.conditions;
  return Array.isArray(cs) ? cs.find((c: Condition) => c?.type === type) : undefined;
}

/**
 * Sets a condition in a list, keeping lastTransitionTime when the status does not change
 * (metav1 SetStatusCondition semantics). Returns a new list.
 */
export function setCondition(list: Condition[] | undefined, c: Condition, now: string): Condition[] {
  const out = [...(list ?? [])];
  const i = out.findIndex((x) => x.type === c.type);
  const prev = i >= 0 ? out[i] : undefined;
  const next: Condition = { ...c, lastTransitionTime: prev && prev.status === c.status && prev.lastTransitionTime ? prev.lastTransitionTime : now };
  if (i >= 0) out[i] = next;
  else out.push(next);
  return out;
}
