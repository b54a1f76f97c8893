// admissionregistration.k8s.io/v1 ValidatingWebhookConfiguration: the defaulting and the part of the
// validation kube-apiserver applies (pkg/apis/admissionregistration/v1/defaults.go and
// validation/validation.go), and the parsed form the dispatcher matches requests against.
import { fieldDuplicate, fieldInvalid, fieldNotSupported, fieldRequired, fieldTooMany, type FieldError } from "./errors.js";
import { isPlainObject } from "./json.js";
import { compileError, type MatchCondition } from "./match-conditions.js";
import { fromSelectorObject, type LabelSelector, type LabelSelectorObject } from "./selectors.js";
import type { KubeObject, TypeHooks } from "./types.js";

export const ADMISSION_GROUP = "admissionregistration.k8s.io";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
const OPERATIONS = ["*", "CREATE", "UPDATE", "DELETE", "CONNECT"];
const SCOPES = ["Cluster", "Namespaced", "*"];
const SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const REVIEW_VERSIONS = ["v1", "v1beta1"];

export interface WebhookRule {
  operations: string[];
  apiGroups: string[];
  apiVersions: string[];
  resources: string[];
  scope: "Cluster" | "Namespaced" | "*";
}

export interface ServiceReference {
  namespace: string;
  name: string;
  path?: string;
  port: number;
}

/** One webhook of a configuration, defaulted and with its selectors parsed. */
export interface ValidatingWebhook {
  /** The ValidatingWebhookConfiguration it belongs to. */
  configuration: string;
  name: string;
  rules: WebhookRule[];
  failurePolicy: "Fail" | "Ignore";
  matchPolicy: "Exact" | "Equivalent";
  sideEffects: string;
  timeoutSeconds: number;
  admissionReviewVersions: string[];
  namespaceSelector: LabelSelector;
  objectSelector: LabelSelector;
  /** CEL conditions, all true for the webhook to be called (match-conditions.ts). */
  matchConditions: MatchCondition[];
  url?: string;
  service?: ServiceReference;
  /** PEM bytes decoded from clientConfig.caBundle; undefined → the system roots. */
  caBundle?: Buffer;
}

function defaultWebhook(w: Record<string, any>): void {
  w.failurePolicy ??= "Fail";
  w.matchPolicy ??= "Equivalent";
  w.timeoutSeconds ??= 10;
  w.namespaceSelector ??= {};
  w.objectSelector ??= {};
  if (Array.isArray(w.rules)) for (const r of w.rules) if (isPlainObject(r)) r.scope ??= "*";
  const svc = isPlainObject(w.clientConfig) ? w.clientConfig.service : undefined;
  if (isPlainObject(svc)) svc.port ??= 443;
}

function validateSelector(field: string, v: unknown): FieldError[] {
  if (!isPlainObject(v)) return [fieldInvalid(field, v, "must be a label selector")];
  if (fromSelectorObject(v as LabelSelectorObject) === undefined) return [fieldInvalid(`${field}.matchExpressions`, v.matchExpressions, "invalid operator")];
  return [];
}

