// /openapi/v2 and /openapi/v3 from the live type table (kube-api.md §1): built-ins from
// builtin-schemas.ts, custom resources from their CRD's openAPIV3Schema. kubectl 1.31 reads v3:
// the PATCH operation of each kind declaring the `fieldValidation` parameter tells it that the
// server validates fields (it then sends fieldValidation=Strict instead of checking on its side),
// and `kubectl explain` walks components.schemas. v2 is served as JSON only (client-go asks for
// protobuf there, gets 406 and uses v3).
import { createHash } from "node:crypto";
import { builtinSchema, objectMeta, OBJECT_META_NAME, withEnvelope } from "./builtin-schemas.js";
import { isPlainObject } from "./json.js";
import type { Registry } from "./registry.js";
import { SERVER_VERSION } from "./discovery.js";
import type { ResourceType, Schema } from "./types.js";

const OPEN: Schema = { type: "object", "x-kubernetes-preserve-unknown-fields": true };

// Per type object: a CRD change registers a new one, so entries never go stale.
const published = new WeakMap<ResourceType, Map<string, Schema>>();

/** The schema a kind is published (and strictly validated) with; refs as `#/definitions/<name>`. */
export function publishedSchema(t: ResourceType, version: string): Schema {
  let byVersion = published.get(t);
  if (!byVersion) published.set(t, (byVersion = new Map()));
  let s = byVersion.get(version);
  if (!s) byVersion.set(version, (s = buildSchema(t, version)));
  return s;
}

function buildSchema(t: ResourceType, version: string): Schema {
  const gvk = [{ group: t.group, version, kind: t.kind }];
  let s: Schema | undefined;
  if (!t.custom) s = builtinSchema(t.group, version, t.kind);
  if (!s && t.custom && t.schemas?.[version]) {
    const crd = structuredClone(t.schemas[version]!);
    const { apiVersion: _a, kind: _k, metadata: _m, ...own } = crd.properties ?? {};
    s = { ...withEnvelope(own, crd.description as string | undefined, crd.required?.filter((r) => r !== "metadata")) };
    for (const [k, v] of Object.entries(crd)) if (!["type", "properties", "required", "description"].includes(k)) s[k] = v;
  }
  // Kinds without a schema (types registered by tests, schemaless CRDs) accept any field.
  s ??= { ...withEnvelope({}), "x-kubernetes-preserve-unknown-fields": true };
  return { ...s, "x-kubernetes-group-version-kind": gvk };
}

/** Definition name, as kube-apiserver names them: io.k8s.api.core.v1.Node, io.lockstep.v1alpha1.X. */
export function definitionName(t: ResourceType, version: string): string {
  if (t.custom) return `${t.group.split(".").reverse().join(".")}.${version}.${t.kind}`;
  if (t.group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${t.kind}`;
  return `io.k8s.api.${t.group === "" ? "core" : t.group.split(".")[0]}.${version}.${t.kind}`;
}

const gvPath = (group: string, version: string) => (group === "" ? `api/${version}` : `apis/${group}/${version}`);

interface Op {
  method: "get" | "post" | "put" | "patch" | "delete";
  action: string;
  params: string[];
  body?: boolean;
}

const WRITE_PARAMS = ["dryRun", "fieldManager", "fieldValidation"];

/** The paths of one kind: its collection and its objects (cluster-wide and per namespace). */
function kindPaths(t: ResourceType, version: string, ref: string, v3: boolean): Record<string, unknown> {
  const base = `/${gvPath(t.group, version)}`;
  const gvk = { group: t.group, version, kind: t.kind };
  const collection = t.namespaced ? `${base}/namespaces/{namespace}/${t.plural}` : `${base}/${t.plural}`;
  const item = `${collection}/{name}`;
  const collectionOps: Op[] = t.createOnly
    ? [{ method: "post", action: "post", params: WRITE_PARAMS, body: true }]
    : [
        { method: "get", action: "list", params: ["labelSelector", "fieldSelector", "limit", "continue", "resourceVersion", "watch"] },
        { method: "post", action: "post", params: WRITE_PARAMS, body: true },
        { method: "delete", action: "deletecollection", params: ["labelSelector", "fieldSelector", "dryRun"] },
      ];
  const itemOps: Op[] = [
    { method: "get", action: "get", params: [] },
    { method: "put", action: "put", params: WRITE_PARAMS, body: true },
    { method: "patch", action: "patch", params: [...WRITE_PARAMS, "force"], body: true },
    { method: "delete", action: "delete", params: ["dryRun", "gracePeriodSeconds", "propagationPolicy"] },
  ];
  const pathParams = (p: string) => [...p.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
  const op = (o: Op, path: string) => {
    const parameters = [
      ...pathParams(path).map((name) => (v3 ? { name, in: "path", required: true, schema: { type: "string", uniqueItems: true } } : { name, in: "path", required: true, type: "string", uniqueItems: true })),
      ...o.params.map((name) => (v3 ? { name, in: "query", schema: { type: "string", uniqueItems: true } } : { name, in: "query", type: "string", uniqueItems: true })),
    ];
    const out: Record<string, unknown> = {
      operationId: `${o.action}${t.kind}`,
      parameters,
      "x-kubernetes-action": o.action,
      "x-kubernetes-group-version-kind": gvk,
    };
    const schemaRef = { $ref: ref };
    if (v3) {
      if (o.body) out.requestBody = { content: { "*/*": { schema: schemaRef } }, required: true };
      out.responses = { "200": { description: "OK", content: { "application/json": { schema: schemaRef } } } };
    } else {
      if (o.body) out.parameters = [...parameters, { name: "body", in: "body", required: true, schema: schemaRef }];
      out.responses = { "200": { description: "OK", schema: schemaRef } };
      out.consumes = o.method === "patch" ? ["application/json-patch+json", "application/merge-patch+json", "application/strategic-merge-patch+json", "application/apply-patch+yaml"] : ["*/*"];
      out.produces = ["application/json", "application/yaml"];
    }
    return [o.method, out] as const;
  };
  const paths: Record<string, unknown> = { [collection]: Object.fromEntries(collectionOps.map((o) => op(o, collection))) };
  if (!t.createOnly) paths[item] = Object.fromEntries(itemOps.map((o) => op(o, item)));
  return paths;
}

/** Rewrites `#/definitions/X` refs for v3: `#/components/schemas/X`, wrapped in allOf as upstream. */
function toV3(s: unknown): unknown {
  if (Array.isArray(s)) return s.map(toV3);
  if (!isPlainObject(s)) return s;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(s)) out[k] = k === "x-kubernetes-group-version-kind" || k === "enum" || k === "default" || k === "example" ? v : toV3(v);
  if (typeof out.$ref === "string") {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref: ($ref as string).replace("#/definitions/", "#/components/schemas/") }] };
  }
  return out;
}

