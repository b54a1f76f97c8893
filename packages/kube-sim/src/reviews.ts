// The create-only review APIs and the TokenRequest subresource, answered from kube-sim's own objects:
// authentication.k8s.io/v1 TokenReview and SelfSubjectReview, authorization.k8s.io/v1 SubjectAccessReview,
// SelfSubjectAccessReview and LocalSubjectAccessReview (never stored, as on a real server), and
// POST …/serviceaccounts/{name}/token. Bodies are checked field by field: a wrong JSON type is a
// 400 BadRequest, a semantically invalid review a 422 Invalid, as kube-apiserver answers.
import {
  API_AUDIENCES,
  DEFAULT_TOKEN_SECONDS,
  MAX_TOKEN_SECONDS,
  MIN_TOKEN_SECONDS,
  type Authenticator,
  type BoundObject,
  type UidLookup,
} from "./authn.js";
import { badRequest, failure, fieldInvalid, fieldNotSupported, fieldRequired, KubeError, notFound, type FieldError } from "./errors.js";
import { isPlainObject } from "./json.js";
import { authorize, RBAC_GROUP, type AccessRequest, type RbacSource, type UserInfo } from "./rbac.js";
import type { Store } from "./store.js";
import type { KubeObject, ResourceType } from "./types.js";

export const AUTHN_GROUP = "authentication.k8s.io";
export const AUTHZ_GROUP = "authorization.k8s.io";

export interface ReviewContext {
  store: Store;
  authn: Authenticator;
}

/** RBAC objects read from the store (what the authorizer's informers would hold). */
export function storeRbacSource(store: Store): RbacSource {
  const t = (plural: string) => store.registry.get(RBAC_GROUP, plural);
  const all = (plural: string, ns?: string) => {
    const type = t(plural);
    return type ? store.entries(type, ns).map((e) => e.obj) : [];
  };
  const one = (plural: string, ns: string | undefined, name: string) => {
    const type = t(plural);
    return type ? store.getEntry(type, ns, name)?.obj : undefined;
  };
  return {
    clusterRoleBindings: () => all("clusterrolebindings"),
    roleBindings: (ns) => all("rolebindings", ns),
    role: (ns, name) => one("roles", ns, name),
    clusterRole: (name) => one("clusterroles", undefined, name),
    clusterRoles: () => all("clusterroles"),
  };
}

/** Uids of live objects a ServiceAccount token may be bound to (deleting objects count as gone). */
export function storeUidLookup(store: Store): UidLookup {
  const plurals = { ServiceAccount: "serviceaccounts", Pod: "pods", Secret: "secrets" } as const;
  return (kind, namespace, name) => {
    const t = store.registry.get("", plurals[kind]);
    const obj = t ? store.getEntry(t, namespace, name)?.obj : undefined;
    return obj && !obj.metadata?.deletionTimestamp ? obj.metadata?.uid : undefined;
  };
}

/** Answers a POST to one of the create-only review types. */
export function review(ctx: ReviewContext, t: ResourceType, namespace: string | undefined, body: unknown, caller: UserInfo): KubeObject {
  switch (t.kind) {
    case "TokenReview":
      return tokenReview(ctx, body);
    case "SelfSubjectReview":
      return selfSubjectReview(body, caller);
    case "SubjectAccessReview":
    case "SelfSubjectAccessReview":
    case "LocalSubjectAccessReview":
      return accessReview(ctx, t.kind, namespace, body, caller);
    default:
      throw badRequest(`${t.kind} cannot be created`);
  }
}

// ---------------------------------------------------------------- body checks

type GoType = "object" | "string" | "[]string" | "int64" | "map[string][]string";

/** The JSON type name Go's encoding/json uses in its errors. */
function jsonType(value: unknown): string {
  return Array.isArray(value) ? "array" : value === null ? "null" : typeof value === "boolean" ? "bool" : typeof value;
}