function validateWebhook(w: unknown, p: string, names: Set<string>): FieldError[] {
  if (!isPlainObject(w)) return [fieldInvalid(p, w, "must be an object")];
  const errs: FieldError[] = [];
  const name = w.name;
  if (typeof name !== "string" || name === "") errs.push(fieldRequired(`${p}.name`, ""));
  else {
    if (name.split(".").length < 3) errs.push(fieldInvalid(`${p}.name`, name, "should be a domain with at least three segments separated by dots"));
    if (names.has(name)) errs.push({ reason: "FieldValueDuplicate", field: `${p}.name`, detail: `Duplicate value: ${JSON.stringify(name)}` });
    names.add(name);
  }
  if (!Array.isArray(w.rules)) {
    if (w.rules !== undefined) errs.push(fieldInvalid(`${p}.rules`, w.rules, "must be a list"));
  } else
    w.rules.forEach((r: unknown, i: number) => {
      const rp = `${p}.rules[${i}]`;
      if (!isPlainObject(r)) return errs.push(fieldInvalid(rp, r, "must be an object"));
      for (const k of ["operations", "apiGroups", "apiVersions", "resources"])
        if (!Array.isArray(r[k]) || r[k].length === 0) errs.push(fieldRequired(`${rp}.${k}`, ""));
      for (const op of Array.isArray(r.operations) ? r.operations : [])
        if (!OPERATIONS.includes(op)) errs.push(fieldNotSupported(`${rp}.operations`, op, OPERATIONS.slice(1).concat("*")));
      if (!SCOPES.includes(r.scope)) errs.push(fieldNotSupported(`${rp}.scope`, r.scope, SCOPES));
      for (const res of Array.isArray(r.resources) ? r.resources : [])
        if (typeof res !== "string" || res === "" || res.split("/").some((s) => s === ""))
          errs.push(fieldRequired(`${rp}.resources`, "resource and subresource must not be empty"));
    });
  if (!["Fail", "Ignore"].includes(w.failurePolicy)) errs.push(fieldNotSupported(`${p}.failurePolicy`, w.failurePolicy, ["Fail", "Ignore"]));
  if (!["Exact", "Equivalent"].includes(w.matchPolicy)) errs.push(fieldNotSupported(`${p}.matchPolicy`, w.matchPolicy, ["Equivalent", "Exact"]));
  if (w.sideEffects === undefined || w.sideEffects === null) errs.push(fieldRequired(`${p}.sideEffects`, `must specify one of ${SIDE_EFFECTS.join(", ")}`));
  else if (!SIDE_EFFECTS.includes(w.sideEffects)) errs.push(fieldNotSupported(`${p}.sideEffects`, w.sideEffects, SIDE_EFFECTS));
  const t = w.timeoutSeconds;
  if (typeof t !== "number" || !Number.isInteger(t) || t < 1 || t > 30)
    errs.push(fieldInvalid(`${p}.timeoutSeconds`, t, "the timeout value must be between 1 and 30 seconds"));
  const versions = w.admissionReviewVersions;
  if (!Array.isArray(versions) || versions.length === 0) errs.push(fieldRequired(`${p}.admissionReviewVersions`, "must specify one of v1, v1beta1"));
  else if (!versions.some((v: unknown) => REVIEW_VERSIONS.includes(v as string)))
    errs.push(fieldInvalid(`${p}.admissionReviewVersions`, versions, "must include at least one of v1, v1beta1"));
  errs.push(...validateSelector(`${p}.namespaceSelector`, w.namespaceSelector), ...validateSelector(`${p}.objectSelector`, w.objectSelector));
  errs.push(...validateMatchConditions(`${p}.matchConditions`, w.matchConditions));
  const cc = w.clientConfig;
  if (!isPlainObject(cc)) errs.push(fieldRequired(`${p}.clientConfig`, ""));
  else {
    const hasUrl = typeof cc.url === "string" && cc.url !== "";
    if (hasUrl === isPlainObject(cc.service)) errs.push(fieldRequired(`${p}.clientConfig`, "exactly one of url or service is required"));
    if (hasUrl) {
      let u: URL | undefined;
      try {
        u = new URL(cc.url);
      } catch {
        errs.push(fieldInvalid(`${p}.clientConfig.url`, cc.url, "host must be specified"));
      }
      if (u && u.protocol !== "https:") errs.push(fieldInvalid(`${p}.clientConfig.url`, cc.url, "'https' is the only allowed URL scheme"));
      if (u && (u.hash || u.username)) errs.push(fieldInvalid(`${p}.clientConfig.url`, cc.url, "fragments and user information are not permitted in the URL"));
    }
    if (isPlainObject(cc.service)) {
      const s = cc.service;
      if (!s.name) errs.push(fieldRequired(`${p}.clientConfig.service.name`, "service name is required"));
      if (!s.namespace) errs.push(fieldRequired(`${p}.clientConfig.service.namespace`, "service namespace is required"));
      if (typeof s.port !== "number" || s.port < 1 || s.port > 65535)
        errs.push(fieldInvalid(`${p}.clientConfig.service.port`, s.port, "port is not valid: must be between 1 and 65535, inclusive"));
      if (s.path !== undefined && (typeof s.path !== "string" || !s.path.startsWith("/")))
        errs.push(fieldInvalid(`${p}.clientConfig.service.path`, s.path, "must start with a '/'"));
    }
    if (cc.caBundle !== undefined && (typeof cc.caBundle !== "string" || !/^[A-Za-z0-9+/]*={0,2}$/.test(cc.caBundle)))
      errs.push(fieldInvalid(`${p}.clientConfig.caBundle`, "<value omitted>", "must be base64 encoded"));
  }
  return errs;
}

