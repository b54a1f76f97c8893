// Builders for the API server's `Status` error bodies, field for field as recorded in kube-api.md §14.
// client-node surfaces them as ApiException{code, body: <this JSON as a string>}, so shapes matter.

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusBody {
  kind: "Status";
  apiVersion: "v1";
  metadata: Record<string, unknown>;
  status: "Failure" | "Success";
  message?: string;
  reason?: string;
  details?: StatusDetails;
  code: number;
}

/** A failure the HTTP layer turns into a Status response (or a watch ERROR event). */
export class KubeError extends Error {
  readonly status: StatusBody;
  readonly headers: Record<string, string>;
  constructor(status: StatusBody, headers: Record<string, string> = {}) {
    super(status.message ?? status.reason ?? `HTTP ${status.code}`);
    this.status = status;
    this.headers = headers;
  }
  get code(): number {
    return this.status.code;
  }
}

/** What an error needs to know about the resource it concerns. */
export interface ResourceRef {
  group: string;
  plural: string;
  kind: string;
}

export function failure(code: number, message: string | undefined, reason?: string, details?: StatusDetails): StatusBody {
  // Keep the Go field order: message, reason, details, code.
  const ordered: StatusBody = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure" } as StatusBody;
  if (message !== undefined) ordered.message = message;
  if (reason !== undefined) ordered.reason = reason;
  if (details !== undefined) ordered.details = details;
  ordered.code = code;
  return ordered;
}

export function qualifiedResource(r: Pick<ResourceRef, "group" | "plural">): string {
  return r.group === "" ? r.plural : `${r.plural}.${r.group}`;
}

function resourceDetails(r: ResourceRef, name: string, kindField: string): StatusDetails {
  const d: StatusDetails = { name };
  if (r.group !== "") d.group = r.group;
  d.kind = kindField;
  return d;
}

export function notFound(r: Pick<ResourceRef, "group" | "plural">, name: string): KubeError {
  return new KubeError(
    failure(404, `${qualifiedResource(r)} "${name}" not found`, "NotFound", resourceDetails({ ...r, kind: "" }, name, r.plural)),
  );
}

export function alreadyExists(r: ResourceRef, name: string): KubeError {
  return new KubeError(failure(409, `${qualifiedResource(r)} "${name}" already exists`, "AlreadyExists", resourceDetails(r, name, r.plural)));
}

