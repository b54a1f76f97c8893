// The store: one Map per type, ONE global resourceVersion counter, per-type bounded event logs, and
// the single synchronous write path every change goes through (kube-api.md §13).
import { randomUUID } from "node:crypto";
import {
  alreadyExists,
  badRequest,
  conflict,
  expired,
  fieldForbidden,
  fieldInvalid,
  forbidden,
  internalError,
  invalid,
  KubeError,
  failure,
  notFound,
  preconditionConflict,
  smpOnCustomResource,
  successStatus,
  unsupportedMediaType,
  type FieldError,
} from "./errors.js";
import { clone, deepEqual, isPlainObject } from "./json.js";
import { randomSuffix, timestamp, validateName } from "./meta.js";
import { jsonPatch, mergePatch, PATCH_TYPES, strategicMerge } from "./patch.js";
import { Registry } from "./registry.js";
import { uuidFrom, type Rng } from "./rng.js";
import { matchesFilter, type Filter } from "./selectors.js";
import { apiVersionOf, hasStatusSubresource, splitApiVersion, type KubeObject, type ResourceType } from "./types.js";

export type EventType = "ADDED" | "MODIFIED" | "DELETED";

/** A stored object. Stored objects are never mutated; `json` caches the serialisation. */
export interface Entry {
  readonly obj: KubeObject;
  json?: Buffer;
  /** Cached watch-event lines, per event type. */
  lines?: Partial<Record<EventType, Buffer>>;
}

/** The object's JSON as UTF-8, serialised once and shared by every GET, list and watch. */
export function entryJson(e: Entry): Buffer {
  return (e.json ??= Buffer.from(JSON.stringify(e.obj)));
}

export interface LogEvent {
  rv: number;
  type: EventType;
  entry: Entry;
  prev?: Entry;
  /** `prev` stamped with this event's RV: the body of a selector-leave DELETED. */
  prevStamped?: Entry;
}

export interface Watcher {
  filter: Filter;
  send(type: EventType, entry: Entry): void;
  /** Ends the watch from the server side (type removed, fault injection). */
  end?(): void;
}

export class TypeState {
  readonly objects = new Map<string, Entry>();
  readonly byNamespace = new Map<string, Set<string>>();
  private sorted: string[] | null = null;
  log: LogEvent[] = [];
  compactedRv = 0;
  readonly watchers = new Set<Watcher>();
  constructor(public type: ResourceType) {}

  sortedKeys(): string[] {
    return (this.sorted ??= [...this.objects.keys()].sort());
  }
  invalidateOrder(): void {
    this.sorted = null;
  }
}

export interface StoreOptions {
  /** Events kept per type for watch resumption (older RVs get 410). Default 10,000. */
  historyLimit?: number;
  /** Time source for timestamps; inject a virtual clock for reproducible runs. */
  clock?: () => Date;
  /** Seeded RNG for uids and generateName; unseeded (crypto) by default. */
  rng?: Rng;
  /** How long list continue tokens stay valid. Default 5 minutes. */
  continueTtlMs?: number;
}

export interface DeleteOptions {
  gracePeriodSeconds?: number;
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  dryRun?: boolean;
}

export interface ListQuery {
  filter: Filter;
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  resourceVersionMatch?: string;
}

export interface ListResult {
  resourceVersion: string;
  items: Entry[];
  continue?: string;
  remainingItemCount?: number;
}

export interface WriteResult {
  entry: Entry;
  created: boolean;
}

export interface DeleteResult {
  /** Still present (finalizers or graceful pod deletion): the object; otherwise gone. */
  entry: Entry;
  removed: boolean;
  body: unknown;
}

export type CommitListener = (type: ResourceType, ev: LogEvent) => void;

interface Snapshot {
  rv: number;
  items: Entry[];
  created: number;
}

const CONTINUE_TOO_OLD =
  "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.";

export function objectKey(namespace: string | undefined, name: string): string {
  return namespace ? `${namespace}/${name}` : name;
}

export class Store {
  readonly registry = new Registry();
  private readonly states = new Map<ResourceType, TypeState>();
  private readonly listeners: CommitListener[] = [];
  private readonly snapshots = new Map<string, Snapshot>();
  private snapshotSeq = 0;
  private rvCounter = 0;
  readonly historyLimit: number;
  readonly clock: () => Date;
  private readonly rng: Rng | undefined;
  readonly continueTtlMs: number;

