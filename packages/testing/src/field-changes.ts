// Arbitrary changes to a protobuf-shaped object, for property tests that compare an optimised
// path with a plain full evaluation: a leaf set, a string-map key set or deleted, an array element
// added or removed, an optional part dropped or filled in from a fully populated template. Which
// values a field takes is the caller's vocabulary (values the rules tell apart), so a change is
// seldom a no-op. Pure; the draws come from the caller (e.g. fast-check integers).

export type Path = readonly (string | number)[];
export interface Place {
  kind: "leaf" | "map" | "array" | "optional";
  path: Path;
  template: unknown;
}

/** Where and how to change, as three arbitrary non-negative integers. */
export interface Change {
  where: number;
  how: number;
  what: number;
}

export interface Vocabulary {
  /** Values a string field takes, by field name. */
  words(key: string | number | undefined): readonly string[];
  /** Fields holding a string map (labels) rather than a message. */
  maps: ReadonlySet<string>;
  /** Keys a change sets in or deletes from such a map. */
  mapKeys: readonly string[];
  /** Values a timestamp field takes. */
  dates: readonly Date[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !(v instanceof Date) && !Array.isArray(v);

/** Every place of `v` a change can touch; `template` (a fully populated value) supplies absent parts. */
export function places(v: unknown, template: unknown, maps: ReadonlySet<string>, path: Path = [], out: Place[] = []): Place[] {
  const key = path[path.length - 1];
  if (typeof key === "string" && maps.has(key)) out.push({ kind: "map", path, template });
  else if (Array.isArray(v)) {
    out.push({ kind: "array", path, template: Array.isArray(template) ? template[0] : undefined });
    v.forEach((x, i) => places(x, Array.isArray(template) ? template[0] : undefined, maps, [...path, i], out));
  } else if (isObject(v) || (v === undefined && isObject(template))) {
    const t = isObject(template) ? template : {};
    if (path.length > 0 && typeof key === "string") out.push({ kind: "optional", path, template });
    if (v !== undefined) for (const k of new Set([...Object.keys(t), ...Object.keys(v as object)])) places((v as Record<string, unknown>)[k], t[k], maps, [...path, k], out);
  } else if (v !== undefined || template !== undefined) out.push({ kind: "leaf", path, template });
  return out;
}

export function getIn(v: unknown, path: Path): unknown {
  return path.reduce<unknown>((x, k) => (x as Record<string | number, unknown> | undefined)?.[k], v);
}

/** `v` with the value at `path` replaced (copies along the path; the rest is shared). */
export function setIn(v: unknown, path: Path, f: (x: unknown) => unknown): unknown {
  if (path.length === 0) return f(v);
  const [k, ...rest] = path;
  if (Array.isArray(v)) return v.map((x, i) => (i === k ? setIn(x, rest, f) : x));
  const o = { ...(v as Record<string, unknown>) };
  const next = setIn(o[k as string], rest, f);
  if (next === undefined) delete o[k as string];
  else o[k as string] = next;
  return o;
}

/** `root` with one arbitrary change (its top-level `name`, the object's identity, is kept). */
export function changeField<T>(root: T, template: T, c: Change, vocabulary: Vocabulary): T {
  const all = places(root, template, vocabulary.maps).filter((p) => !(p.path.length === 1 && p.path[0] === "name"));
  const p = all[c.where % all.length]!;
  const key = p.path[p.path.length - 1];
  return setIn(root, p.path, (x) => {
    switch (p.kind) {
      case "leaf": {
        const t = x ?? p.template;
        if (typeof t === "boolean") return !(x as boolean);
        if (typeof t === "number") return c.what % 5;
        if (t instanceof Date || t === undefined) return c.how % 5 === 0 ? undefined : vocabulary.dates[c.what % vocabulary.dates.length];
        const w = vocabulary.words(key);
        const v = w[c.what % w.length];
        return v === x ? w[(c.what + 1) % w.length] : v;
      }
      case "map": {
        const m = { ...(x as Record<string, string>) };
        const k = vocabulary.mapKeys[c.what % vocabulary.mapKeys.length]!;
        if (c.how % 2 === 0) delete m[k];
        else m[k] = c.how % 4 === 1 ? "" : "a";
        return m;
      }
      case "array": {
        const a = [...((x as unknown[]) ?? [])];
        const op = c.how % 3;
        if (op === 0 && a.length > 0) a.splice(c.what % a.length, 1);
        else if (op === 1 && a.length > 0) a.push(structuredClone(a[c.what % a.length]));
        else if (p.template !== undefined) a.splice(c.what % (a.length + 1), 0, structuredClone(p.template));
        return a;
      }
      case "optional":
        return x === undefined ? structuredClone(p.template) : c.how % 4 === 0 ? undefined : x;
    }
  }) as T;
}
