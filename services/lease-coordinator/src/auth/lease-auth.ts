// Authentication and authorization of LeaseService callers. Methods are configured once
// (LEASE_AUTH): bearer tokens verified with TokenReview, client certificates verified by the TLS
// layer, or `none` for local and test runs. Rights are Kubernetes RBAC on Lockstep's own resource
// (`nodeleases.lockstep.io`), asked with SubjectAccessReview, so admins grant them with ordinary
// (Cluster)Roles. Answers are cached briefly; a review that fails denies.
import { createHash } from "node:crypto";
import type { Logger } from "pino";
import { ANONYMOUS, callerFromCertificate, type Caller } from "./caller.js";
import type { AccessReviewResult, Reviewer, TokenReviewResult } from "./kube-reviews.js";
import { ReviewCache } from "./review-cache.js";

export type AuthMode = "none" | { token: boolean; mtls: boolean };

/** The verbs on `nodeleases.lockstep.io` the LeaseService asks about. */
export type LeaseVerb = "get" | "list" | "watch" | "acquire" | "release-any" | "force";

/** What the transport tells about a call: its `authorization` metadata and verified client certificate. */
export interface CallCredentials {
  authorization?: string;
  certificateSubject?: { CN?: string | string[]; O?: string | string[] };
}

export class AuthError extends Error {
  constructor(
    readonly kind: "unauthenticated" | "forbidden",
    message: string,
  ) {
    super(message);
    this.name = "AuthError";
  }
}

export interface LeaseAuthOptions {
  mode: AuthMode;
  /** Needed unless mode is "none". */
  reviewer?: Reviewer;
  cacheTtlMs?: number;
  logger: Logger;
  clock?: () => number;
}

const BEARER = /^Bearer\s+(\S+)\s*$/i;

export class LeaseAuth {
  private readonly tokens: ReviewCache<Caller | string>;
  private readonly access: ReviewCache<boolean>;
  private readonly reviewer: Reviewer | undefined;

  constructor(private readonly o: LeaseAuthOptions) {
    const cache = { ttlMs: o.cacheTtlMs ?? 10_000, clock: o.clock };
    this.tokens = new ReviewCache(cache);
    this.access = new ReviewCache(cache);
    if (o.mode !== "none" && !o.reviewer) throw new Error("LeaseAuth: a reviewer is needed unless the mode is none");
    this.reviewer = o.reviewer;
  }

  get enabled(): boolean {
    return this.o.mode !== "none";
  }

  /** Who is calling; throws AuthError("unauthenticated") when the credentials prove nobody. */
  async authenticate(creds: CallCredentials): Promise<Caller> {
    const mode = this.o.mode;
    if (mode === "none") return ANONYMOUS;
    // A token names a person or workload more precisely than the certificate of the machine it
    // calls from, so with both methods a token, when sent, decides.
    if (mode.token && creds.authorization !== undefined) {
      const m = BEARER.exec(creds.authorization);
      if (!m) throw new AuthError("unauthenticated", "the authorization metadata is not \"Bearer <token>\"");
      return this.fromToken(m[1]!);
    }
    if (mode.mtls && creds.certificateSubject !== undefined) {
      const caller = callerFromCertificate(creds.certificateSubject);
      if (caller) return caller;
    }
    const how = [mode.token ? "a bearer token (authorization: Bearer …; the lockstep CLI sends your kubeconfig's)" : "", mode.mtls ? "a client certificate" : ""].filter(Boolean).join(" or ");
    throw new AuthError("unauthenticated", `no credentials: the LeaseService needs ${how}`);
  }

  private async fromToken(token: string): Promise<Caller> {
    // Tokens are kept only as digests: the cache must not become a store of credentials.
    const key = createHash("sha256").update(token).digest("base64url");
    const cached = this.tokens.get(key);
    if (typeof cached === "string") throw new AuthError("unauthenticated", `the token was not accepted: ${cached}`);
    if (cached !== undefined) return cached;
    const r: TokenReviewResult = await this.reviewer!.reviewToken(token);
    if (r.kind === "failed") {
      this.o.logger.warn({ reason: r.reason }, "token review failed; refusing the call");
      throw new AuthError("unauthenticated", `the token could not be verified (${r.reason}); retry`);
    }
    if (r.kind === "rejected") {
      this.tokens.set(key, r.reason);
      throw new AuthError("unauthenticated", `the token was not accepted: ${r.reason}`);
    }
    const caller: Caller = { subject: r.username, groups: r.groups, uid: r.uid, method: "token" };
    this.tokens.set(key, caller);
    return caller;
  }

  /** Whether the caller may `verb` the node's lease (or all of them with node ""). */
  async allowed(caller: Caller, verb: LeaseVerb, node: string): Promise<boolean> {
    if (caller.method === "none") return true;
    const key = JSON.stringify([caller.subject, caller.uid, caller.groups, verb, node]);
    const cached = this.access.get(key);
    if (cached !== undefined) return cached;
    const r: AccessReviewResult = await this.reviewer!.reviewAccess({ user: caller.subject, groups: caller.groups, uid: caller.uid, verb, name: node });
    if (r.kind === "failed") {
      this.o.logger.warn({ subject: caller.subject, verb, node, reason: r.reason }, "access review failed; refusing the call");
      return false;
    }
    this.access.set(key, r.kind === "allowed");
    return r.kind === "allowed";
  }

  /** Throws AuthError("forbidden") with a message naming the missing right. */
  async require(caller: Caller, verb: LeaseVerb, node: string, what: string): Promise<void> {
    if (await this.allowed(caller, verb, node)) return;
    const target = node === "" ? "nodeleases.lockstep.io" : `nodeleases.lockstep.io "${node}"`;
    throw new AuthError("forbidden", `"${caller.subject}" may not ${what}: it needs the verb "${verb}" on ${target} (grant it with a (Cluster)Role, e.g. the chart's lease-user or lease-admin ClusterRole)`);
  }
}

/** Parses LEASE_AUTH: "none", or a comma list of "token" and "mtls". */
export function parseAuthMode(text: string): { mode: AuthMode } | { error: string } {
  const items = text.split(",").map((s) => s.trim()).filter((s) => s !== "");
  if (items.length === 1 && items[0] === "none") return { mode: "none" };
  const bad = items.filter((s) => s !== "token" && s !== "mtls");
  if (items.length === 0 || bad.length > 0) return { error: `"${text}" is not "none" or a comma list of "token" and "mtls"` };
  return { mode: { token: items.includes("token"), mtls: items.includes("mtls") } };
}
