// Deep equality of plain data (what a StateCache projection returns): primitives, arrays, plain
// objects (string keys) and Dates. Where unsure it answers "different" — Map, Set, class instances,
// arrays with holes or extra properties — so a projection that returns such a thing is never judged
// unchanged by mistake; it only wakes its consumer more often.

/** Same answer as node's util.isDeepStrictEqual for plain data, at a fraction of its cost. */
export function plainEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const proto = Object.getPrototypeOf(a) as unknown;
  if (proto !== Object.getPrototypeOf(b)) return false;
  if (proto === Array.prototype) {
    const x = a as unknown[];
    const y = b as unknown[];
    if (x.length !== y.length) return false;
    if (x.length !== Object.keys(x).length || y.length !== Object.keys(y).length) return false; // holes, extra keys
    for (let i = 0; i < x.length; i++) if (!plainEqual(x[i], y[i])) return false;
    return true;
  }
  if (proto === Date.prototype) return Object.is((a as Date).getTime(), (b as Date).getTime()) && Object.keys(a).length === 0 && Object.keys(b).length === 0;
  if (proto !== Object.prototype && proto !== null) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) {
    if (!Object.hasOwn(b, k) || !plainEqual((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false;
  }
  return true;
}
