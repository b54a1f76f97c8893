// Shared helpers for turning Kubernetes objects (plain JSON as the API returns it) into snapshots.
import type { Condition, LabelSelector, ObjectRef } from "@lockstep/contracts";

export type Obj = Record<string, any>;

export const MCO = "machineconfiguration.openshift.io/";

export function meta(o: Obj): Obj {
  return (o?.metadata ?? {}) as Obj;
}

export function str(v: unknown): string {
  return typeof v === "string" ? v : v === undefined || v === null ? "" : String(v);
}

export function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (v && typeof v === "object") for (const [k, x] of Object.entries(v as Obj)) out[k] = str(x);
  return out;
}

/** A timestamp or undefined; unparsable text is treated as absent rather than failing the object. */
export function time(v: unknown): Date | undefined {
  if (typeof v !== "string" && !(v instanceof Date)) return undefined;
  const d = new Date(v as string);
  return Number.isNaN(d.getTime()) ? undefined : d;
}

export function int(v: unknown): number {
  const n = typeof v === "number" ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

export function int64(v: unknown): string {
  return String(int(v));
}

/** IntOrString as text ("1", "10%"); empty when unset. */
export function intOrString(v: unknown): string {
  return v === undefined || v === null ? "" : String(v);
}

export function conditions(list: unknown): Condition[] {
  if (!Array.isArray(list)) return [];
  return list
    .filter((c) => c && typeof c === "object" && typeof c.type === "string")
    .map((c: Obj) => ({
      type: c.type,
      status: str(c.status),
      reason: str(c.reason),
      message: str(c.message),
      lastTransitionTime: time(c.lastTransitionTime),
    }));
}

export function labelSelector(v: unknown): LabelSelector | undefined {
  if (!v || typeof v !== "object") return undefined;
  const s = v as Obj;
  return {
    matchLabels: strMap(s.matchLabels),
    matchExpressions: Array.isArray(s.matchExpressions)
      ? s.matchExpressions.map((e: Obj) => ({ key: str(e?.key), operator: str(e?.operator), values: Array.isArray(e?.values) ? e.values.map(str) : [] }))
      : [],
  };
}

export function ownerRefs(o: Obj): ObjectRef[] {
  const refs = meta(o).ownerReferences;
  if (!Array.isArray(refs)) return [];
  return refs.map((r: Obj) => {
    const [group, version] = str(r.apiVersion).includes("/") ? str(r.apiVersion).split("/") : ["", str(r.apiVersion)];
    return { group: group!, version: version!, kind: str(r.kind), namespace: "", name: str(r.name), uid: str(r.uid) };
  });
}

/** Thrown for an object that cannot be normalised (the watcher logs it and skips the object). */
export class MalformedObjectError extends Error {
  constructor(kind: string, name: string, problem: string) {
    super(`malformed ${kind} ${JSON.stringify(name)}: ${problem}`);
    this.name = "MalformedObjectError";
  }
}

export function requireName(kind: string, o: Obj): string {
  const name = meta(o).name;
  if (typeof name !== "string" || name === "") throw new MalformedObjectError(kind, "", "metadata.name is missing");
  return name;
}
