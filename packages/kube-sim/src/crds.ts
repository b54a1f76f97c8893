// CustomResourceDefinitions (kube-api.md §11): CRD objects become served types, CR pruning and
// basic schema checks, and the installer for the CRD manifests shipped in ../crds.
import { fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from "./errors.js";
import { isPlainObject } from "./json.js";
import type { Store } from "./store.js";
import { ALL_VERBS, type FieldGetter, type KubeObject, type PrinterColumn, type ResourceType, type Schema } from "./types.js";

interface CrdVersion {
  name: string;
  served?: boolean;
  storage?: boolean;
  schema?: { openAPIV3Schema?: Schema };
  subresources?: { status?: object; scale?: object };
  selectableFields?: Array<{ jsonPath: string }>;
  additionalPrinterColumns?: PrinterColumn[];
}

function getPath(obj: unknown, path: string[]): unknown {
  let cur = obj;
  for (const p of path) {
    if (!isPlainObject(cur)) return undefined;
    cur = cur[p];
  }
  return cur;
}

/** The served type a CRD defines. */
export function crdToType(crd: KubeObject): ResourceType {
  const spec = crd.spec ?? {};
  const names = spec.names ?? {};
  const versions: CrdVersion[] = (spec.versions ?? []).filter((v: CrdVersion) => v.served !== false);
  versions.sort((a, b) => Number(b.storage === true) - Number(a.storage === true));
  const fields: Record<string, FieldGetter> = {};
  const schemas: Record<string, Schema | undefined> = {};
  const printerColumns: Record<string, PrinterColumn[] | undefined> = {};
  let status = false;
  const statusVersions: string[] = [];
  for (const v of versions) {
    schemas[v.name] = v.schema?.openAPIV3Schema;
    printerColumns[v.name] = Array.isArray(v.additionalPrinterColumns) ? v.additionalPrinterColumns : undefined;
    if (v.subresources?.status) (status = true), statusVersions.push(v.name);
    for (const f of v.selectableFields ?? []) {
      const path = f.jsonPath.replace(/^\./, "").split(".");
      fields[path.join(".")] = (o) => {
        const x = getPath(o, path);
        return x === undefined || x === null ? "" : String(x);
      };
    }
  }
  const storage = versions[0]?.name;
  const schema = storage ? schemas[storage] : undefined;
  const t: ResourceType = {
    group: spec.group,
    versions: versions.map((v) => v.name),
    plural: names.plural,
    singular: names.singular ?? String(names.kind ?? "").toLowerCase(),
    kind: names.kind,
    listKind: names.listKind ?? `${names.kind}List`,
    namespaced: spec.scope !== "Cluster",
    shortNames: names.shortNames ?? [],
    categories: names.categories ?? [],
    verbs: ALL_VERBS,
    subresources: status ? ["status"] : [],
    statusSubresource: status,
    statusVersions,
    generation: true,
    unconditionalUpdate: false,
    createOnUpdate: false,
    custom: true,
    returnDeletedObject: false,
    nameRule: "subdomain",
    fields,
    schemas,
    printerColumns,
    hooks: {
      prepareForCreate: (obj) => pruneObject(obj, schema),
      prepareForUpdate: (obj) => pruneObject(obj, schema),
      validate: (obj) => (schema ? checkSchema(obj, schema, "", true) : []),
    },
  };
  return t;
}

/** Drops fields the schema does not declare, unless x-kubernetes-preserve-unknown-fields allows them. */
export function pruneObject(obj: KubeObject, schema: Schema | undefined): void {
  if (!schema) return;
  for (const k of Object.keys(obj)) {
    if (k === "apiVersion" || k === "kind" || k === "metadata") continue;
    const sub = schema.properties?.[k];
    if (sub) obj[k] = prune(obj[k], sub);
    else if (!schema["x-kubernetes-preserve-unknown-fields"]) delete obj[k];
  }
}

function prune(v: unknown, schema: Schema): unknown {
  if (Array.isArray(v)) return schema.items ? v.map((x) => prune(x, schema.items!)) : v;
  if (!isPlainObject(v)) return v;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true;
  const embedded = schema["x-kubernetes-embedded-resource"] === true;
  const props = schema.properties;
  const addl = schema.additionalProperties;
  if (!props && !isPlainObject(addl) && (preserve || addl === true)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (props?.[k]) out[k] = prune(x, props[k]!);
    else if (isPlainObject(addl)) out[k] = prune(x, addl as Schema);
    else if (preserve || addl === true || (embedded && (k === "apiVersion" || k === "kind" || k === "metadata"))) out[k] = x;
  }
  return out;
}

function jsonType(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v === null) return "null";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** Basic structural checks: types, enums, required. Field paths as the API server prints them. */
export function checkSchema(v: unknown, schema: Schema, path: string, root = false): FieldError[] {
  const errs: FieldError[] = [];
  if (root && isPlainObject(v)) {
    for (const [k, sub] of Object.entries(schema.properties ?? {})) {
      if (k === "metadata" || k === "apiVersion" || k === "kind") continue;
      if (v[k] !== undefined) errs.push(...checkSchema(v[k], sub, k));
    }
    for (const r of schema.required ?? []) if (v[r] === undefined && r !== "metadata") errs.push(fieldRequired(r, ""));
    return errs;
  }
  if (v === undefined) return errs;
  if (schema["x-kubernetes-int-or-string"]) {
    if (typeof v !== "string" && !Number.isInteger(v))
      errs.push({ ...fieldInvalid(path, v, `${path} in body must be of type int-or-string: "${jsonType(v)}"`), reason: "FieldValueTypeInvalid" });
    return errs;
  }
  const want = schema.type;
  const got = jsonType(v);
  if (want && !(want === got || (want === "number" && got === "integer")) && !(v === null && schema.nullable)) {
    errs.push({ ...fieldInvalid(path, got, `${path} in body must be of type ${want}: "${got}"`), reason: "FieldValueTypeInvalid" });
    return errs;
  }
  if (schema.enum && !schema.enum.some((e) => e === v)) errs.push(fieldNotSupported(path, v, schema.enum.map(String)));
  if (isPlainObject(v)) {
    for (const [k, sub] of Object.entries(schema.properties ?? {})) if (v[k] !== undefined) errs.push(...checkSchema(v[k], sub, `${path}.${k}`));
    if (isPlainObject(schema.additionalProperties))
      for (const [k, x] of Object.entries(v)) if (!schema.properties?.[k]) errs.push(...checkSchema(x, schema.additionalProperties as Schema, `${path}.${k}`));
    for (const r of schema.required ?? []) if (v[r] === undefined) errs.push(fieldRequired(`${path}.${r}`, ""));
  } else if (Array.isArray(v) && schema.items) {
    v.forEach((x, i) => errs.push(...checkSchema(x, schema.items!, `${path}[${i}]`)));
  }
  return errs;
}

/** Validation of CRD objects themselves: the few rules that keep the type table consistent. */
function validateCrd(store: Store) {
  return (crd: KubeObject, old: KubeObject | undefined): FieldError[] => {
    const errs: FieldError[] = [];
    const spec = crd.spec ?? {};
    const names = spec.names ?? {};
    if (!spec.group) errs.push(fieldRequired("spec.group", ""));
    if (!names.plural) errs.push(fieldRequired("spec.names.plural", ""));
    if (!names.kind) errs.push(fieldRequired("spec.names.kind", ""));
    if (spec.scope !== "Cluster" && spec.scope !== "Namespaced") errs.push(fieldNotSupported("spec.scope", spec.scope, ["Cluster", "Namespaced"]));
    if (!Array.isArray(spec.versions) || spec.versions.length === 0) errs.push(fieldRequired("spec.versions", "must have exactly one version marked as storage version"));
    else if (spec.versions.filter((v: CrdVersion) => v.storage).length !== 1)
      errs.push(fieldInvalid("spec.versions", spec.versions.map((v: CrdVersion) => v.name), "must have exactly one version marked as storage version"));
    if (spec.group && names.plural && crd.metadata?.name !== `${names.plural}.${spec.group}`)
      errs.push(fieldInvalid("metadata.name", crd.metadata?.name, `must be spec.names.plural+"."+spec.group`));
    const existing = spec.group && names.plural ? store.registry.get(spec.group, names.plural) : undefined;
    if (existing && !existing.custom) errs.push(fieldInvalid("spec.names.plural", names.plural, "is served by a built-in type"));
    if (old && old.spec?.scope !== spec.scope) errs.push(fieldInvalid("spec.scope", spec.scope, "field is immutable"));
    return errs;
  };
}

function crdStatus(crd: KubeObject, now: string): Record<string, unknown> {
  const cond = (type: string, reason: string, message: string) => ({ type, status: "True", lastTransitionTime: now, reason, message });
  return {
    conditions: [cond("NamesAccepted", "NoConflicts", "no conflicts found"), cond("Established", "InitialNamesAccepted", "the initial names have been accepted")],
    acceptedNames: crd.spec?.names ?? {},
    storedVersions: (crd.spec?.versions ?? []).filter((v: CrdVersion) => v.storage).map((v: CrdVersion) => v.name),
  };
}

/** Serves CRDs: registers the type on create/update and removes it (and its objects) on delete. */
export function installCrdController(store: Store, now: () => string): void {
  const crdType = store.registry.get("apiextensions.k8s.io", "customresourcedefinitions")!;
  crdType.hooks = {
    prepareForCreate(obj) {
      obj.status = crdStatus(obj, now());
    },
    validate: validateCrd(store),
  };
  store.onCommit((t, ev) => {
    if (t !== crdType) return;
    const spec = ev.entry.obj.spec ?? {};
    if (ev.type === "DELETED") {
      const gone = store.registry.remove(spec.group, spec.names?.plural);
      if (gone) store.dropType(gone);
      return;
    }
    const nt = crdToType(ev.entry.obj);
    store.registry.add(nt);
    store.state(nt);
  });
}