  constructor(opts: StoreOptions = {}) {
    this.historyLimit = opts.historyLimit ?? 10_000;
    this.clock = opts.clock ?? (() => new Date());
    this.rng = opts.rng;
    this.continueTtlMs = opts.continueTtlMs ?? 5 * 60_000;
  }

  /** The current global resourceVersion. */
  get resourceVersion(): number {
    return this.rvCounter;
  }

  onCommit(l: CommitListener): void {
    this.listeners.push(l);
  }

  state(t: ResourceType): TypeState {
    if (t.storage) {
      const stored = this.registry.get(t.storage.group, t.storage.plural);
      if (stored) return this.state(stored);
    }
    let s = this.states.get(t);
    if (!s) {
      // A re-registered type (CRD update) keeps its objects and watchers.
      const prev = [...this.states.entries()].find(([k]) => k.group === t.group && k.plural === t.plural);
      if (prev) {
        s = prev[1];
        s.type = t;
        this.states.delete(prev[0]);
      } else {
        s = new TypeState(t);
        s.compactedRv = this.rvCounter;
      }
      this.states.set(t, s);
    }
    return s;
  }

  /** Forgets a type and everything stored under it (CRD deletion); open watches are ended. */
  dropType(t: ResourceType): void {
    const s = this.states.get(t);
    if (!s) return;
    for (const w of [...s.watchers]) w.end?.();
    this.states.delete(t);
  }

  private uid(): string {
    return this.rng ? uuidFrom(this.rng) : randomUUID();
  }

  private now(): string {
    return timestamp(this.clock());
  }

  // ---------------------------------------------------------------- reads

  getEntry(t: ResourceType, namespace: string | undefined, name: string): Entry | undefined {
    return this.state(t).objects.get(objectKey(t.namespaced ? namespace : undefined, name));
  }

  get(t: ResourceType, namespace: string | undefined, name: string): Entry {
    const e = this.getEntry(t, namespace, name);
    if (!e) throw notFound(t, name);
    return e;
  }

  /** Every stored object of the type in the namespace (or all), in etcd key order. */
  entries(t: ResourceType, namespace?: string): Entry[] {
    const s = this.state(t);
    const out: Entry[] = [];
    if (namespace !== undefined && t.namespaced) {
      const keys = s.byNamespace.get(namespace);
      if (!keys) return out;
      for (const k of [...keys].sort()) out.push(s.objects.get(k)!);
      return out;
    }
    for (const k of s.sortedKeys()) out.push(s.objects.get(k)!);
    return out;
  }