export function conflict(r: ResourceRef, name: string): KubeError {
  return new KubeError(
    failure(
      409,
      `Operation cannot be fulfilled on ${qualifiedResource(r)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
      "Conflict",
      resourceDetails(r, name, r.plural),
    ),
  );
}

export function preconditionConflict(r: ResourceRef, name: string, what: "ResourceVersion" | "UID", want: string, have: string): KubeError {
  return new KubeError(
    failure(
      409,
      `Operation cannot be fulfilled on ${r.kind} "${name}": the ${what} in the precondition (${want}) does not match the ${what} in record (${have}). The object might have been modified`,
      "Conflict",
      resourceDetails(r, name, r.kind),
    ),
  );
}

export type CauseReason =
  | "FieldValueInvalid"
  | "FieldValueRequired"
  | "FieldValueNotSupported"
  | "FieldValueDuplicate"
  | "FieldValueForbidden"
  | "FieldValueTooLong"
  | "FieldValueTooMany"
  | "FieldValueTypeInvalid";

/** One field error; `detail` is the text after the field path, e.g. `Invalid value: "x": bad`. */
export interface FieldError {
  reason: CauseReason;
  field: string;
  detail: string;
}

export function fieldInvalid(field: string, value: unknown, why: string): FieldError {
  return { reason: "FieldValueInvalid", field, detail: `Invalid value: ${goValue(value)}: ${why}` };
}
export function fieldRequired(field: string, why: string): FieldError {
  return { reason: "FieldValueRequired", field, detail: `Required value${why ? `: ${why}` : ""}` };
}
export function fieldForbidden(field: string, why: string): FieldError {
  return { reason: "FieldValueForbidden", field, detail: `Forbidden: ${why}` };
}
export function fieldNotSupported(field: string, value: unknown, allowed: string[]): FieldError {
  return {
    reason: "FieldValueNotSupported",
    field,
    detail: `Unsupported value: ${goValue(value)}: supported values: ${allowed.map((a) => `"${a}"`).join(", ")}`,
  };
}

export function fieldDuplicate(field: string, value: unknown): FieldError {
  return { reason: "FieldValueDuplicate", field, detail: `Duplicate value: ${goValue(value)}` };
}
export function fieldTooMany(field: string, actual: number, max: number): FieldError {
  return { reason: "FieldValueTooMany", field, detail: `Too many: ${actual}: must have at most ${max} items` };
}

function goValue(v: unknown): string {
  if (typeof v === "string") return JSON.stringify(v);
  if (v === undefined || v === null) return "null";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

export function invalid(r: ResourceRef, name: string, errs: FieldError[]): KubeError {
  const texts = errs.map((e) => `${e.field}: ${e.detail}`);
  const joined = texts.length === 1 ? texts[0] : `[${texts.join(", ")}]`;
  const d = resourceDetails(r, name, r.kind);
  d.causes = errs.map((e) => ({ reason: e.reason, message: e.detail, field: e.field }));
  // Go's GroupKind.String(): "Kind.group" for grouped types, as kube-apiserver's message has it.
  const qualified = r.group === "" ? r.kind : `${r.kind}.${r.group}`;
  return new KubeError(failure(422, `${qualified} "${name}" is invalid: ${joined}`, "Invalid", d));
}

export function badRequest(message: string): KubeError {
  return new KubeError(failure(400, message, "BadRequest"));
}

export function unsupportedMediaType(message = "415: Unsupported Media Type"): KubeError {
  return new KubeError(failure(415, message, "UnsupportedMediaType", {}));
}

/** A strategic merge patch on a custom resource: kube-apiserver's Status here has no details. */
export function smpOnCustomResource(): KubeError {
  return new KubeError(failure(415, SMP_ON_CUSTOM_MESSAGE, "UnsupportedMediaType"));
}

export const SMP_ON_CUSTOM_MESSAGE =
  "the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";

export function expired(message: string): KubeError {
  return new KubeError(failure(410, message, "Expired"));
}

export function gone(message: string): KubeError {
  return new KubeError(failure(410, message, "Gone"));
}

export function internalError(message: string, reason?: string): KubeError {
  return new KubeError(failure(500, message, reason));
}

export function unauthorized(): KubeError {
  return new KubeError(failure(401, "Unauthorized", "Unauthorized"));
}

export function methodNotAllowed(): KubeError {
  return new KubeError(failure(405, "the server does not allow this method on the requested resource", "MethodNotAllowed", {}));
}

export function notFoundPath(): KubeError {
  return new KubeError(failure(404, "the server could not find the requested resource", "NotFound", {}));
}

export function tooManyRequests(message: string, causes?: StatusCause[], retryAfterSeconds?: number): KubeError {
  const details: StatusDetails = {};
  if (causes) details.causes = causes;
  if (retryAfterSeconds) details.retryAfterSeconds = retryAfterSeconds;
  const headers: Record<string, string> = retryAfterSeconds ? { "retry-after": String(retryAfterSeconds) } : {};
  return new KubeError(failure(429, message, "TooManyRequests", details), headers);
}

export function forbidden(r: ResourceRef, name: string, why: string): KubeError {
  return new KubeError(failure(403, `${qualifiedResource(r)} "${name}" is forbidden: ${why}`, "Forbidden", resourceDetails(r, name, r.plural)));
}

export function serviceUnavailable(): KubeError {
  return new KubeError(failure(503, "the server is currently unable to handle the request", "ServiceUnavailable", {}));
}

export function successStatus(details?: StatusDetails, code?: number): Record<string, unknown> {
  const s: Record<string, unknown> = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success" };
  if (details) s.details = details;
  if (code !== undefined) s.code = code;
  return s;
}
