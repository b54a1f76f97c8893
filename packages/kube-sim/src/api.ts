// The resource API handler: turns a parsed route + request into store calls and Status responses.
import type { IncomingMessage, ServerResponse } from "node:http";
import { badRequest, expired, failure, gone, KubeError, methodNotAllowed, notFound, notFoundPath } from "./errors.js";
import type { Admission, AdmissionRequest } from "./admission.js";
import { warningHeaders } from "./admission.js";
import type { Operation } from "./webhook-config.js";
import { checkEviction, evict } from "./eviction.js";
import type { DisruptionController } from "./disruption.js";
import type { Faults } from "./faults.js";
import { fieldValidationOf, validateFields } from "./field-validation.js";
import { decodeBody, readBody, sendJson } from "./http-util.js";
import { publishedSchema } from "./openapi.js";
import { includeObjectOf, toTable, wantsTable } from "./table.js";
import { isPlainObject } from "./json.js";
import type { UserInfo } from "./rbac.js";
import { review, tokenRequest, type ReviewContext } from "./reviews.js";
import type { Route } from "./router.js";
import { parseFieldSelector, parseLabelSelector, type Filter } from "./selectors.js";
import { entryJson, servedEntry, type DeleteOptions, type DeleteResult, type Entry, type Store, type WriteResult } from "./store.js";
import { apiVersionOf, hasStatusSubresource, splitApiVersion, type KubeObject, type ResourceType } from "./types.js";
import { startStream, WatchStream, writeErrorEvent } from "./watch-stream.js";

export type ResourceRoute = Extract<Route, { kind: "resource" }>;

export interface ApiContext {
  store: Store;
  faults: Faults;
  disruption?: DisruptionController;
  watches: Set<WatchStream>;
  watchTimeoutSeconds?: number;
  watchBufferBytes: number;
  /** Authentication and the review APIs. */
  reviews: ReviewContext;
  /** Validating admission webhooks (ValidatingWebhookConfiguration). */
  admission?: Admission;
}

/** What a write needs once admission has run: store the prepared result (undefined → prepare again). */
interface Prepared<T> {
  review: AdmissionRequest;
  commit(): T | undefined;
}

/**
 * Runs a write the way kube-apiserver orders it: decode, patch, default and validate (a dry run
 * against the store), then the validating webhooks on that final object, then the store write —
 * again from the start if the object changed meanwhile (GuaranteedUpdate's retry).
 */
async function admitted<T>(ctx: ApiContext, res: ServerResponse, prepare: () => Prepared<T>): Promise<T> {
  const earlier = warningsOf(res);
  for (let attempt = 0; ; attempt++) {
    const p = prepare();
    const { warnings, error } = await ctx.admission!.validate(p.review);
    setWarnings(res, earlier, warnings);
    if (error) throw error;
    const out = p.commit();
    if (out !== undefined) return out;
    if (attempt >= 20) throw new KubeError(failure(409, "the object kept changing while admission webhooks were called", "Conflict"));
  }
}

/** The Warning header values already on the response (deletecollection admits object by object). */
function warningsOf(res: ServerResponse): string[] {
  const h = res.getHeader("Warning");
  return h === undefined ? [] : Array.isArray(h) ? h : [String(h)];
}

/** Webhook warnings as `Warning` headers, after those of earlier objects of the same request. */
function setWarnings(res: ServerResponse, earlier: string[], warnings: string[]): void {
  const all = [...earlier, ...(warningHeaders(warnings).Warning ?? [])];
  if (all.length) res.setHeader("Warning", all);
  else res.removeHeader("Warning");
}

function admissionOn(ctx: ApiContext): boolean {
  return ctx.admission?.active() === true;
}

function metaOptions(kind: string, extra: Record<string, unknown>): Record<string, unknown> {
  const o: Record<string, unknown> = { kind, apiVersion: "meta.k8s.io/v1" };
  for (const [k, v] of Object.entries(extra)) if (v !== undefined) o[k] = v;
  return o;
}