  list(t: ResourceType, q: ListQuery): ListResult {
    const s = this.state(t);
    const rvParam = q.resourceVersion;
    if (q.resourceVersionMatch && !rvParam) throw badRequest("resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (q.continue && rvParam && rvParam !== "0") throw badRequest("specifying resource version is not allowed when using continue");
    if (q.resourceVersionMatch === "Exact") {
      const want = Number(rvParam);
      const last = s.log[s.log.length - 1];
      // Serving a past state needs the type to be unchanged since then (reduced model, documented).
      if (!Number.isFinite(want) || want < s.compactedRv || (last && last.rv > want) || want > this.rvCounter)
        throw expired("The resourceVersion for the provided list is too old.");
    }
    const limit = q.limit && q.limit > 0 ? q.limit : 0;
    if (q.continue) return this.continueList(t, q, limit);
    const items = this.filtered(s, q.filter);
    return this.page(items, this.rvCounter, 0, limit, q.filter);
  }

  private filtered(s: TypeState, f: Filter): Entry[] {
    const out: Entry[] = [];
    const trivial = f.labels.length === 0 && f.fields.length === 0;
    if (f.namespace !== undefined && s.type.namespaced) {
      const keys = s.byNamespace.get(f.namespace);
      if (!keys) return out;
      for (const k of [...keys].sort()) {
        const e = s.objects.get(k)!;
        if (trivial || matchesFilter(f, e.obj)) out.push(e);
      }
      return out;
    }
    for (const k of s.sortedKeys()) {
      const e = s.objects.get(k)!;
      if (trivial || matchesFilter(f, e.obj)) out.push(e);
    }
    return out;
  }

  private page(items: Entry[], rv: number, offset: number, limit: number, f: Filter, snapId?: string): ListResult {
    if (!limit || offset + limit >= items.length) {
      return { resourceVersion: String(rv), items: offset ? items.slice(offset) : items };
    }
    const pageItems = items.slice(offset, offset + limit);
    let id = snapId;
    if (!id) {
      this.gcSnapshots();
      id = String(++this.snapshotSeq);
      this.snapshots.set(id, { rv, items, created: Date.now() });
    }
    const last = pageItems[pageItems.length - 1]!.obj.metadata!;
    const token = encodeContinue({ v: "meta.k8s.io/v1", rv, start: `${objectKey(last.namespace, last.name!)}\u0000`, s: id, o: offset + limit });
    const res: ListResult = { resourceVersion: String(rv), items: pageItems, continue: token };
    if (f.labels.length === 0 && f.fields.length === 0) res.remainingItemCount = items.length - offset - limit;
    return res;
  }

  private continueList(t: ResourceType, q: ListQuery, limit: number): ListResult {
    const tok = decodeContinue(q.continue!);
    const snap = tok.s ? this.snapshots.get(tok.s) : undefined;
    if (snap && Date.now() - snap.created <= this.continueTtlMs && typeof tok.o === "number") {
      return this.page(snap.items, snap.rv, tok.o, limit, q.filter, tok.s);
    }
    if (tok.rv !== -1) {
      const fresh = encodeContinue({ v: "meta.k8s.io/v1", rv: -1, start: tok.start });
      const err = expired(CONTINUE_TOO_OLD);
      err.status.metadata = { continue: fresh };
      throw err;
    }
    // An inconsistent continuation: current state from the start key on.
    const all = this.filtered(this.state(t), q.filter).filter((e) => objectKey(e.obj.metadata!.namespace, e.obj.metadata!.name!) >= tok.start);
    if (!limit || limit >= all.length) return { resourceVersion: String(this.rvCounter), items: all };
    const pageItems = all.slice(0, limit);
    const last = pageItems[pageItems.length - 1]!.obj.metadata!;
    return {
      resourceVersion: String(this.rvCounter),
      items: pageItems,
      continue: encodeContinue({ v: "meta.k8s.io/v1", rv: -1, start: `${objectKey(last.namespace, last.name!)}\u0000` }),
    };
  }

  private gcSnapshots(): void {
    const now = Date.now();
    for (const [id, s] of this.snapshots) if (now - s.created > this.continueTtlMs) this.snapshots.delete(id);
    while (this.snapshots.size >= 512) this.snapshots.delete(this.snapshots.keys().next().value!);
  }

  /** Every open watcher of every type. */
  watchers(): Watcher[] {
    const out: Watcher[] = [];
    for (const s of this.states.values()) out.push(...s.watchers);
    return out;
  }

  /** Forces every outstanding continue token to expire (410 on next use). */
  expireContinueTokens(): void {
    this.snapshots.clear();
  }

  // ---------------------------------------------------------------- watch

  /**
   * Registers a watcher starting after `fromRv` (replaying history) or, when `fromRv` is undefined,
   * with synthetic ADDEDs for the current matches. Throws 410 Expired for a compacted RV.
   */
  watch(t: ResourceType, watcher: Watcher, fromRv: number | undefined): () => void {
    const s = this.state(t);
    const w = t.storage ? servedWatcher(t, watcher) : watcher;
    if (fromRv === undefined) {
      for (const e of this.filtered(s, w.filter)) w.send("ADDED", e);
    } else {
      if (fromRv < s.compactedRv) throw expired(`too old resource version: ${fromRv} (${s.compactedRv})`);
      let lo = 0;
      let hi = s.log.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (s.log[mid]!.rv <= fromRv) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < s.log.length; i++) deliver(w, s.log[i]!);
    }
    s.watchers.add(w);
    return () => s.watchers.delete(w);
  }

  /** Drops a type's history so watches from any earlier RV get 410 (all types when omitted). */
  compact(t?: ResourceType): void {
    for (const s of t ? [this.state(t)] : this.states.values()) {
      s.log = [];
      s.compactedRv = this.rvCounter;
    }
  }

  // ---------------------------------------------------------------- the write path