/** Go's encoding/json error for a field of the wrong JSON type, as the API server wraps it (400). */
function typeError(kind: string, path: string, value: unknown, goType: string): KubeError {
  return badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonType(value)} into Go struct field ${kind}.${path} of type ${goType}`);
}

function check(kind: string, path: string, value: unknown, type: GoType): void {
  if (value === undefined || value === null) return;
  const ok =
    type === "object"
      ? isPlainObject(value)
      : type === "string"
        ? typeof value === "string"
        : type === "int64"
          ? Number.isInteger(value)
          : type === "[]string"
            ? Array.isArray(value) && value.every((x) => typeof x === "string")
            : isPlainObject(value) && Object.values(value).every((v) => Array.isArray(v) && v.every((x) => typeof x === "string"));
  if (!ok) throw typeError(kind, path, value, type === "object" ? goStructName(kind, path) : type);
}

function goStructName(kind: string, path: string): string {
  const last = path.split(".").pop()!;
  const names: Record<string, string> = {
    metadata: "v1.ObjectMeta",
    spec: `v1.${kind === "LocalSubjectAccessReview" ? "SubjectAccessReview" : kind}Spec`,
    resourceAttributes: "v1.ResourceAttributes",
    nonResourceAttributes: "v1.NonResourceAttributes",
    boundObjectRef: "v1.BoundObjectReference",
  };
  return names[last] ?? `v1.${last}`;
}

function bodyObject(kind: string, body: unknown): Record<string, any> {
  if (body === undefined) throw badRequest(`the body of the request was empty; expected a ${kind}`);
  if (!isPlainObject(body))
    throw badRequest(`${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonType(body)} into Go value of type v1.${kind}`);
  check(kind, "metadata", body.metadata, "object");
  check(kind, "spec", body.spec, "object");
  return body;
}

function invalidReview(group: string, kind: string, name: string, errs: FieldError[]): KubeError {
  const texts = errs.map((e) => `${e.field}: ${e.detail}`);
  const joined = texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
  return new KubeError(
    failure(422, `${kind}.${group} ${JSON.stringify(name)} is invalid: ${joined}`, "Invalid", {
      ...(name ? { name } : {}),
      group,
      kind,
      causes: errs.map((e) => ({ reason: e.reason, message: e.detail, field: e.field })),
    }),
  );
}

const reviewMeta = (body: Record<string, any>): Record<string, unknown> => ({ ...(isPlainObject(body.metadata) ? body.metadata : {}), creationTimestamp: null });

// ---------------------------------------------------------------- TokenReview

function tokenReview(ctx: ReviewContext, raw: unknown): KubeObject {
  const kind = "TokenReview";
  const body = bodyObject(kind, raw);
  const spec = (body.spec ?? {}) as Record<string, any>;
  check(kind, "spec.token", spec.token, "string");
  check(kind, "spec.audiences", spec.audiences, "[]string");
  if (!spec.token) throw badRequest("token is required for TokenReview in authentication");
  const result = ctx.authn.authenticate(spec.token, spec.audiences ?? []);
  const status: Record<string, unknown> = {};
  if (result.authenticated) {
    status.authenticated = true;
    const user: Record<string, unknown> = { username: result.user.username };
    if (result.user.uid) user.uid = result.user.uid;
    user.groups = result.user.groups;
    if (result.user.extra) user.extra = result.user.extra;
    status.user = user;
    status.audiences = result.audiences;
  } else {
    // Like the real server: `authenticated` is omitted when false, `user` is an empty object.
    status.user = {};
    status.error = result.error;
  }
  return { kind, apiVersion: `${AUTHN_GROUP}/v1`, metadata: reviewMeta(body), spec, status };
}

/** SelfSubjectReview (`kubectl auth whoami`): the caller's own user info. */
function selfSubjectReview(raw: unknown, caller: UserInfo): KubeObject {
  const body = bodyObject("SelfSubjectReview", raw ?? {});
  const userInfo: Record<string, unknown> = { username: caller.username };
  if (caller.uid) userInfo.uid = caller.uid;
  userInfo.groups = caller.groups;
  if (caller.extra) userInfo.extra = caller.extra;
  return { kind: "SelfSubjectReview", apiVersion: `${AUTHN_GROUP}/v1`, metadata: reviewMeta(body), status: { userInfo } };
}

// ---------------------------------------------------------------- access reviews

function accessReview(ctx: ReviewContext, kind: string, urlNamespace: string | undefined, raw: unknown, caller: UserInfo): KubeObject {
  const body = bodyObject(kind, raw);
  const spec = (body.spec ?? {}) as Record<string, any>;
  check(kind, "spec.resourceAttributes", spec.resourceAttributes, "object");
  check(kind, "spec.nonResourceAttributes", spec.nonResourceAttributes, "object");
  const ra = spec.resourceAttributes as Record<string, unknown> | undefined;
  const nra = spec.nonResourceAttributes as Record<string, unknown> | undefined;
  for (const f of ["namespace", "verb", "group", "version", "resource", "subresource", "name"])
    check(kind, `spec.resourceAttributes.${f}`, ra?.[f], "string");
  for (const f of ["path", "verb"]) check(kind, `spec.nonResourceAttributes.${f}`, nra?.[f], "string");
  const self = kind === "SelfSubjectAccessReview";
  if (!self) {
    check(kind, "spec.user", spec.user, "string");
    check(kind, "spec.uid", spec.uid, "string");
    check(kind, "spec.groups", spec.groups, "[]string");
    check(kind, "spec.extra", spec.extra, "map[string][]string");
  }
  const meta = isPlainObject(body.metadata) ? body.metadata : {};
  if (kind === "LocalSubjectAccessReview") {
    if (!urlNamespace) throw badRequest("namespace is required on this type: ");
    if (meta.namespace !== undefined && meta.namespace !== urlNamespace) throw badRequest(`spec.resourceAttributes.namespace must match namespace: ${urlNamespace}`);
  }

  const errs: FieldError[] = [];
  if (ra && nra) errs.push(fieldInvalid("spec.nonResourceAttributes", nra, "cannot be specified in combination with resourceAttributes"));
  if (!ra && !nra) errs.push(fieldInvalid("spec.resourceAttributes", null, "exactly one of nonResourceAttributes or resourceAttributes must be specified"));
  if (!self && !spec.user && !(spec.groups?.length > 0)) errs.push(fieldInvalid("spec.user", spec.user ?? "", "at least one of user or group must be specified"));
  if (kind === "LocalSubjectAccessReview") {
    if (nra) errs.push({ reason: "FieldValueInvalid", field: "spec.nonResourceAttributes", detail: `Invalid value: ${JSON.stringify(nra)}: disallowed on this kind of request` });
    if (ra && (ra.namespace ?? "") !== urlNamespace) errs.push(fieldInvalid("spec.resourceAttributes.namespace", ra.namespace ?? "", "must match metadata.namespace"));
  }
  if (errs.length) throw invalidReview(AUTHZ_GROUP, kind, String(meta.name ?? ""), errs);

  const user: UserInfo = self
    ? caller
    : { username: spec.user ?? "", groups: [...(spec.groups ?? [])], ...(spec.uid ? { uid: spec.uid } : {}), ...(spec.extra ? { extra: spec.extra } : {}) };
  const request: AccessRequest = ra ? { user, resource: ra as AccessRequest["resource"] } : { user, nonResource: nra as AccessRequest["nonResource"] };
  const decision = authorize(storeRbacSource(ctx.store), request);
  const status: Record<string, unknown> = { allowed: decision.allowed };
  if (decision.reason) status.reason = decision.reason;
  const metadata = reviewMeta(body);
  if (kind === "LocalSubjectAccessReview") metadata.namespace = urlNamespace;
  return { kind, apiVersion: `${AUTHZ_GROUP}/v1`, metadata, spec, status };
}

// ---------------------------------------------------------------- TokenRequest

/** POST /api/v1/namespaces/{ns}/serviceaccounts/{name}/token. */
export function tokenRequest(ctx: ReviewContext, namespace: string, name: string, raw: unknown): KubeObject {
  const kind = "TokenRequest";
  const body = bodyObject(kind, raw ?? {});
  const spec = (body.spec ?? {}) as Record<string, any>;
  check(kind, "spec.audiences", spec.audiences, "[]string");
  check(kind, "spec.expirationSeconds", spec.expirationSeconds, "int64");
  check(kind, "spec.boundObjectRef", spec.boundObjectRef, "object");
  const ref = spec.boundObjectRef as Record<string, unknown> | undefined;
  for (const f of ["kind", "apiVersion", "name", "uid"]) check(kind, `spec.boundObjectRef.${f}`, ref?.[f], "string");
  const meta = isPlainObject(body.metadata) ? body.metadata : {};
  if (meta.name !== undefined && meta.name !== "" && meta.name !== name)
    throw badRequest(`the name of the object (${String(meta.name)}) does not match the name on the URL (${name})`);
  if (meta.namespace !== undefined && meta.namespace !== "" && meta.namespace !== namespace)
    throw badRequest("the namespace of the provided object does not match the namespace sent on the request");

  const saType = ctx.store.registry.get("", "serviceaccounts")!;
  const sa = ctx.store.get(saType, namespace, name).obj;
  const expirationSeconds: number = spec.expirationSeconds ?? DEFAULT_TOKEN_SECONDS;
  const audiences: string[] = spec.audiences?.length ? spec.audiences : [...API_AUDIENCES];
  const errs: FieldError[] = [];
  if (expirationSeconds < MIN_TOKEN_SECONDS) errs.push(fieldInvalid("spec.expirationSeconds", expirationSeconds, "may not specify a duration less than 10 minutes"));
  if (expirationSeconds > MAX_TOKEN_SECONDS) errs.push(fieldInvalid("spec.expirationSeconds", expirationSeconds, "may not specify a duration larger than 2^32 seconds"));
  let bound: BoundObject | undefined;
  if (ref) {
    if (ref.kind !== "Pod" && ref.kind !== "Secret") errs.push(fieldNotSupported("spec.boundObjectRef.kind", ref.kind ?? "", ["Pod", "Secret"]));
    else if (!ref.name) errs.push(fieldRequired("spec.boundObjectRef.name", ""));
    else {
      const t = ctx.store.registry.get("", ref.kind === "Pod" ? "pods" : "secrets")!;
      const obj = ctx.store.get(t, namespace, ref.name as string).obj;
      const uid = obj.metadata!.uid!;
      if (ref.kind === "Pod" && ((obj.spec as { serviceAccountName?: string } | undefined)?.serviceAccountName ?? "") !== name)
        throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      if (ref.uid && ref.uid !== uid)
        throw new KubeError(
          failure(
            409,
            // kube-apiserver puts the bound object's kind where a resource would be.
            `Operation cannot be fulfilled on ${ref.kind} "${String(ref.name)}": the UID in the bound object reference (${String(ref.uid)}) does not match the UID in record. The object might have been deleted and then recreated`,
            "Conflict",
            { name: String(ref.name), kind: ref.kind },
          ),
        );
      bound = { kind: ref.kind, name: ref.name as string, uid };
    }
  }
  // kube-apiserver names no object in this error (the TokenRequest has no name of its own).
  if (errs.length) throw invalidReview(AUTHN_GROUP, kind, "", errs);
  if (!sa.metadata?.uid || sa.metadata.deletionTimestamp) throw notFound(saType, name);
  const issued = ctx.authn.issue({ namespace, name, uid: sa.metadata.uid }, { audiences, expirationSeconds, bound });
  const outSpec: Record<string, unknown> = { audiences, expirationSeconds, boundObjectRef: bound ? { kind: bound.kind, apiVersion: "v1", name: bound.name, uid: bound.uid } : null };
  return {
    kind,
    apiVersion: `${AUTHN_GROUP}/v1`,
    metadata: { name, namespace, creationTimestamp: null as unknown as string },
    spec: outSpec,
    status: issued,
  };
}
