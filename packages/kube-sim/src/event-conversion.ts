// events.k8s.io/v1 Event ↔ core/v1 Event: kube-apiserver keeps ONE store for both Event APIs (core/v1
// form here) and converts on the way in and out, as upstream's Convert_v1_Event_To_core_Event /
// Convert_core_Event_To_v1_Event do (pkg/apis/events/v1/conversion.go). Pure functions.
import type { FieldGetter, KubeObject } from "./types.js";

/** events.k8s.io/v1 field → core/v1 field; everything else (metadata, eventTime, series, related, action, reason, type, reportingInstance) keeps its name. */
const RENAMES: ReadonlyArray<readonly [string, string]> = [
  ["regarding", "involvedObject"],
  ["note", "message"],
  ["reportingController", "reportingComponent"],
  ["deprecatedSource", "source"],
  ["deprecatedFirstTimestamp", "firstTimestamp"],
  ["deprecatedLastTimestamp", "lastTimestamp"],
  ["deprecatedCount", "count"],
];

function renamed(obj: KubeObject, pairs: ReadonlyArray<readonly [string, string]>, apiVersion: string): KubeObject {
  const out: KubeObject = {};
  const map = new Map(pairs);
  // Fields of the other version that have no place in this one are dropped, as a typed decode does.
  const foreign = new Set(pairs.map(([, to]) => to));
  for (const [k, v] of Object.entries(obj)) {
    if (foreign.has(k) && !map.has(k)) continue;
    out[map.get(k) ?? k] = v;
  }
  out.apiVersion = apiVersion;
  out.kind = "Event";
  return out;
}

/** An events.k8s.io/v1 Event as the core/v1 Event it is stored as. */
export function eventsV1ToCore(obj: KubeObject): KubeObject {
  return renamed(obj, RENAMES, "v1");
}

/** A stored core/v1 Event as events.k8s.io/v1 serves it. */
export function coreToEventsV1(obj: KubeObject): KubeObject {
  return renamed(
    obj,
    RENAMES.map(([a, b]) => [b, a] as const),
    "events.k8s.io/v1",
  );
}

function str(v: unknown): string {
  if (v === undefined || v === null) return "";
  return typeof v === "string" ? v : String(v);
}

/** core/v1 Event field selectors (ToSelectableFields of pkg/registry/core/event), on the stored form. */
export const coreEventFields: Record<string, FieldGetter> = {
  "involvedObject.kind": (o) => str(o.involvedObject?.kind),
  "involvedObject.namespace": (o) => str(o.involvedObject?.namespace),
  "involvedObject.name": (o) => str(o.involvedObject?.name),
  "involvedObject.uid": (o) => str(o.involvedObject?.uid),
  "involvedObject.apiVersion": (o) => str(o.involvedObject?.apiVersion),
  "involvedObject.resourceVersion": (o) => str(o.involvedObject?.resourceVersion),
  "involvedObject.fieldPath": (o) => str(o.involvedObject?.fieldPath),
  reason: (o) => str(o.reason),
  reportingComponent: (o) => str(o.reportingComponent),
  // An Event written through events.k8s.io has no source: upstream selects its reporting controller.
  source: (o) => str(o.source?.component) || str(o.reportingComponent),
  type: (o) => str(o.type),
};

/**
 * events.k8s.io/v1 field selectors: upstream's AddFieldLabelConversionsForEvent maps each onto the
 * core field it is stored as, so these read the stored (core/v1) form too.
 */
export const eventsV1Fields: Record<string, FieldGetter> = {
  "regarding.kind": coreEventFields["involvedObject.kind"]!,
  "regarding.namespace": coreEventFields["involvedObject.namespace"]!,
  "regarding.name": coreEventFields["involvedObject.name"]!,
  "regarding.uid": coreEventFields["involvedObject.uid"]!,
  "regarding.apiVersion": coreEventFields["involvedObject.apiVersion"]!,
  "regarding.resourceVersion": coreEventFields["involvedObject.resourceVersion"]!,
  "regarding.fieldPath": coreEventFields["involvedObject.fieldPath"]!,
  reason: coreEventFields.reason!,
  reportingController: coreEventFields.reportingComponent!,
  source: coreEventFields.source!,
  type: coreEventFields.type!,
};