  private commit(s: TypeState, key: string, next: KubeObject | null, prev: Entry | undefined, deletedBody?: KubeObject): Entry {
    const rv = ++this.rvCounter;
    let entry: Entry;
    let type: EventType;
    if (next === null) {
      const base = deletedBody ?? prev!.obj;
      entry = { obj: { ...base, metadata: { ...base.metadata, resourceVersion: String(rv) } } };
      s.objects.delete(key);
      const ns = base.metadata?.namespace ?? "";
      s.byNamespace.get(ns)?.delete(key);
      s.invalidateOrder();
      type = "DELETED";
    } else {
      next.metadata!.resourceVersion = String(rv);
      entry = { obj: next };
      if (!prev) {
        const ns = next.metadata?.namespace ?? "";
        let set = s.byNamespace.get(ns);
        if (!set) s.byNamespace.set(ns, (set = new Set()));
        set.add(key);
        s.invalidateOrder();
      }
      s.objects.set(key, entry);
      type = prev ? "MODIFIED" : "ADDED";
    }
    const ev: LogEvent = prev ? { rv, type, entry, prev } : { rv, type, entry };
    s.log.push(ev);
    if (s.log.length > this.historyLimit + Math.ceil(this.historyLimit / 4)) {
      const drop = s.log.length - this.historyLimit;
      s.compactedRv = s.log[drop - 1]!.rv;
      s.log = s.log.slice(drop);
    }
    for (const w of s.watchers) deliver(w, ev);
    for (const l of this.listeners) l(s.type, ev);
    return entry;
  }

  create(t: ResourceType, namespace: string | undefined, body: unknown, opts: { dryRun?: boolean; seed?: boolean } = {}): Entry {
    const obj = this.prepareCreate(t, namespace, body, opts.seed === true);
    const s = this.state(t);
    const key = objectKey(obj.metadata!.namespace, obj.metadata!.name!);
    if (s.objects.has(key)) throw alreadyExists(t, obj.metadata!.name!);
    if (opts.dryRun) return { obj };
    return this.commit(s, key, obj, undefined);
  }

  /**
   * Stores an object a dry-run `create` prepared (the HTTP layer ran admission in between): the
   * same uid, name and timestamps the webhooks saw.
   */
  insertPrepared(t: ResourceType, obj: KubeObject): Entry {
    const s = this.state(t);
    const meta = obj.metadata!;
    const key = objectKey(meta.namespace, meta.name!);
    if (s.objects.has(key)) throw alreadyExists(t, meta.name!);
    this.checkNamespace(t, meta.namespace, meta.name!, true);
    return this.commit(s, key, obj, undefined);
  }

  /**
   * Stores the result of a dry-run update or patch whose old object was `old`, if `old` is still
   * the stored entry (undefined otherwise: the caller runs the whole update again, as
   * kube-apiserver's GuaranteedUpdate does when its compare-and-swap loses).
   */
  commitPrepared(t: ResourceType, old: Entry, next: KubeObject): WriteResult | undefined {
    const s = this.state(t);
    const om = old.obj.metadata!;
    const key = objectKey(om.namespace, om.name!);
    if (s.objects.get(key) !== old) return undefined;
    return this.finishUpdate(s, key, old, next);
  }

  private finishUpdate(s: TypeState, key: string, old: Entry, next: KubeObject): WriteResult {
    if (next === old.obj || deepEqual(next, old.obj)) return { entry: old, created: false };
    const nm = next.metadata!;
    if (nm.deletionTimestamp && !(nm.finalizers?.length) && !nm.deletionGracePeriodSeconds) {
      const entry = this.commit(s, key, null, old, next);
      return { entry, created: false };
    }
    return { entry: this.commit(s, key, next, old), created: false };
  }