const INFO = { title: "Kubernetes", version: SERVER_VERSION.gitVersion };

interface Cache {
  revision: number;
  v2?: string;
  v3: Map<string, { json: string; hash: string }>;
}
const caches = new WeakMap<Registry, Cache>();

function cacheOf(reg: Registry): Cache {
  let c = caches.get(reg);
  if (!c || c.revision !== reg.revision) {
    c = { revision: reg.revision, v3: new Map() };
    caches.set(reg, c);
  }
  return c;
}

function groupVersions(reg: Registry): Array<{ group: string; version: string; types: ResourceType[] }> {
  const out = new Map<string, { group: string; version: string; types: ResourceType[] }>();
  for (const t of reg.all()) {
    for (const version of t.versions) {
      const key = gvPath(t.group, version);
      const e = out.get(key) ?? { group: t.group, version, types: [] };
      e.types.push(t);
      out.set(key, e);
    }
  }
  return [...out.values()];
}

function gvDocument(reg: Registry, group: string, version: string): { json: string; hash: string } | undefined {
  const cache = cacheOf(reg);
  const key = gvPath(group, version);
  const hit = cache.v3.get(key);
  if (hit) return hit;
  const types = reg.all().filter((t) => t.group === group && t.versions.includes(version));
  if (types.length === 0) return undefined;
  const schemas: Record<string, unknown> = { [OBJECT_META_NAME]: toV3(objectMeta) };
  let paths: Record<string, unknown> = {};
  for (const t of types) {
    const name = definitionName(t, version);
    schemas[name] = toV3(publishedSchema(t, version));
    paths = { ...paths, ...kindPaths(t, version, `#/components/schemas/${name}`, true) };
  }
  const json = JSON.stringify({ openapi: "3.0.0", info: INFO, paths, components: { schemas } });
  const doc = { json, hash: createHash("sha512").update(json).digest("hex").toUpperCase() };
  cache.v3.set(key, doc);
  return doc;
}

/** GET /openapi/v3: where each group-version's document is, with a hash clients cache by. */
export function openApiV3Root(reg: Registry): unknown {
  const paths: Record<string, { serverRelativeURL: string }> = {};
  for (const gv of groupVersions(reg)) {
    const doc = gvDocument(reg, gv.group, gv.version)!;
    paths[gvPath(gv.group, gv.version)] = { serverRelativeURL: `/openapi/v3/${gvPath(gv.group, gv.version)}?hash=${doc.hash}` };
  }
  return { paths };
}

/** GET /openapi/v3/api/v1, /openapi/v3/apis/<group>/<version>: the JSON text, or undefined (404). */
export function openApiV3Document(reg: Registry, subPath: string): string | undefined {
  const parts = subPath.split("/").filter(Boolean);
  if (parts[0] === "api" && parts.length === 2) return gvDocument(reg, "", parts[1]!)?.json;
  if (parts[0] === "apis" && parts.length === 3) return gvDocument(reg, parts[1]!, parts[2]!)?.json;
  return undefined;
}

/** GET /openapi/v2 (JSON): every served kind in one Swagger 2.0 document. */
export function openApiV2(reg: Registry): string {
  const cache = cacheOf(reg);
  if (cache.v2) return cache.v2;
  const definitions: Record<string, unknown> = { [OBJECT_META_NAME]: objectMeta };
  let paths: Record<string, unknown> = {};
  for (const t of reg.all()) {
    for (const version of t.versions) {
      const name = definitionName(t, version);
      definitions[name] = publishedSchema(t, version);
      paths = { ...paths, ...kindPaths(t, version, `#/definitions/${name}`, false) };
    }
  }
  cache.v2 = JSON.stringify({ swagger: "2.0", info: INFO, paths, definitions });
  return cache.v2;
}

/** Resolves a `#/definitions/...` reference of a published schema (only ObjectMeta is referenced). */
export function resolveRef(s: Schema): Schema {
  return s.$ref === `#/definitions/${OBJECT_META_NAME}` ? objectMeta : s.$ref !== undefined ? OPEN : s;
}