function reviewOf(
  t: ResourceType,
  r: ResourceRoute,
  operation: Operation,
  object: KubeObject | undefined,
  oldObject: KubeObject | undefined,
  user: UserInfo,
  dryRun: boolean,
  options: Record<string, unknown>,
  subresource = r.subresource ?? "",
): AdmissionRequest {
  const apiVersion = apiVersionOf(t.group, r.version);
  const asRequested = (stored: KubeObject | undefined) => {
    const o = stored && t.storage ? t.storage.fromStorage(stored) : stored;
    return o && o.apiVersion !== apiVersion ? { ...o, apiVersion } : o;
  };
  // On CREATE under generateName, validating webhooks see the generated name (upstream's AdmissionToValidateObjectFunc).
  const name = (object ?? oldObject)?.metadata?.name ?? r.name ?? "";
  const isNamespace = t.group === "" && t.plural === "namespaces";
  return {
    operation,
    resource: { group: t.group, version: r.version, resource: t.plural },
    subresource,
    kind: { group: t.group, version: r.version, kind: t.kind },
    namespace: isNamespace ? ((object ?? oldObject)?.metadata?.name ?? name) : t.namespaced ? ((object ?? oldObject)?.metadata?.namespace ?? r.namespace ?? "") : "",
    name,
    object: asRequested(object),
    oldObject: asRequested(oldObject),
    equivalentVersions: t.versions,
    userInfo: user,
    dryRun,
    options,
  };
}

export function verbOf(method: string, r: ResourceRoute, query: URLSearchParams): string {
  switch (method) {
    case "GET":
      if (r.name) return "get";
      return isWatch(query) ? "watch" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return r.name ? "delete" : "deletecollection";
    default:
      return method.toLowerCase();
  }
}

function isWatch(q: URLSearchParams): boolean {
  const w = q.get("watch");
  return w === "true" || w === "1";
}

/**
 * Serialises a stored object as `t` serves it at the requested version (CRDs may serve several
 * versions of one storage; events.k8s.io Events are stored as core/v1 ones).
 */
function objectJson(t: ResourceType, stored: Entry, apiVersion: string): Buffer {
  const e = servedEntry(t, stored);
  if (e.obj.apiVersion === apiVersion) return entryJson(e);
  return Buffer.from(JSON.stringify({ ...e.obj, apiVersion }));
}

/** A list body assembled from the cached item buffers in one allocation. */
function listBody(head: string, items: Buffer[]): Buffer {
  const h = Buffer.from(head);
  const tail = Buffer.from("]}");
  let size = h.length + tail.length + Math.max(0, items.length - 1);
  for (const b of items) size += b.length;
  const out = Buffer.allocUnsafe(size);
  let o = h.copy(out, 0);
  for (let i = 0; i < items.length; i++) {
    if (i > 0) out[o++] = 0x2c;
    o += items[i]!.copy(out, o);
  }
  tail.copy(out, o);
  return out;
}

function filterFrom(t: ResourceType, r: ResourceRoute, q: URLSearchParams): Filter {
  return {
    namespace: t.namespaced ? r.namespace : undefined,
    labels: parseLabelSelector(q.get("labelSelector") ?? ""),
    fields: parseFieldSelector(q.get("fieldSelector") ?? "", t.fields),
  };
}

function numberParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === "") return undefined;
  const n = Number(v);
  if (!Number.isFinite(n)) throw badRequest(`invalid value for ${name}: ${v}`);
  return n;
}