  private checkNamespace(t: ResourceType, namespace: string | undefined, name: string, creating: boolean): void {
    if (!t.namespaced) return;
    if (!namespace) throw badRequest("the server could not find the requested resource");
    const nsType = this.registry.get("", "namespaces")!;
    const ns = this.getEntry(nsType, undefined, namespace);
    if (!ns) throw notFound(nsType, namespace);
    if (creating && ns.obj.metadata?.deletionTimestamp)
      throw forbidden(t, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
  }

  private prepareCreate(t: ResourceType, namespace: string | undefined, body: unknown, seed: boolean): KubeObject {
    if (!isPlainObject(body)) throw badRequest("the object provided is not a valid object");
    const obj = clone(body) as KubeObject;
    const meta = (obj.metadata = isPlainObject(obj.metadata) ? obj.metadata : {});
    obj.apiVersion = apiVersionOf(t.group, t.versions[0]!);
    if (body.apiVersion && splitApiVersion(String(body.apiVersion)).group === t.group) obj.apiVersion = String(body.apiVersion);
    obj.kind = t.kind;
    t.hooks?.checkBody?.(obj);
    if (t.namespaced) {
      if (meta.namespace && namespace && meta.namespace !== namespace)
        throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
      meta.namespace = namespace ?? meta.namespace;
    } else delete meta.namespace;
    if (!seed && meta.resourceVersion) throw internalError("resourceVersion should not be set on objects to be created");
    if (!meta.name && meta.generateName) meta.name = `${meta.generateName}${randomSuffix(this.rng ?? Math.random)}`;
    const nameErrs = validateName(meta.name, t.nameRule);
    if (nameErrs.length) throw invalid(t, meta.name ?? "", nameErrs);
    this.checkNamespace(t, meta.namespace, meta.name!, !seed);
    delete meta.managedFields;
    delete meta.selfLink;
    delete meta.resourceVersion;
    if (seed) {
      meta.uid ??= this.uid();
      meta.creationTimestamp ??= this.now();
      if (t.generation) meta.generation ??= 1;
      else delete meta.generation;
      if (t.custom && t.hooks?.prepareForUpdate) t.hooks.prepareForUpdate(obj, obj);
      return t.storage ? t.storage.toStorage(obj) : obj;
    }
    meta.uid = this.uid();
    meta.creationTimestamp = this.now();
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    if (t.generation) meta.generation = 1;
    else delete meta.generation;
    // Only where status is a subresource; a CRD version without it keeps status like any field.
    if (t.custom && hasStatusSubresource(t, obj.apiVersion)) delete obj.status;
    t.hooks?.prepareForCreate?.(obj);
    const errs = t.hooks?.validate?.(obj, undefined) ?? [];
    if (errs.length) throw invalid(t, meta.name!, errs);
    // Validated as sent, stored converted (kube-apiserver validates the internal form of either).
    return t.storage ? t.storage.toStorage(obj) : obj;
  }

  /** PUT semantics (kube-api.md §4); `subresource` "status" takes only `.status` from the body. */
  update(t: ResourceType, namespace: string | undefined, name: string, body: unknown, opts: { subresource?: string; dryRun?: boolean } = {}): WriteResult {
    if (!isPlainObject(body)) throw badRequest("the object provided is not a valid object");
    const meta = isPlainObject(body.metadata) ? body.metadata : {};
    if (meta.name !== undefined && meta.name !== name)
      throw badRequest(`the name of the object (${meta.name}) does not match the name on the URL (${name})`);
    if (t.namespaced && meta.namespace && meta.namespace !== namespace)
      throw badRequest("the namespace of the provided object does not match the namespace sent on the request");
    t.hooks?.checkBody?.(body as KubeObject);
    const s = this.state(t);
    const key = objectKey(t.namespaced ? namespace : undefined, name);
    const old = s.objects.get(key);
    if (!old) {
      if (t.createOnUpdate && !opts.subresource) {
        const fresh = clone(body) as KubeObject;
        fresh.metadata = { ...meta, name };
        delete fresh.metadata.resourceVersion;
        return { entry: this.create(t, namespace, fresh, { dryRun: opts.dryRun }), created: true };
      }
      throw notFound(t, name);
    }
    const rv = meta.resourceVersion;
    if (!rv && !t.unconditionalUpdate)
      // kube-apiserver's store names the resource (plural.group) here, not the kind.
      throw invalid({ ...t, kind: t.plural }, name, [{ reason: "FieldValueInvalid", field: "metadata.resourceVersion", detail: "Invalid value: 0x0: must be specified for an update" }]);
    if (rv && rv !== old.obj.metadata!.resourceVersion) throw conflict(t, name);
    return this.applyUpdate(t, s, key, old, clone(body) as KubeObject, opts);
  }

  /** PATCH semantics (kube-api.md §7); a resourceVersion inside the patch is a precondition. */
  patch(
    t: ResourceType,
    namespace: string | undefined,
    name: string,
    contentType: string,
    body: unknown,
    opts: { subresource?: string; dryRun?: boolean; fieldManager?: string } = {},
  ): WriteResult {
    const ct = contentType.split(";")[0]!.trim().toLowerCase();
    const s = this.state(t);
    const key = objectKey(t.namespaced ? namespace : undefined, name);
    const old = s.objects.get(key);
    // A patch applies to the object as the client sees it (the served version), not as stored.
    const base = old && t.storage ? t.storage.fromStorage(old.obj) : old?.obj;
    let patched: unknown;
    switch (ct) {
      case PATCH_TYPES.json:
        if (!old) throw notFound(t, name);
        patched = jsonPatch(base!, body);
        break;
      case PATCH_TYPES.merge:
        if (!isPlainObject(body)) throw badRequest("the body of the patch is not a JSON object");
        if (!old) throw notFound(t, name);
        patched = mergePatch(base!, body);
        break;
      case PATCH_TYPES.strategic:
        if (t.custom) throw smpOnCustomResource();
        if (!isPlainObject(body)) throw badRequest("the body of the patch is not a JSON object");
        if (!old) throw notFound(t, name);
        patched = strategicMerge(base!, body);
        break;
      case PATCH_TYPES.apply: {
        // Reduced server-side apply: create if missing, else a merge patch; no field ownership.
        if (!opts.fieldManager)
          throw new KubeError(
            failure(422, 'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch', "Invalid", {
              group: "meta.k8s.io",
              kind: "PatchOptions",
              causes: [{ reason: "FieldValueRequired", message: "Required value: is required for apply patch", field: "fieldManager" }],
            }),
          );
        if (!isPlainObject(body)) throw badRequest("the body of the patch is not an object");
        if (!old) {
          if (opts.subresource) throw notFound(t, name);
          const fresh = clone(body) as KubeObject;
          fresh.metadata = { ...(fresh.metadata ?? {}), name };
          return { entry: this.create(t, namespace, fresh, { dryRun: opts.dryRun }), created: true };
        }
        patched = mergePatch(base!, body);
        break;
      }
      default:
        throw unsupportedMediaType();
    }
    if (!isPlainObject(patched)) throw badRequest("the patched object is not a JSON object");
    const pm = (isPlainObject(patched.metadata) ? patched.metadata : {}) as Record<string, unknown>;
    if (pm.name !== undefined && pm.name !== name) throw badRequest(`the name of the object (${String(pm.name)}) does not match the name on the URL (${name})`);
    if (pm.resourceVersion && pm.resourceVersion !== old!.obj.metadata!.resourceVersion) throw conflict(t, name);
    t.hooks?.checkBody?.(patched as KubeObject);
    return this.applyUpdate(t, s, key, old!, patched as KubeObject, opts);
  }

  private applyUpdate(
    t: ResourceType,
    s: TypeState,
    key: string,
    old: Entry,
    candidate: KubeObject,
    opts: { subresource?: string; dryRun?: boolean },
  ): WriteResult {
    // Compared and validated in the served form; stored converted (see ResourceType.storage).
    const o = t.storage ? t.storage.fromStorage(old.obj) : old.obj;
    let next: KubeObject;
    if (opts.subresource === "status") {
      next = clone(o);
      if (candidate.status === undefined) delete next.status;
      else next.status = clone(candidate.status);
    } else {
      next = candidate;
      next.apiVersion = o.apiVersion;
      next.kind = o.kind;
      const m = (next.metadata = isPlainObject(next.metadata) ? next.metadata : {});
      const om = o.metadata!;
      m.name = om.name;
      if (om.namespace) m.namespace = om.namespace;
      else delete m.namespace;
      m.uid = om.uid;
      m.creationTimestamp = om.creationTimestamp;
      setOrDelete(m, "deletionTimestamp", om.deletionTimestamp);
      setOrDelete(m, "deletionGracePeriodSeconds", om.deletionGracePeriodSeconds);
      setOrDelete(m, "generation", om.generation);
      delete m.managedFields;
      delete m.selfLink;
      const statusIsSubresource = hasStatusSubresource(t, next.apiVersion);
      if (statusIsSubresource) {
        if (o.status === undefined) delete next.status;
        else next.status = clone(o.status);
      }
      t.hooks?.prepareForUpdate?.(next, o);
      if (om.deletionTimestamp) {
        const added = (m.finalizers ?? []).filter((f: string) => !(om.finalizers ?? []).includes(f));
        if (added.length)
          throw invalid(t, om.name!, [
            fieldForbidden("metadata.finalizers", `no new finalizers can be added if the object is being deleted, found new finalizers []string{${added.map((f: string) => JSON.stringify(f)).join(", ")}}`),
          ]);
      }
      const errs: FieldError[] = t.hooks?.validate?.(next, o) ?? [];
      if (m.finalizers !== undefined && !Array.isArray(m.finalizers)) errs.push(fieldInvalid("metadata.finalizers", m.finalizers, "must be a list"));
      if (errs.length) throw invalid(t, om.name!, errs);
      if (t.generation && specChanged(o, next, statusIsSubresource)) m.generation = (om.generation ?? 0) + 1;
      if (Array.isArray(m.finalizers) && m.finalizers.length === 0) delete m.finalizers;
      if (m.labels && Object.keys(m.labels).length === 0) delete m.labels;
      if (m.annotations && Object.keys(m.annotations).length === 0) delete m.annotations;
    }
    next.metadata!.resourceVersion = o.metadata!.resourceVersion;
    if (t.storage) next = t.storage.toStorage(next);
    if (deepEqual(next, old.obj)) return { entry: old, created: false };
    if (opts.dryRun) return { entry: { obj: next }, created: false };
    return this.finishUpdate(s, key, old, next);
  }

  delete(t: ResourceType, namespace: string | undefined, name: string, opts: DeleteOptions = {}): DeleteResult {
    const s = this.state(t);
    const key = objectKey(t.namespaced ? namespace : undefined, name);
    const old = s.objects.get(key);
    if (!old) throw notFound(t, name);
    const om = old.obj.metadata!;
    const pre = opts.preconditions;
    if (pre?.uid && pre.uid !== om.uid) throw preconditionConflict(t, name, "UID", pre.uid, om.uid!);
    if (pre?.resourceVersion && pre.resourceVersion !== om.resourceVersion)
      throw preconditionConflict(t, name, "ResourceVersion", pre.resourceVersion, om.resourceVersion!);
    const deferred = (mut: (m: Record<string, unknown>, next: KubeObject) => void): DeleteResult => {
      const next = clone(old.obj);
      mut(next.metadata!, next);
      if (deepEqual(next, old.obj) || opts.dryRun) return { entry: old, removed: false, body: old.obj };
      const entry = this.commit(s, key, next, old);
      return { entry, removed: false, body: entry.obj };
    };
    if (t.group === "" && t.plural === "namespaces") {
      return deferred((m, next) => {
        m.deletionTimestamp ??= this.now();
        next.status = { ...(next.status ?? {}), phase: "Terminating" };
      });
    }
    if (t.group === "" && t.plural === "pods" && old.obj.spec?.nodeName && !["Succeeded", "Failed"].includes(old.obj.status?.phase)) {
      const grace = opts.gracePeriodSeconds ?? om.deletionGracePeriodSeconds ?? old.obj.spec?.terminationGracePeriodSeconds ?? 30;
      const current = om.deletionGracePeriodSeconds;
      if (grace > 0 || om.finalizers?.length) {
        if (current !== undefined && current <= grace) return { entry: old, removed: false, body: old.obj };
        return deferred((m) => {
          m.deletionTimestamp = timestamp(new Date(this.clock().getTime() + grace * 1000));
          m.deletionGracePeriodSeconds = grace;
        });
      }
    }
    if (om.finalizers?.length) {
      return deferred((m) => {
        m.deletionTimestamp ??= this.now();
        m.deletionGracePeriodSeconds ??= 0;
      });
    }
    if (opts.dryRun) return { entry: old, removed: true, body: old.obj };
    const entry = this.commit(s, key, null, old);
    const body = t.returnDeletedObject
      ? entry.obj
      : successStatus({ name, ...(t.group ? { group: t.group } : {}), kind: t.plural, uid: om.uid });
    return { entry, removed: true, body };
  }

  /** Removes an object now, ignoring finalizers and grace (the simulated kubelet / namespace controller). */
  forceRemove(t: ResourceType, namespace: string | undefined, name: string): boolean {
    const s = this.state(t);
    const key = objectKey(t.namespaced ? namespace : undefined, name);
    const old = s.objects.get(key);
    if (!old) return false;
    this.commit(s, key, null, old);
    return true;
  }

  // ---------------------------------------------------------------- convenience for seeding and tests

  typeOf(obj: KubeObject): ResourceType {
    const t = obj.apiVersion && obj.kind ? this.registry.forObject(obj.apiVersion, obj.kind) : undefined;
    if (!t) throw badRequest(`no kind "${obj.kind}" is registered for version "${obj.apiVersion}"`);
    return t;
  }

  /**
   * Seeds an object as is (status, uid and creationTimestamp kept), creating its namespace when
   * missing and replacing an existing object of the same name. Bumps the RV like any write.
   */
  seed(obj: KubeObject): Entry {
    const t = this.typeOf(obj);
    const ns = t.namespaced ? (obj.metadata?.namespace ?? "default") : undefined;
    if (ns) this.ensureNamespace(ns);
    const prepared = this.prepareCreate(t, ns, obj, true);
    const s = this.state(t);
    const key = objectKey(ns, prepared.metadata!.name!);
    const old = s.objects.get(key);
    if (old) {
      prepared.metadata!.resourceVersion = old.obj.metadata!.resourceVersion;
      if (deepEqual(prepared, old.obj)) return old;
    }
    return this.commit(s, key, prepared, old);
  }

  ensureNamespace(name: string): void {
    const nsType = this.registry.get("", "namespaces")!;
    if (!this.getEntry(nsType, undefined, name)) this.create(nsType, undefined, { metadata: { name } });
  }

  /** Every stored object, types in registration order, objects in key order. */
  allObjects(): KubeObject[] {
    const out: KubeObject[] = [];
    for (const t of this.registry.all()) if (!t.storage) for (const e of this.entries(t)) out.push(e.obj);
    return out;
  }
}

const served = new WeakMap<ResourceType, WeakMap<Entry, Entry>>();

/** A stored entry as type `t` serves it: converted once per entry for a type kept in another's store. */
export function servedEntry(t: ResourceType, e: Entry): Entry {
  if (!t.storage) return e;
  let cache = served.get(t);
  if (!cache) served.set(t, (cache = new WeakMap()));
  let out = cache.get(e);
  if (!out) cache.set(e, (out = { obj: t.storage.fromStorage(e.obj) }));
  return out;
}

/** A watcher of a type kept in another's store: filters on the stored form, receives the served one. */
function servedWatcher(t: ResourceType, w: Watcher): Watcher {
  const out: Watcher = { filter: w.filter, send: (type, e) => w.send(type, servedEntry(t, e)) };
  if (w.end) out.end = () => w.end!();
  return out;
}

function setOrDelete(m: Record<string, unknown>, k: string, v: unknown): void {
  if (v === undefined) delete m[k];
  else m[k] = v;
}

function specChanged(a: KubeObject, b: KubeObject, statusSeparate: boolean): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const k of keys) {
    if (k === "metadata" || k === "apiVersion" || k === "kind") continue;
    if (k === "status" && statusSeparate) continue;
    if (!deepEqual(a[k], b[k])) return true;
  }
  return false;
}

