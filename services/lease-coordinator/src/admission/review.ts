// The parts of an admission.k8s.io/v1 AdmissionReview the lease webhook reads, parsed defensively:
// the API server sends it, but a webhook endpoint is reachable by anyone on the network, so a
// malformed body is a clear 400, never a crash.

export interface AdmissionUser {
  username: string;
  uid: string;
  groups: string[];
}

export interface AdmissionRequest {
  uid: string;
  group: string;
  resource: string;
  subResource: string;
  name: string;
  namespace: string;
  operation: "CREATE" | "UPDATE" | "DELETE" | "CONNECT";
  userInfo: AdmissionUser;
  object: any;
  oldObject: any;
  dryRun: boolean;
}

const OPERATIONS = new Set(["CREATE", "UPDATE", "DELETE", "CONNECT"]);

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The request of an AdmissionReview body, or the reason it is not one. */
export function parseAdmissionReview(body: unknown): { ok: true; request: AdmissionRequest } | { ok: false; error: string } {
  if (body === null || typeof body !== "object") return { ok: false, error: "the body is not a JSON object" };
  const review = body as Record<string, any>;
  if (review.kind !== "AdmissionReview" || review.apiVersion !== "admission.k8s.io/v1") {
    return { ok: false, error: `expected an admission.k8s.io/v1 AdmissionReview, got ${str(review.apiVersion) || "no apiVersion"} ${str(review.kind) || "no kind"}` };
  }
  const r = review.request;
  if (r === null || typeof r !== "object") return { ok: false, error: "the AdmissionReview has no request" };
  if (str(r.uid) === "") return { ok: false, error: "request.uid is empty" };
  if (!OPERATIONS.has(r.operation)) return { ok: false, error: `request.operation ${JSON.stringify(r.operation)} is not CREATE, UPDATE, DELETE or CONNECT` };
  const user = r.userInfo && typeof r.userInfo === "object" ? r.userInfo : {};
  return {
    ok: true,
    request: {
      uid: r.uid,
      group: str(r.resource?.group),
      resource: str(r.resource?.resource),
      subResource: str(r.subResource),
      // A deletecollection (`kubectl delete nodes --all`) reviews each object with no name: the
      // object's own name is the one the webhook must judge, or such a deletion would pass unjudged.
      name: str(r.name) || str(r.oldObject?.metadata?.name) || str(r.object?.metadata?.name),
      namespace: str(r.namespace),
      operation: r.operation,
      userInfo: {
        username: str(user.username),
        uid: str(user.uid),
        groups: Array.isArray(user.groups) ? user.groups.filter((g: unknown): g is string => typeof g === "string") : [],
      },
      object: r.object ?? undefined,
      oldObject: r.oldObject ?? undefined,
      dryRun: r.dryRun === true,
    },
  };
}

/** The AdmissionReview answer: allowed, or refused with a 403 and a message. */
export function admissionResponse(uid: string, verdict: { allowed: true; warnings?: string[] } | { allowed: false; message: string; code?: number }): object {
  const response: Record<string, unknown> = { uid, allowed: verdict.allowed };
  if (!verdict.allowed) response.status = { code: verdict.code ?? 403, reason: "Forbidden", message: verdict.message };
  if (verdict.allowed && verdict.warnings?.length) response.warnings = verdict.warnings;
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response };
}