export async function handleResource(
  ctx: ApiContext,
  req: IncomingMessage,
  res: ServerResponse,
  r: ResourceRoute,
  t: ResourceType,
  query: URLSearchParams,
  user: UserInfo,
): Promise<void> {
  const { store } = ctx;
  const method = req.method ?? "GET";
  const apiVersion = apiVersionOf(t.group, r.version);
  const ns = t.namespaced ? r.namespace : undefined;
  if (!t.namespaced && r.namespace !== undefined) throw notFoundPath();
  const dryRun = query.get("dryRun") === "All";
  const sub = r.subresource;
  if (sub && !t.subresources.includes(sub)) throw notFoundPath();
  if (sub === "status" && !hasStatusSubresource(t, r.version)) throw notFoundPath();

  if (t.createOnly) {
    if (r.name || method !== "POST") throw methodNotAllowed();
    if (t.namespaced && ns === undefined) throw methodNotAllowed();
    const body = decodeBody(await readBody(req), req.headers["content-type"]);
    return sendJson(res, 201, review(ctx.reviews, t, ns, body, user));
  }
  if (sub === "token") {
    if (method !== "POST") throw methodNotAllowed();
    const body = decodeBody(await readBody(req), req.headers["content-type"]);
    return sendJson(res, 201, tokenRequest(ctx.reviews, ns!, r.name!, body));
  }

  if (!r.name) {
    if (t.namespaced && method === "POST" && ns === undefined) throw methodNotAllowed();
    if (method === "GET") {
      if (isWatch(query)) return watch(ctx, req, res, r, t, query, apiVersion);
      const result = store.list(t, {
        filter: filterFrom(t, r, query),
        limit: numberParam(query, "limit"),
        continue: query.get("continue") ?? undefined,
        resourceVersion: query.get("resourceVersion") ?? undefined,
        resourceVersionMatch: query.get("resourceVersionMatch") ?? undefined,
      });
      if (wantsTable(req.headers.accept)) {
        const listMeta: Record<string, unknown> = { resourceVersion: result.resourceVersion };
        if (result.continue) listMeta.continue = result.continue;
        if (result.remainingItemCount !== undefined) listMeta.remainingItemCount = result.remainingItemCount;
        const objs = result.items.map((stored) => {
          const e = servedEntry(t, stored);
          return e.obj.apiVersion === apiVersion ? e.obj : { ...e.obj, apiVersion };
        });
        return sendJson(res, 200, toTable(t, r.version, objs, store.clock(), includeObjectOf(query), listMeta));
      }
      let meta = `"resourceVersion":"${result.resourceVersion}"`;
      if (result.continue) meta += `,"continue":${JSON.stringify(result.continue)}`;
      if (result.remainingItemCount !== undefined) meta += `,"remainingItemCount":${result.remainingItemCount}`;
      const items = result.items.map((e) => objectJson(t, e, apiVersion));
      return sendJson(res, 200, listBody(`{"kind":"${t.listKind}","apiVersion":"${apiVersion}","metadata":{${meta}},"items":[`, items));
    }
    if (method === "POST") {
      const body = decodeBody(await readBody(req), req.headers["content-type"]);
      checkFields(res, t, r.version, query, body);
      const fieldManager = query.get("fieldManager") ?? undefined;
      const e = !admissionOn(ctx)
        ? store.create(t, ns, body, { dryRun })
        : await admitted(ctx, res, () => {
            const prepared = store.create(t, ns, body, { dryRun: true });
            return {
              review: reviewOf(
                t,
                r,
                "CREATE",
                prepared.obj,
                undefined,
                user,
                dryRun,
                metaOptions("CreateOptions", { dryRun: dryRun ? ["All"] : undefined, fieldManager }),
              ),
              commit: () => (dryRun ? prepared : store.insertPrepared(t, prepared.obj)),
            };
          });
      return sendJson(res, 201, objectJson(t, e, apiVersion));
    }
    if (method === "DELETE") {
      // kube-apiserver serves deletecollection of a namespaced type only inside a namespace.
      if (t.namespaced && !ns) throw methodNotAllowed();
      const filter = filterFrom(t, r, query);
      const items = store.list(t, { filter }).items;
      const opts = deleteOptions(undefined, query);
      for (const e of items) {
        const itemNs = e.obj.metadata?.namespace;
        const itemName = e.obj.metadata!.name!;
        try {
          if (!admissionOn(ctx)) store.delete(t, itemNs, itemName, opts);
          else await admitDelete(ctx, res, t, { ...r, name: itemName, namespace: itemNs }, itemNs, itemName, opts, user, r.namespace ?? "");
        } catch (err) {
          if (!(err instanceof KubeError && err.code === 404)) throw err;
        }
      }
      return sendJson(res, 200, { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" });
    }
    throw methodNotAllowed();
  }

  const name = r.name;
  if (sub === "eviction") {
    if (method !== "POST") throw methodNotAllowed();
    const body = decodeBody(await readBody(req), req.headers["content-type"]) ?? {};
    if (admissionOn(ctx)) {
      const eviction = checkEviction(ns!, name, body);
      const { group, version } = splitApiVersion(typeof eviction.apiVersion === "string" ? eviction.apiVersion : "policy/v1");
      const review: AdmissionRequest = {
        ...reviewOf(t, r, "CREATE", eviction, undefined, user, dryRun, metaOptions("CreateOptions", { dryRun: dryRun ? ["All"] : undefined }), "eviction"),
        kind: { group: group || "policy", version: version || "v1", kind: "Eviction" },
        object: eviction,
        name,
        namespace: ns!,
      };
      const { warnings, error } = await ctx.admission!.validate(review);
      setWarnings(res, [], warnings);
      if (error) throw error;
    }
    const out = evict(store, ctx.disruption, ns!, name, body);
    return sendJson(res, out.code, out.body);
  }
  if (sub === "finalize") {
    if (method !== "PUT") throw methodNotAllowed();
    const body = decodeBody(await readBody(req), req.headers["content-type"]);
    return sendJson(res, 200, objectJson(t, finalizeNamespace(store, t, name, body), apiVersion));
  }
  if (sub === "proxy") throw notFoundPath();
  switch (method) {
    case "GET": {
      const e = store.get(t, ns, name);
      if (wantsTable(req.headers.accept)) {
        const served = servedEntry(t, e).obj;
        const obj = served.apiVersion === apiVersion ? served : { ...served, apiVersion };
        return sendJson(res, 200, toTable(t, r.version, [obj], store.clock(), includeObjectOf(query), { resourceVersion: e.obj.metadata?.resourceVersion }));
      }
      return sendJson(res, 200, objectJson(t, e, apiVersion));
    }
    case "PUT": {
      const body = decodeBody(await readBody(req), req.headers["content-type"]);
      checkFields(res, t, r.version, query, body);
      const fieldManager = query.get("fieldManager") ?? undefined;
      const { entry, created } = !admissionOn(ctx)
        ? store.update(t, ns, name, body, { subresource: sub, dryRun })
        : await admitted(ctx, res, () =>
            preparedWrite(t, r, user, dryRun, fieldManager, store.getEntry(t, ns, name), store.update(t, ns, name, body, { subresource: sub, dryRun: true }), store),
          );
      return sendJson(res, created ? 201 : 200, objectJson(t, entry, apiVersion));
    }
    case "PATCH": {
      const ct = req.headers["content-type"] ?? "";
      const body = decodeBody(await readBody(req), ct.includes("yaml") ? ct : "application/json");
      if (!ct.includes("json-patch")) checkFields(res, t, r.version, query, body);
      const fieldManager = query.get("fieldManager") ?? undefined;
      const { entry, created } = !admissionOn(ctx)
        ? store.patch(t, ns, name, ct, body, { subresource: sub, dryRun, fieldManager })
        : await admitted(ctx, res, () =>
            preparedWrite(t, r, user, dryRun, fieldManager, store.getEntry(t, ns, name), store.patch(t, ns, name, ct, body, { subresource: sub, dryRun: true, fieldManager }), store),
          );
      return sendJson(res, created ? 201 : 200, objectJson(t, entry, apiVersion));
    }
    case "DELETE": {
      if (sub) throw methodNotAllowed();
      const body = decodeBody(await readBody(req), req.headers["content-type"], false);
      const opts = deleteOptions(body, query);
      const out = !admissionOn(ctx) ? store.delete(t, ns, name, opts) : await admitDelete(ctx, res, t, r, ns, name, opts, user);
      const bodyJson = out.body === out.entry.obj ? objectJson(t, out.entry, apiVersion) : JSON.stringify(out.body);
      return sendJson(res, 200, bodyJson);
    }
    default:
      throw methodNotAllowed();
  }
}

/**
 * Unknown fields of a write under `fieldValidation` (Strict: 400 before anything is stored; Warn:
 * `Warning` headers). Subresource writes (status) are checked against the whole kind's schema too.
 */
function checkFields(res: ServerResponse, t: ResourceType, version: string, query: URLSearchParams, body: unknown): void {
  const directive = fieldValidationOf(query);
  if (directive === "Ignore") return;
  const warnings = validateFields(directive, body, publishedSchema(t, version), t.kind, version);
  if (warnings.length) setWarnings(res, warningsOf(res), warnings);
}

/** An update or patch prepared by a dry run: UPDATE of `old`, or CREATE when it creates (Lease PUT, apply). */
function preparedWrite(
  t: ResourceType,
  r: ResourceRoute,
  user: UserInfo,
  dryRun: boolean,
  fieldManager: string | undefined,
  old: Entry | undefined,
  result: WriteResult,
  store: Store,
): Prepared<WriteResult> {
  const dry = dryRun ? ["All"] : undefined;
  if (result.created || !old) {
    return {
      review: reviewOf(t, r, "CREATE", result.entry.obj, undefined, user, dryRun, metaOptions("CreateOptions", { dryRun: dry, fieldManager })),
      commit: () => (dryRun ? result : { entry: store.insertPrepared(t, result.entry.obj), created: true }),
    };
  }
  return {
    review: reviewOf(t, r, "UPDATE", result.entry.obj, old.obj, user, dryRun, metaOptions("UpdateOptions", { dryRun: dry, fieldManager })),
    commit: () => (dryRun ? result : store.commitPrepared(t, old, result.entry.obj)),
  };
}

/** DELETE through admission: preconditions first (a dry run), then the webhooks on the stored object. */
function admitDelete(
  ctx: ApiContext,
  res: ServerResponse,
  t: ResourceType,
  r: ResourceRoute,
  ns: string | undefined,
  name: string,
  opts: DeleteOptions,
  user: UserInfo,
  /** Set for deletecollection: the request's namespace ("" cluster-wide). */
  collectionNamespace?: string,
): Promise<DeleteResult> {
  const { store } = ctx;
  return admitted(ctx, res, () => {
    const old = store.get(t, ns, name);
    store.delete(t, ns, name, { ...opts, dryRun: true });
    const options = metaOptions("DeleteOptions", {
      gracePeriodSeconds: opts.gracePeriodSeconds,
      preconditions: opts.preconditions,
      propagationPolicy: opts.propagationPolicy,
      dryRun: opts.dryRun ? ["All"] : undefined,
    });
    const review = reviewOf(t, { ...r, subresource: undefined }, "DELETE", undefined, old.obj, user, opts.dryRun === true, options);
    // kube-apiserver reviews each object of a deletecollection with the collection's attributes: no name, the
    // request's namespace (the object is in oldObject).
    if (collectionNamespace !== undefined) Object.assign(review, { name: "", namespace: collectionNamespace });
    return {
      review,
      commit: () => (store.getEntry(t, ns, name) === old ? store.delete(t, ns, name, opts) : undefined),
    };
  });
}

function deleteOptions(body: unknown, q: URLSearchParams): DeleteOptions {
  const o: DeleteOptions = {};
  if (isPlainObject(body)) {
    if (typeof body.gracePeriodSeconds === "number") o.gracePeriodSeconds = body.gracePeriodSeconds;
    if (typeof body.propagationPolicy === "string") o.propagationPolicy = body.propagationPolicy;
    if (isPlainObject(body.preconditions)) o.preconditions = body.preconditions as DeleteOptions["preconditions"];
    if (Array.isArray(body.dryRun) && body.dryRun.includes("All")) o.dryRun = true;
  }
  const g = numberParam(q, "gracePeriodSeconds");
  if (g !== undefined) o.gracePeriodSeconds = g;
  const p = q.get("propagationPolicy");
  if (p) o.propagationPolicy = p;
  if (q.get("dryRun") === "All") o.dryRun = true;
  return o;
}

function finalizeNamespace(store: Store, t: ResourceType, name: string, body: unknown): Entry {
  const old = store.get(t, undefined, name);
  const finalizers = isPlainObject(body) && isPlainObject(body.spec) && Array.isArray(body.spec.finalizers) ? body.spec.finalizers : [];
  const { entry } = store.update(t, undefined, name, { ...old.obj, spec: { ...(old.obj.spec ?? {}), finalizers } });
  if (entry.obj.metadata?.deletionTimestamp && finalizers.length === 0) store.forceRemove(t, undefined, name);
  return entry;
}

function watch(ctx: ApiContext, req: IncomingMessage, res: ServerResponse, r: ResourceRoute, t: ResourceType, q: URLSearchParams, apiVersion: string): void {
  const { store, faults } = ctx;
  const filter = filterFrom(t, r, q);
  const rvText = q.get("resourceVersion");
  let fromRv: number | undefined;
  if (rvText && rvText !== "0") {
    fromRv = Number(rvText);
    if (!Number.isInteger(fromRv) || fromRv < 0) throw badRequest(`invalid resource version: ${rvText}`);
  }
  const timeoutSeconds = numberParam(q, "timeoutSeconds") ?? ctx.watchTimeoutSeconds;
  if (fromRv !== undefined) {
    const mode = faults.takeGone();
    if (mode === "http") throw gone(`too old resource version: ${fromRv} (${store.resourceVersion})`);
    if (mode) {
      const err = mode === "gone-event" ? gone(`too old resource version: ${fromRv} (${store.resourceVersion})`) : expired(`too old resource version: ${fromRv} (${store.resourceVersion})`);
      startStream(res);
      writeErrorEvent(res, err.status);
      res.end();
      return;
    }
  }
  const stream = new WatchStream(res, {
    filter,
    bookmarks: q.get("allowWatchBookmarks") === "true" || q.get("allowWatchBookmarks") === "1",
    kind: t.kind,
    apiVersion,
    currentRv: () => store.resourceVersion,
    maxBufferBytes: ctx.watchBufferBytes,
    transform: wantsTable(req.headers.accept) ? tableEvents(t, r.version, store, includeObjectOf(q)) : undefined,
  });
  startStream(res);
  try {
    stream.unsubscribe = store.watch(t, stream, fromRv);
  } catch (err) {
    if (err instanceof KubeError) {
      writeErrorEvent(res, err.status);
      stream.end();
      return;
    }
    throw err;
  }
  ctx.watches.add(stream);
  stream.onClose = () => ctx.watches.delete(stream);
  if (timeoutSeconds && timeoutSeconds > 0) stream.setTimeout(timeoutSeconds);
  req.on("close", () => stream.end());
}

/**
 * Watch events as one-row Tables, the column definitions in the first only (kube-apiserver sets
 * NoHeaders on the events after it).
 */
function tableEvents(t: ResourceType, version: string, store: Store, include: ReturnType<typeof includeObjectOf>): (obj: KubeObject) => unknown {
  let first = true;
  const apiVersion = apiVersionOf(t.group, version);
  return (obj) => {
    const table = toTable(t, version, [obj.apiVersion === apiVersion ? obj : { ...obj, apiVersion }], store.clock(), include, {
      resourceVersion: obj.metadata?.resourceVersion,
    }) as { columnDefinitions?: unknown };
    if (!first) delete table.columnDefinitions;
    first = false;
    return table;
  };
}

export { notFound };