function stamped(ev: LogEvent): Entry {
  const p = ev.prev!.obj;
  return (ev.prevStamped ??= { obj: { ...p, metadata: { ...p.metadata, resourceVersion: String(ev.rv) } } });
}

/** Sends one logged event to one watcher, turning selector enter/leave into ADDED/DELETED (§5). */
export function deliver(w: Watcher, ev: LogEvent): void {
  const f = w.filter;
  const trivial = f.namespace === undefined && f.labels.length === 0 && f.fields.length === 0;
  if (ev.type !== "MODIFIED") {
    if (trivial || matchesFilter(f, ev.entry.obj)) w.send(ev.type, ev.entry);
    return;
  }
  if (trivial) return w.send("MODIFIED", ev.entry);
  const now = matchesFilter(f, ev.entry.obj);
  const was = ev.prev ? matchesFilter(f, ev.prev.obj) : false;
  if (now && was) w.send("MODIFIED", ev.entry);
  else if (now) w.send("ADDED", ev.entry);
  else if (was) w.send("DELETED", stamped(ev));
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
  s?: string;
  o?: number;
}

function encodeContinue(t: ContinueToken): string {
  return Buffer.from(JSON.stringify(t)).toString("base64");
}

function decodeContinue(text: string): ContinueToken {
  try {
    const t = JSON.parse(Buffer.from(text, "base64").toString("utf8")) as ContinueToken;
    if (t.v !== "meta.k8s.io/v1" || typeof t.rv !== "number" || typeof t.start !== "string") throw new Error("bad");
    return t;
  } catch {
    throw badRequest(`invalid continue token: ${text.length > 64 ? `${text.slice(0, 64)}…` : text}`);
  }
}
