// TokenReview and SubjectAccessReview against the API server: the edge where the coordinator asks
// Kubernetes who a caller is and what it may do. Every outcome is a value; a transport failure or
// an unexpected answer is `failed`, which callers treat as a refusal (fail closed).
import type { KubeConfigLike } from "@lockstep/kube";
import { AuthenticationV1Api, AuthorizationV1Api, makeJsonApiClient, type AccessReviewJsonClient, type TokenReviewJsonClient } from "../store/lease-json-client.js";

export type TokenReviewResult =
  | { kind: "authenticated"; username: string; uid: string; groups: string[] }
  | { kind: "rejected"; reason: string }
  | { kind: "failed"; reason: string };

export type AccessReviewResult = { kind: "allowed"; reason: string } | { kind: "denied"; reason: string } | { kind: "failed"; reason: string };

/** What a SubjectAccessReview asks about: one verb on Lockstep's `nodeleases` resource. */
export interface AccessQuestion {
  user: string;
  groups: readonly string[];
  uid: string;
  verb: string;
  /** The node (resourceName); empty for the whole collection (list, watch). */
  name: string;
}

export const NODELEASES_GROUP = "lockstep.io";
export const NODELEASES_RESOURCE = "nodeleases";

export interface Reviewer {
  reviewToken(token: string): Promise<TokenReviewResult>;
  reviewAccess(q: AccessQuestion): Promise<AccessReviewResult>;
}

function parse(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function answerError(kind: string, r: { status: number; text: string }): string {
  const body = parse(r.text);
  return `${kind} answered HTTP ${r.status}${typeof body?.message === "string" ? `: ${body.message}` : ""}`;
}

export class KubeReviewer implements Reviewer {
  private readonly authn: TokenReviewJsonClient;
  private readonly authz: AccessReviewJsonClient;

  constructor(
    kc: KubeConfigLike,
    private readonly audiences: readonly string[] = [],
  ) {
    this.authn = makeJsonApiClient(kc, AuthenticationV1Api, 8);
    this.authz = makeJsonApiClient(kc, AuthorizationV1Api, 8);
  }

  async reviewToken(token: string): Promise<TokenReviewResult> {
    const spec: Record<string, unknown> = { token };
    if (this.audiences.length > 0) spec.audiences = [...this.audiences];
    const r = await this.authn.createTokenReview({ body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec } });
    if ("error" in r) return { kind: "failed", reason: `TokenReview failed: ${r.error}` };
    if (r.status < 200 || r.status > 299) return { kind: "failed", reason: answerError("TokenReview", r) };
    const status = parse(r.text)?.status;
    if (status?.authenticated === true && typeof status.user?.username === "string" && status.user.username !== "") {
      const groups = Array.isArray(status.user.groups) ? status.user.groups.filter((g: unknown): g is string => typeof g === "string") : [];
      return { kind: "authenticated", username: status.user.username, uid: typeof status.user.uid === "string" ? status.user.uid : "", groups };
    }
    if (status === undefined || status === null || typeof status !== "object") return { kind: "failed", reason: "TokenReview answer has no status" };
    return { kind: "rejected", reason: typeof status.error === "string" && status.error !== "" ? status.error : "the token is not valid" };
  }

  async reviewAccess(q: AccessQuestion): Promise<AccessReviewResult> {
    const resourceAttributes: Record<string, string> = { group: NODELEASES_GROUP, resource: NODELEASES_RESOURCE, verb: q.verb };
    if (q.name !== "") resourceAttributes.name = q.name;
    const body = {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SubjectAccessReview",
      spec: { user: q.user, groups: [...q.groups], uid: q.uid || undefined, resourceAttributes },
    };
    const r = await this.authz.createSubjectAccessReview({ body });
    if ("error" in r) return { kind: "failed", reason: `SubjectAccessReview failed: ${r.error}` };
    if (r.status < 200 || r.status > 299) return { kind: "failed", reason: answerError("SubjectAccessReview", r) };
    const status = parse(r.text)?.status;
    if (status === undefined || status === null || typeof status !== "object") return { kind: "failed", reason: "SubjectAccessReview answer has no status" };
    const reason = typeof status.reason === "string" ? status.reason : "";
    if (status.allowed === true) return { kind: "allowed", reason };
    if (typeof status.evaluationError === "string" && status.evaluationError !== "" && status.denied !== true) {
      return { kind: "failed", reason: `SubjectAccessReview could not decide: ${status.evaluationError}` };
    }
    return { kind: "denied", reason };
  }
}