const MAX_MATCH_CONDITIONS = 64;

/** matchConditions as kube-apiserver validates them: named uniquely, at most 64, each a CEL expression that compiles. */
function validateMatchConditions(p: string, conditions: unknown): FieldError[] {
  if (conditions === undefined || conditions === null) return [];
  if (!Array.isArray(conditions)) return [fieldInvalid(p, conditions, "must be a list")];
  const errs: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errs.push(fieldTooMany(p, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((c: unknown, i: number) => {
    const q = `${p}[${i}]`;
    if (!isPlainObject(c)) return errs.push(fieldInvalid(q, c, "must be an object"));
    if (typeof c.name !== "string" || c.name === "") errs.push(fieldRequired(`${q}.name`, ""));
    else if (names.has(c.name)) errs.push(fieldDuplicate(`${q}.name`, c.name));
    else names.add(c.name);
    if (typeof c.expression !== "string" || c.expression.trim() === "") errs.push(fieldRequired(`${q}.expression`, ""));
    else {
      const bad = compileError(c.expression);
      if (bad !== undefined) errs.push(fieldInvalid(`${q}.expression`, c.expression, `compilation failed: ${bad}`));
    }
    return undefined;
  });
  return errs;
}

function defaultConfiguration(obj: KubeObject): void {
  if (Array.isArray(obj.webhooks)) for (const w of obj.webhooks) if (isPlainObject(w)) defaultWebhook(w);
}

/** Type hooks of ValidatingWebhookConfiguration: defaulting on create/update, then validation. */
export const validatingWebhookConfigurationHooks: TypeHooks = {
  prepareForCreate: defaultConfiguration,
  prepareForUpdate: defaultConfiguration,
  validate(obj) {
    if (obj.webhooks === undefined || obj.webhooks === null) return [];
    if (!Array.isArray(obj.webhooks)) return [fieldInvalid("webhooks", obj.webhooks, "must be a list")];
    const names = new Set<string>();
    return obj.webhooks.flatMap((w: unknown, i: number) => validateWebhook(w, `webhooks[${i}]`, names));
  },
};

/** The webhooks of a stored (so defaulted and valid) configuration, in order. */
export function parseConfiguration(obj: KubeObject): ValidatingWebhook[] {
  const name = obj.metadata?.name ?? "";
  const out: ValidatingWebhook[] = [];
  for (const w of Array.isArray(obj.webhooks) ? obj.webhooks : []) {
    if (!isPlainObject(w)) continue;
    const cc = isPlainObject(w.clientConfig) ? w.clientConfig : {};
    const svc = isPlainObject(cc.service) ? cc.service : undefined;
    out.push({
      configuration: name,
      name: String(w.name),
      rules: (Array.isArray(w.rules) ? w.rules : []).filter(isPlainObject).map((r: Record<string, any>) => ({
        operations: r.operations ?? [],
        apiGroups: r.apiGroups ?? [],
        apiVersions: r.apiVersions ?? [],
        resources: r.resources ?? [],
        scope: r.scope ?? "*",
      })),
      failurePolicy: w.failurePolicy === "Ignore" ? "Ignore" : "Fail",
      matchPolicy: w.matchPolicy === "Exact" ? "Exact" : "Equivalent",
      sideEffects: w.sideEffects ?? "",
      timeoutSeconds: typeof w.timeoutSeconds === "number" ? w.timeoutSeconds : 10,
      admissionReviewVersions: w.admissionReviewVersions ?? [],
      namespaceSelector: fromSelectorObject(w.namespaceSelector) ?? [],
      objectSelector: fromSelectorObject(w.objectSelector) ?? [],
      matchConditions: (Array.isArray(w.matchConditions) ? w.matchConditions : [])
        .filter(isPlainObject)
        .map((c: Record<string, any>) => ({ name: String(c.name), expression: String(c.expression) })),
      url: typeof cc.url === "string" && cc.url ? cc.url : undefined,
      service: svc ? { namespace: String(svc.namespace), name: String(svc.name), path: svc.path, port: svc.port ?? 443 } : undefined,
      caBundle: typeof cc.caBundle === "string" && cc.caBundle ? Buffer.from(cc.caBundle, "base64") : undefined,
    });
  }
  return out;
}
