// The type table: one ResourceType per served resource (built-ins from builtins.ts, CRDs from crds.ts).

export type KubeObject = Record<string, any> & {
  apiVersion?: string;
  kind?: string;
  metadata?: ObjectMeta;
};

export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: Array<{ apiVersion: string; kind: string; name: string; uid: string; controller?: boolean; blockOwnerDeletion?: boolean }>;
  [k: string]: unknown;
}

/** A field-selector accessor: returns the string value the selector compares against. */
export type FieldGetter = (obj: KubeObject) => string;

/** An OpenAPI v3 schema node, the part pruning and type checks need. */
export interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  enum?: unknown[];
  required?: string[];
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  [k: string]: unknown;
}

export interface ResourceType {
  group: string;
  /** Served versions; the first is the preferred (storage) one. */
  versions: string[];
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  namespaced: boolean;
  shortNames: string[];
  categories: string[];
  verbs: string[];
  /** Subresources for discovery and routing, e.g. ["status"], ["status", "eviction"]. */
  subresources: string[];
  statusSubresource: boolean;
  /**
   * CRDs: the versions whose schema declares the status subresource (it is per version there); a
   * version without it treats status as an ordinary field, as kube-apiserver does. Undefined: all.
   */
  statusVersions?: string[];
  /** Whether metadata.generation is kept (and bumped on spec changes). */
  generation: boolean;
  /** PUT without metadata.resourceVersion is allowed (otherwise 422). */
  unconditionalUpdate: boolean;
  /** PUT of a missing object creates it (Lease). */
  createOnUpdate: boolean;
  /** A custom resource: strategic merge → 415, pruning by schema. */
  custom: boolean;
  /** DELETE answers with the deleted object instead of a Status. */
  returnDeletedObject: boolean;
  /** Namespaces validate names as DNS-1123 labels, RBAC types as path segments; everything else as subdomains. */
  nameRule: "subdomain" | "label" | "path";
  /** Extra field selectors beyond metadata.name / metadata.namespace. */
  fields: Record<string, FieldGetter>;
  /** Per-version additionalPrinterColumns (custom resources only): server-side Table columns. */
  printerColumns?: Record<string, PrinterColumn[] | undefined>;
  /** Per-version schemas for pruning (custom resources only). */
  schemas?: Record<string, Schema | undefined>;
  /** Never stored, POST only: the review APIs (TokenReview, SubjectAccessReview …), answered by reviews.ts. */
  createOnly?: boolean;
  /** Type-specific hooks; all synchronous and pure. */
  hooks?: TypeHooks;
  /**
   * Served from another type's store (events.k8s.io/v1 Events live in core/v1's, as on
   * kube-apiserver): writes are converted to the stored form after validation, reads back to this one.
   * Field getters of such a type read the stored form.
   */
  storage?: StorageOf;
}

/** The type whose store a served type shares, and the conversion between the two forms. */
export interface StorageOf {
  group: string;
  plural: string;
  toStorage(obj: KubeObject): KubeObject;
  fromStorage(obj: KubeObject): KubeObject;
}

/** A CRD's additionalPrinterColumns entry. */
export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export interface TypeHooks {
  /** Adjust a new object on create (after metadata is set); e.g. Pod status = Pending. */
  prepareForCreate?(obj: KubeObject): void;
  /** Adjust an updated object before comparison (e.g. drop gated fields). */
  prepareForUpdate?(obj: KubeObject, old: KubeObject): void;
  /** Validation on create and update; returns field errors (422). */
  validate?(obj: KubeObject, old: KubeObject | undefined): import("./errors.js").FieldError[];
  /** Checks on the raw body that fail with another status (e.g. MicroTime → 400). */
  checkBody?(obj: KubeObject): void;
}

export const ALL_VERBS = ["create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"];

/**
 * A resource type with kube-sim's defaults under the given fields: v1, every verb, no subresources,
 * no generation, unconditional update, DNS subdomain names, no extra field selectors.
 */
export function resourceType(p: Partial<ResourceType> & Pick<ResourceType, "group" | "plural" | "singular" | "kind" | "namespaced">): ResourceType {
  return {
    versions: ["v1"],
    listKind: `${p.kind}List`,
    shortNames: [],
    categories: [],
    verbs: ALL_VERBS,
    subresources: [],
    statusSubresource: false,
    generation: false,
    unconditionalUpdate: true,
    createOnUpdate: false,
    custom: false,
    returnDeletedObject: false,
    nameRule: "subdomain",
    fields: {},
    ...p,
  };
}

export function typeKey(group: string, plural: string): string {
  return `${group}/${plural}`;
}

export function apiVersionOf(group: string, version: string): string {
  return group === "" ? version : `${group}/${version}`;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const i = apiVersion.lastIndexOf("/");
  return i < 0 ? { group: "", version: apiVersion } : { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
}

/** Whether `status` is a subresource for objects of `t` at `apiVersion` (group/version or version). */
export function hasStatusSubresource(t: ResourceType, apiVersion: unknown): boolean {
  if (!t.statusSubresource) return false;
  if (t.statusVersions === undefined || typeof apiVersion !== "string") return true;
  return t.statusVersions.includes(apiVersion.slice(apiVersion.lastIndexOf("/") + 1));
}
