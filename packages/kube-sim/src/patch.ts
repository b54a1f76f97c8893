// Patch semantics (kube-api.md §7): JSON merge patch (RFC 7386), JSON patch (RFC 6902) and a
// strategic-merge subset driven by a merge-key table for the lists Lockstep touches.
import { badRequest, failure, KubeError } from "./errors.js";
import { clone, deepEqual, isPlainObject } from "./json.js";

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = mergePatch(out[k], v);
  }
  return out;
}

function failedJsonPatch(): KubeError {
  return new KubeError(failure(422, "the server rejected our request due to an error in our request", "Invalid", {}));
}

function parsePointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw badRequest(`JSON Patch path must start with '/': ${path}`);
  return path
    .slice(1)
    .split("/")
    .map((t) => t.replace(/~1/g, "/").replace(/~0/g, "~"));
}

type Container = Record<string, unknown> | unknown[];

function resolveParent(doc: unknown, tokens: string[]): { parent: Container; key: string } {
  let cur: unknown = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i]!;
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isPlainObject(cur)) cur = cur[t];
    else throw failedJsonPatch();
    if (cur === undefined) throw failedJsonPatch();
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) throw failedJsonPatch();
  return { parent: cur, key: tokens[tokens.length - 1]! };
}

function getAt(doc: unknown, path: string): unknown {
  let cur = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isPlainObject(cur)) cur = cur[t];
    else return undefined;
    if (cur === undefined) return undefined;
  }
  return cur;
}

function arrayIndex(arr: unknown[], key: string, forAdd: boolean): number {
  if (forAdd && key === "-") return arr.length;
  if (!/^(0|[1-9]\d*)$/.test(key)) throw failedJsonPatch();
  const i = Number(key);
  if (i > arr.length || (!forAdd && i === arr.length)) throw failedJsonPatch();
  return i;
}

function addAt(doc: unknown, path: string, value: unknown): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return clone(value);
  const { parent, key } = resolveParent(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, clone(value));
  else parent[key] = clone(value);
  return doc;
}

function removeAt(doc: unknown, path: string): unknown {
  const tokens = parsePointer(path);
  if (tokens.length === 0) throw failedJsonPatch();
  const { parent, key } = resolveParent(doc, tokens);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else {
    if (!(key in parent)) throw failedJsonPatch();
    delete parent[key];
  }
  return doc;
}

/** RFC 6902. A body that is not an array → 400; a failing op (incl. `test`) → 422. */
export function jsonPatch(target: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) {
    const what = ops === null ? "null" : typeof ops === "object" ? "object" : typeof ops;
    throw badRequest(`json: cannot unmarshal ${what} into Go value of type jsonpatch.Patch`);
  }
  let doc = clone(target);
  for (const op of ops) {
    if (!isPlainObject(op) || typeof op.path !== "string") throw failedJsonPatch();
    switch (op.op) {
      case "add":
        doc = addAt(doc, op.path, op.value);
        break;
      case "remove":
        doc = removeAt(doc, op.path);
        break;
      case "replace":
        if (getAt(doc, op.path) === undefined) throw failedJsonPatch();
        doc = removeAt(doc, op.path);
        doc = addAt(doc, op.path, op.value);
        break;
      case "move":
      case "copy": {
        if (typeof op.from !== "string") throw failedJsonPatch();
        const v = getAt(doc, op.from);
        if (v === undefined) throw failedJsonPatch();
        if (op.op === "move") doc = removeAt(doc, op.from);
        doc = addAt(doc, op.path, v);
        break;
      }
      case "test":
        if (!deepEqual(getAt(doc, op.path), op.value)) throw failedJsonPatch();
        break;
      default:
        throw failedJsonPatch();
    }
  }
  return doc;
}

/**
 * Patch merge keys by field name, the subset of the built-in schemas Lockstep touches.
 * Lists not named here are replaced whole, as for any list without a merge strategy.
 */
const MERGE_KEYS: Record<string, string[]> = {
  conditions: ["type"],
  containers: ["name"],
  initContainers: ["name"],
  ephemeralContainers: ["name"],
  env: ["name"],
  ports: ["containerPort"],
  volumes: ["name"],
  volumeMounts: ["mountPath"],
  taints: ["key", "effect"],
  addresses: ["type"],
  ownerReferences: ["uid"],
  imagePullSecrets: ["name"],
  hostAliases: ["ip"],
};
/** Primitive lists whose strategy is "merge" (union) rather than replace. */
const MERGED_PRIMITIVE_LISTS = new Set(["finalizers"]);

function sameKey(a: unknown, b: unknown, keys: string[]): boolean {
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  return keys.every((k) => deepEqual(a[k], b[k]));
}

function smpList(field: string, target: unknown, patch: unknown[]): unknown[] {
  const keys = MERGE_KEYS[field];
  const base = Array.isArray(target) ? target.slice() : [];
  if (!keys) {
    if (MERGED_PRIMITIVE_LISTS.has(field)) {
      const out = base.slice();
      for (const v of patch) if (!out.some((x) => deepEqual(x, v))) out.push(clone(v));
      return out;
    }
    return patch.filter((x) => !(isPlainObject(x) && "$patch" in x)).map(clone);
  }
  if (patch.some((x) => isPlainObject(x) && x.$patch === "replace")) {
    return patch.filter((x) => !(isPlainObject(x) && x.$patch === "replace")).map((x) => strip(x));
  }
  let out = base;
  for (const item of patch) {
    if (!isPlainObject(item)) continue;
    const idx = out.findIndex((x) => sameKey(x, item, keys));
    if (item.$patch === "delete") {
      if (idx >= 0) out = out.filter((_, i) => i !== idx);
      continue;
    }
    if (idx >= 0) out[idx] = strategicMerge(out[idx], item, field);
    else out.push(strip(item));
  }
  return out;
}

/** Removes SMP directives from a value that is inserted as is. */
function strip(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(strip);
  if (!isPlainObject(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith("$")) continue;
    if (x === null) continue;
    out[k] = strip(x);
  }
  return out;
}

/** Strategic merge patch: merge patch plus list merge keys and the $patch / $deleteFromPrimitiveList directives. */
export function strategicMerge(target: unknown, patch: unknown, _field = ""): unknown {
  if (!isPlainObject(patch)) return clone(patch);
  if (patch.$patch === "replace") return strip(patch);
  if (patch.$patch === "delete") return undefined;
  const out: Record<string, unknown> = isPlainObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (k === "$patch" || k === "$retainKeys" || k.startsWith("$setElementOrder/")) continue;
    if (k.startsWith("$deleteFromPrimitiveList/")) {
      const f = k.slice("$deleteFromPrimitiveList/".length);
      if (Array.isArray(out[f]) && Array.isArray(v)) {
        out[f] = (out[f] as unknown[]).filter((x) => !v.some((d) => deepEqual(d, x)));
      }
      continue;
    }
    if (v === null) {
      delete out[k];
    } else if (Array.isArray(v)) {
      out[k] = smpList(k, out[k], v);
    } else if (isPlainObject(v)) {
      const merged = strategicMerge(out[k], v, k);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = v;
    }
  }
  return out;
}

export const PATCH_TYPES = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
} as const;
