// The template functions the chart may use: Go's built-ins, the sprig functions and the Helm
// additions (include, required, toYaml, ...), each with the semantics of its Go original for the
// value types Helm values can hold (strings, float64 numbers, bools, nil, lists, maps).
import { parse, stringify } from "yaml";
import { isEmpty, printValue, type Engine, type Func, type Value } from "./template.js";

const str = (v: Value): string => printValue(v);

function typeName(v: Value): string {
  if (v === null || v === undefined) return "nil";
  if (Array.isArray(v)) return "list";
  return typeof v;
}

/** Go's `eq`: basic values of the same kind compare; mixing kinds is an error. */
function eq(a: Value, ...bs: Value[]): boolean {
  for (const b of bs) {
    const ta = typeName(a);
    const tb = typeName(b);
    if (ta !== "nil" && tb !== "nil" && ta !== tb) throw new Error(`incompatible types for comparison: ${ta} and ${tb}`);
    if (ta === "list" || ta === "object") throw new Error(`non-comparable type ${ta}`);
    if ((a ?? null) === (b ?? null)) return true;
  }
  return false;
}

/** sigs.k8s.io/yaml output as Helm's toYaml gives it: sorted keys, block style, no trailing newline. */
export function toYaml(v: Value): string {
  if (v === undefined || v === null) return "null";
  const text = stringify(v, { sortMapEntries: true, indentSeq: false, lineWidth: 0, defaultStringType: "PLAIN", defaultKeyType: "PLAIN" });
  return text.replace(/\n$/, "");
}

function indent(n: number, s: string): string {
  const pad = " ".repeat(n);
  return pad + s.replace(/\n/g, `\n${pad}`);
}

/** Go's %q for the strings the chart quotes (JSON escaping agrees with Go for printable text). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** Go's fmt.Sprintf for %s, %d, %v, %q and %%. */
function sprintf(format: string, ...args: Value[]): string {
  let i = 0;
  return format.replace(/%[sdvq%]/g, (m) => {
    if (m === "%%") return "%";
    const a = args[i++];
    if (m === "%q") return goQuote(str(a));
    if (m === "%d") {
      if (typeof a !== "number" || !Number.isInteger(a)) return `%!d(${typeName(a)}=${str(a)})`;
      return String(a);
    }
    return str(a);
  });
}

export function helmFunctions(engine: Engine): Record<string, Func> {
  const f: Record<string, Func> = {
    // Go built-ins
    eq: (a, ...b) => eq(a, ...b),
    ne: (a, b) => !eq(a, b),
    lt: (a, b) => (a as number) < (b as number),
    gt: (a, b) => (a as number) > (b as number),
    not: (a) => isEmpty(a),
    and: () => undefined, // evaluated lazily by the engine
    or: () => undefined,
    len: (a) => (typeof a === "string" || Array.isArray(a) ? a.length : a && typeof a === "object" ? Object.keys(a).length : 0),
    index: (a, ...keys) => {
      let v = a;
      for (const k of keys) {
        if (v === undefined || v === null) throw new Error("index of untyped nil");
        v = (v as Record<string, Value>)[k as string];
      }
      return v;
    },
    print: (...a) => a.map(str).join(""),
    printf: (fmt, ...a) => sprintf(str(fmt), ...a),
    // sprig
    default: (d, v) => (isEmpty(v) ? d : v),
    empty: (v) => isEmpty(v),
    quote: (...a) => a.filter((x) => x !== undefined && x !== null).map((x) => goQuote(str(x))).join(" "),
    squote: (...a) => a.filter((x) => x !== undefined && x !== null).map((x) => `'${str(x)}'`).join(" "),
    toString: (v: Value) => str(v),
    toJson: (v) => JSON.stringify(v ?? null),
    indent: (n, s) => indent(n as number, str(s)),
    nindent: (n, s) => `\n${indent(n as number, str(s))}`,
    trim: (s) => str(s).trim(),
    trunc: (n, s) => str(s).slice(0, n as number),
    trimSuffix: (suffix, s) => (str(s).endsWith(str(suffix)) ? str(s).slice(0, -str(suffix).length) : str(s)),
    trimPrefix: (prefix, s) => (str(s).startsWith(str(prefix)) ? str(s).slice(str(prefix).length) : str(s)),
    hasPrefix: (prefix, s) => str(s).startsWith(str(prefix)),
    lower: (s) => str(s).toLowerCase(),
    upper: (s) => str(s).toUpperCase(),
    replace: (from, to, s) => str(s).split(str(from)).join(str(to)),
    contains: (sub, s) => str(s).includes(str(sub)),
    join: (sep, list) => (Array.isArray(list) ? list.map(str).join(str(sep)) : str(list)),
    list: (...a) => a,
    append: (l, v) => [...((l as Value[] | null) ?? []), v],
    concat: (...ls) => ls.flatMap((l) => (l as Value[] | null) ?? []),
    dict: (...a) => {
      const out: Record<string, Value> = {};
      for (let i = 0; i < a.length; i += 2) out[str(a[i])] = a[i + 1];
      return out;
    },
    hasKey: (m, k) => m !== null && typeof m === "object" && Object.prototype.hasOwnProperty.call(m, str(k)),
    keys: (...ms) => ms.flatMap((m) => Object.keys((m ?? {}) as object)),
    sortAlpha: (l) => [...(l as Value[])].map(str).sort(),
    ternary: (a, b, c) => (c ? a : b),
    int: (v) => Math.trunc(Number(v)),
    add: (...a) => a.reduce((s: number, x) => s + Number(x), 0),
    b64enc: (s) => Buffer.from(str(s)).toString("base64"),
    // Helm
    toYaml: (v) => toYaml(v),
    fromYaml: (s) => (parse(str(s)) as Value) ?? {},
    include: (name, data) => engine.include(str(name), data),
    required: (msg, v) => {
      if (v === undefined || v === null || v === "") throw new Error(str(msg));
      return v;
    },
    fail: (msg) => {
      throw new Error(str(msg));
    },
  };
  return f;
}
