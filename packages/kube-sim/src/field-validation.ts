// Server-side field validation (the `fieldValidation` query parameter of create, update and patch):
// fields the kind's published schema does not declare are an error under Strict and a warning under
// Warn, as kube-apiserver's strict decoding reports them. Without the parameter nothing is checked
// (kube-apiserver would warn; kube-sim's own clients never asked, and stay unchanged).
import { badRequest } from "./errors.js";
import { isPlainObject } from "./json.js";
import { resolveRef } from "./openapi.js";
import type { Schema } from "./types.js";

export type FieldValidation = "Strict" | "Warn" | "Ignore";

/** The directive of a request; an unknown value is a 400 like kube-apiserver's. */
export function fieldValidationOf(q: URLSearchParams): FieldValidation {
  const v = q.get("fieldValidation");
  if (v === null || v === "" || v === "Ignore") return "Ignore";
  if (v === "Strict" || v === "Warn") return v;
  throw badRequest(`fieldValidation must be one of "Ignore", "Warn", or "Strict", got: ${v}`);
}

const join = (path: string, key: string) => (path ? `${path}.${key}` : key);

/**
 * Paths of the fields in `v` that `schema` does not declare (`spec.foo`, `spec.taints[0].bar`).
 * Keys starting with `$` are strategic-merge-patch directives, not fields.
 */
export function unknownFields(v: unknown, schema: Schema, path = ""): string[] {
  const s = resolveRef(schema);
  if (Array.isArray(v)) return s.items ? v.flatMap((x, i) => unknownFields(x, s.items!, `${path}[${i}]`)) : [];
  if (!isPlainObject(v)) return [];
  const out: string[] = [];
  const preserve = s["x-kubernetes-preserve-unknown-fields"] === true;
  const embedded = s["x-kubernetes-embedded-resource"] === true;
  const addl = s.additionalProperties;
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith("$")) continue;
    const sub = s.properties?.[k];
    if (sub) out.push(...unknownFields(x, sub, join(path, k)));
    else if (isPlainObject(addl)) out.push(...unknownFields(x, addl as Schema, join(path, k)));
    else if (addl === true || preserve || (embedded && (k === "apiVersion" || k === "kind" || k === "metadata"))) continue;
    else if (!s.properties && addl === undefined && s.type !== "object") continue;
    else out.push(join(path, k));
  }
  return out;
}

/**
 * Checks a request body (object or merge/strategic/apply patch) of `kind` in `version`: throws
 * the 400 of strict decoding under Strict, returns the warnings under Warn, nothing under Ignore.
 */
export function validateFields(directive: FieldValidation, body: unknown, schema: Schema, kind: string, version: string): string[] {
  if (directive === "Ignore" || !isPlainObject(body)) return [];
  const unknown = unknownFields(body, schema).map((p) => `unknown field "${p}"`);
  if (unknown.length === 0) return [];
  if (directive === "Warn") return unknown;
  throw badRequest(`${kind} in version "${version}" cannot be handled as a ${kind}: strict decoding error: ${unknown.join(", ")}`);
}
