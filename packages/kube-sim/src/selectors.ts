// Label and field selectors (kube-api.md §10): parsing of the query-string forms and matching.
import { badRequest } from "./errors.js";
import type { FieldGetter, KubeObject } from "./types.js";

export type LabelOp = "=" | "!=" | "in" | "notin" | "exists" | "!exists" | "gt" | "lt";

export interface LabelRequirement {
  key: string;
  op: LabelOp;
  values: string[];
}

export type LabelSelector = LabelRequirement[];

const KEY_RE = /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/;
const VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Parses `a=b,c!=d,e in (x,y),!f`; an empty string selects everything. Throws 400 on bad input. */
export function parseLabelSelector(text: string): LabelSelector {
  const reqs: LabelSelector = [];
  let i = 0;
  const s = text;
  const skipWs = () => {
    while (i < s.length && (s[i] === " " || s[i] === "\t")) i++;
  };
  const fail = (msg: string): never => {
    throw badRequest(`unable to parse requirement: ${msg}`);
  };
  const readWord = (): string => {
    skipWs();
    const start = i;
    while (i < s.length && !" \t,=!()<>".includes(s[i]!)) i++;
    return s.slice(start, i);
  };
  while (true) {
    skipWs();
    if (i >= s.length) break;
    let negate = false;
    if (s[i] === "!") {
      negate = true;
      i++;
    }
    const key = readWord();
    if (!key) fail(`found '${s[i] ?? ""}', expected: identifier`);
    if (!KEY_RE.test(key)) fail(`invalid label key "${key}"`);
    skipWs();
    if (negate) {
      reqs.push({ key, op: "!exists", values: [] });
    } else if (i >= s.length || s[i] === ",") {
      reqs.push({ key, op: "exists", values: [] });
    } else if (s.startsWith("==", i) || s.startsWith("!=", i) || s[i] === "=") {
      const op: LabelOp = s.startsWith("!=", i) ? "!=" : "=";
      i += s.startsWith("==", i) || s.startsWith("!=", i) ? 2 : 1;
      const value = readWord();
      if (!VALUE_RE.test(value) || value.length > 63) fail(`invalid label value: "${value}"`);
      reqs.push({ key, op, values: [value] });
    } else if (s[i] === ">" || s[i] === "<") {
      const op: LabelOp = s[i] === ">" ? "gt" : "lt";
      i++;
      const value = readWord();
      if (!/^-?\d+$/.test(value)) fail(`for 'Gt', 'Lt' operators, the value must be an integer`);
      reqs.push({ key, op, values: [value] });
    } else {
      const word = readWord();
      if (word !== "in" && word !== "notin") fail(`found '${word || s[i]}', expected: '=', '!=', '==', 'in', notin'`);
      skipWs();
      if (s[i] !== "(") fail(`found '${s[i] ?? ""}', expected: '('`);
      i++;
      const values: string[] = [];
      while (true) {
        const v = readWord();
        if (!VALUE_RE.test(v)) fail(`invalid label value: "${v}"`);
        if (v) values.push(v);
        skipWs();
        if (s[i] === ",") {
          i++;
          continue;
        }
        if (s[i] === ")") {
          i++;
          break;
        }
        fail(`found '${s[i] ?? ""}', expected: ',', ')' or identifier`);
      }
      reqs.push({ key, op: word as LabelOp, values });
    }
    skipWs();
    if (i >= s.length) break;
    if (s[i] !== ",") fail(`found '${s[i]}', expected: ',' or 'end of string'`);
    i++;
  }
  return reqs;
}

export function matchesLabels(sel: LabelSelector, labels: Record<string, string> | undefined): boolean {
  for (const r of sel) {
    const has = labels !== undefined && Object.prototype.hasOwnProperty.call(labels, r.key);
    const v = has ? labels![r.key]! : undefined;
    switch (r.op) {
      case "exists":
        if (!has) return false;
        break;
      case "!exists":
        if (has) return false;
        break;
      case "=":
        if (v !== r.values[0]) return false;
        break;
      case "!=":
        if (has && v === r.values[0]) return false;
        break;
      case "in":
        if (!has || !r.values.includes(v!)) return false;
        break;
      case "notin":
        if (has && r.values.includes(v!)) return false;
        break;
      case "gt":
      case "lt": {
        if (!has || !/^-?\d+$/.test(v!)) return false;
        const n = Number(v);
        const lim = Number(r.values[0]);
        if (r.op === "gt" ? !(n > lim) : !(n < lim)) return false;
        break;
      }
    }
  }
  return true;
}

/** A metav1.LabelSelector object (PDB spec.selector): matchLabels plus matchExpressions. */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

export function fromSelectorObject(o: LabelSelectorObject | undefined | null): LabelSelector | undefined {
  if (!o) return undefined;
  const reqs: LabelSelector = [];
  for (const [key, value] of Object.entries(o.matchLabels ?? {})) reqs.push({ key, op: "=", values: [value] });
  for (const e of o.matchExpressions ?? []) {
    const op: LabelOp | undefined = ({ In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!exists" } as const)[
      e.operator as "In"
    ];
    if (!op) return undefined;
    reqs.push({ key: e.key, op, values: e.values ?? [] });
  }
  return reqs;
}

export interface FieldRequirement {
  field: string;
  op: "=" | "!=";
  value: string;
  get: FieldGetter;
}
export type FieldSelector = FieldRequirement[];

export const COMMON_FIELDS: Record<string, FieldGetter> = {
  "metadata.name": (o) => o.metadata?.name ?? "",
  "metadata.namespace": (o) => o.metadata?.namespace ?? "",
};

function splitUnescaped(s: string, sep: string): string[] {
  const out: string[] = [];
  let cur = "";
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "\\" && i + 1 < s.length) {
      cur += c + s[i + 1];
      i++;
    } else if (c === sep) {
      out.push(cur);
      cur = "";
    } else cur += c;
  }
  out.push(cur);
  return out;
}

const unescape = (s: string) => s.replace(/\\(.)/g, "$1");

/** Parses `metadata.name=n1,spec.unschedulable!=true` against the type's supported fields. */
export function parseFieldSelector(text: string, fields: Record<string, FieldGetter>): FieldSelector {
  const out: FieldSelector = [];
  if (text.trim() === "") return out;
  for (const part of splitUnescaped(text, ",")) {
    const m = /^([^=!]+)(==|!=|=)(.*)$/s.exec(part.trim());
    if (!m) throw badRequest(`invalid selector: '${text}'; can't understand '${part}'`);
    const field = m[1]!.trim();
    const get = COMMON_FIELDS[field] ?? fields[field];
    if (!get) throw badRequest(`field label not supported: ${field}`);
    out.push({ field, op: m[2] === "!=" ? "!=" : "=", value: unescape(m[3]!), get });
  }
  return out;
}

export function matchesFields(sel: FieldSelector, obj: KubeObject): boolean {
  for (const r of sel) {
    const v = r.get(obj);
    if (r.op === "=" ? v !== r.value : v === r.value) return false;
  }
  return true;
}

/** A compiled list/watch filter: namespace scope plus both selectors. */
export interface Filter {
  namespace?: string;
  labels: LabelSelector;
  fields: FieldSelector;
}

export function matchesFilter(f: Filter, obj: KubeObject): boolean {
  if (f.namespace !== undefined && obj.metadata?.namespace !== f.namespace) return false;
  if (f.labels.length > 0 && !matchesLabels(f.labels, obj.metadata?.labels)) return false;
  if (f.fields.length > 0 && !matchesFields(f.fields, obj)) return false;
  return true;
}
