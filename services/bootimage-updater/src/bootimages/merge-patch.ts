// RFC 7386 JSON merge patch between two JSON documents. The updater sends only the providerSpec
// delta so that fields owned by other controllers are never overwritten (mco-behaviors.md §3.11).

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export function isJsonObject(v: unknown): v is JsonObject {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function jsonEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => jsonEqual(v, b[i] as JsonValue));
  if (isJsonObject(a) && isJsonObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && jsonEqual(a[k] as JsonValue, b[k] as JsonValue));
  }
  return false;
}

/**
 * The merge patch that turns `original` into `modified`: changed keys carry their new value,
 * removed keys carry null, arrays are replaced whole (merge patch cannot address elements).
 * Returns {} when nothing differs.
 */
export function createMergePatch(original: JsonObject, modified: JsonObject): JsonObject {
  const patch: JsonObject = {};
  for (const key of Object.keys(original)) {
    if (!Object.hasOwn(modified, key)) patch[key] = null;
  }
  for (const [key, next] of Object.entries(modified)) {
    const prev = Object.hasOwn(original, key) ? original[key] : undefined;
    if (prev !== undefined && jsonEqual(prev, next)) continue;
    if (prev !== undefined && isJsonObject(prev) && isJsonObject(next)) {
      patch[key] = createMergePatch(prev, next);
    } else {
      patch[key] = next;
    }
  }
  return patch;
}

/** Applies an RFC 7386 merge patch (used to check patches round-trip, and by dry runs). */
export function applyMergePatch(target: JsonValue, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const out: JsonObject = isJsonObject(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else out[key] = applyMergePatch(Object.hasOwn(out, key) ? (out[key] as JsonValue) : null, value);
  }
  return out;
}

export function deepCopy<T extends JsonValue>(v: T): T {
  return structuredClone(v);
}
