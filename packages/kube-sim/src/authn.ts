// Authentication: static users (kube-apiserver's --token-auth-file) and ServiceAccount tokens from
// the TokenRequest API. SA tokens are JWTs signed with a key made at start (HS256, so they stay
// unguessable and need no table); they carry the real claims and stop working when they expire or
// when the ServiceAccount (or the Pod/Secret they are bound to) is gone or replaced.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from "node:crypto";
import { timestamp } from "./meta.js";
import { serviceAccountUsername, MASTERS_GROUP, type UserInfo } from "./rbac.js";

/** A static user: requests with `Authorization: Bearer <token>` act as this user. */
export interface StaticUser {
  token: string;
  name: string;
  uid?: string;
  groups?: string[];
}

/** The user the single `token` option maps to. */
export const ADMIN_USERNAME = "kube-sim-admin";
export const AUTHENTICATED_GROUP = "system:authenticated";
/** The service-account issuer and the API server's own audience (kubeadm's default). */
export const SERVICE_ACCOUNT_ISSUER = "https://kubernetes.default.svc.cluster.local";
export const API_AUDIENCES = [SERVICE_ACCOUNT_ISSUER];
export const DEFAULT_TOKEN_SECONDS = 3600;
export const MIN_TOKEN_SECONDS = 600;
export const MAX_TOKEN_SECONDS = 2 ** 32;

export interface BoundObject {
  kind: "Pod" | "Secret";
  name: string;
  uid: string;
}

/** The claims of a kube-sim ServiceAccount token (the shape of a real bound token). */
export interface ServiceAccountClaims {
  aud: string[];
  exp: number;
  iat: number;
  nbf: number;
  iss: string;
  jti: string;
  sub: string;
  "kubernetes.io": {
    namespace: string;
    serviceaccount: { name: string; uid: string };
    pod?: { name: string; uid: string };
    secret?: { name: string; uid: string };
  };
}

export type AuthResult = { authenticated: true; user: UserInfo; audiences: string[] } | { authenticated: false; error: string };

/** Reads the uid of an object a token is bound to; undefined when it is gone or being deleted. */
export type UidLookup = (kind: "ServiceAccount" | "Pod" | "Secret", namespace: string, name: string) => string | undefined;

/** Adds system:authenticated, as the API server does for every authenticated user. */
export function withAuthenticatedGroup(groups: string[]): string[] {
  return groups.includes(AUTHENTICATED_GROUP) ? [...groups] : [...groups, AUTHENTICATED_GROUP];
}

/** The users from the options: `users` as given, plus the `token` option as the admin user. */
export function staticUsers(token: string | undefined, users: StaticUser[] = []): StaticUser[] {
  const all = token === undefined ? [...users] : [{ token, name: ADMIN_USERNAME, groups: [MASTERS_GROUP, AUTHENTICATED_GROUP] }, ...users];
  const seen = new Map<string, string>();
  for (const u of all) {
    if (typeof u.token !== "string" || u.token === "") throw new Error(`kube-sim: user ${JSON.stringify(u.name)} has an empty token`);
    if (typeof u.name !== "string" || u.name === "") throw new Error("kube-sim: every user needs a name");
    const other = seen.get(u.token);
    if (other !== undefined) throw new Error(`kube-sim: users ${JSON.stringify(other)} and ${JSON.stringify(u.name)} share a token`);
    seen.set(u.token, u.name);
  }
  return all;
}

/**
 * Users from kube-apiserver's --token-auth-file format: CSV lines `token,user,uid[,"group1,group2"]`
 * (uid may be empty). Blank lines and lines starting with `#` are skipped.
 */
export function parseTokenAuthFile(text: string, source = "token file"): StaticUser[] {
  const users: StaticUser[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (line.trim() === "" || line.trimStart().startsWith("#")) return;
    const record = parseCsvLine(line, `${source} line ${i + 1}`);
    if (record.length < 3)
      throw new Error(`${source} line ${i + 1} must have at least 3 columns (token, user name, user uid), found ${record.length}`);
    const [token, name, uid, groups] = record as [string, string, string, string | undefined];
    const u: StaticUser = { token, name };
    if (uid) u.uid = uid;
    if (groups) u.groups = groups.split(",");
    users.push(u);
  });
  return users;
}

function parseCsvLine(line: string, where: string): string[] {
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = "";
    if (line[i] === '"') {
      i++;
      for (;;) {
        if (i >= line.length) throw new Error(`${where}: unterminated quoted field`);
        if (line[i] === '"') {
          if (line[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += line[i++];
      }
      if (i < line.length && line[i] !== ",") throw new Error(`${where}: extraneous text after a quoted field`);
    } else {
      const end = line.indexOf(",", i);
      field = end < 0 ? line.slice(i) : line.slice(i, end);
      i = end < 0 ? line.length : end;
    }
    out.push(field);
    if (i >= line.length) return out;
    i++; // the comma
  }
}

/** The token of an `Authorization: Bearer …` header (scheme case-insensitive), if any. */
export function bearerToken(header: string | undefined): string | undefined {
  const m = /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? "");
  return m ? m[1] : undefined;
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString("base64url");

export function signJwt(claims: ServiceAccountClaims, key: Buffer, kid: string): string {
  const head = `${b64({ alg: "HS256", kid, typ: "JWT" })}.${b64(claims)}`;
  return `${head}.${createHmac("sha256", key).update(head).digest("base64url")}`;
}

/** The claims of a token this key signed, or undefined for anything else. */
export function verifyJwt(token: string, key: Buffer): ServiceAccountClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const want = createHmac("sha256", key).update(`${parts[0]}.${parts[1]}`).digest();
  const got = Buffer.from(parts[2]!, "base64url");
  if (got.length !== want.length || !timingSafeEqual(got, want)) return undefined;
  try {
    const c = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8")) as ServiceAccountClaims;
    return typeof c.exp === "number" && Array.isArray(c.aud) && c["kubernetes.io"]?.serviceaccount ? c : undefined;
  } catch {
    return undefined;
  }
}

const goQuote = (xs: string[]) => `[${xs.map((x) => JSON.stringify(x)).join(" ")}]`;

export class Authenticator {
  private readonly key = randomBytes(32);
  private readonly kid = randomUUID();
  private readonly users = new Map<string, UserInfo>();
  /** Whether requests need a known token (some token is configured). */
  readonly required: boolean;

  constructor(
    users: StaticUser[],
    private readonly lookup: UidLookup,
    private readonly clock: () => Date,
  ) {
    for (const u of users) {
      const info: UserInfo = { username: u.name, groups: withAuthenticatedGroup(u.groups ?? []) };
      if (u.uid) info.uid = u.uid;
      this.users.set(u.token, info);
    }
    this.required = users.length > 0;
  }

  /** Mints a token for a ServiceAccount (the TokenRequest API); checks are the caller's. */
  issue(
    sa: { namespace: string; name: string; uid: string },
    opts: { audiences: string[]; expirationSeconds: number; bound?: BoundObject },
  ): { token: string; expirationTimestamp: string } {
    const now = Math.floor(this.clock().getTime() / 1000);
    const k8s: ServiceAccountClaims["kubernetes.io"] = { namespace: sa.namespace, serviceaccount: { name: sa.name, uid: sa.uid } };
    if (opts.bound?.kind === "Pod") k8s.pod = { name: opts.bound.name, uid: opts.bound.uid };
    if (opts.bound?.kind === "Secret") k8s.secret = { name: opts.bound.name, uid: opts.bound.uid };
    const claims: ServiceAccountClaims = {
      aud: opts.audiences,
      exp: now + opts.expirationSeconds,
      iat: now,
      nbf: now,
      iss: SERVICE_ACCOUNT_ISSUER,
      jti: randomUUID(),
      sub: serviceAccountUsername(sa.namespace, sa.name),
      "kubernetes.io": k8s,
    };
    return { token: signJwt(claims, this.key, this.kid), expirationTimestamp: timestamp(new Date(claims.exp * 1000)) };
  }

  /**
   * Authenticates a token for the given audiences (the API server's own when empty), as a
   * TokenReview does. Static users are audience-agnostic: valid only for the API audiences.
   */
  authenticate(token: string, audiences: string[] = []): AuthResult {
    const target = audiences.length ? audiences : API_AUDIENCES;
    const fail = (why?: string): AuthResult => ({ authenticated: false, error: why ? `[invalid bearer token, ${why}]` : "invalid bearer token" });
    const user = this.users.get(token);
    if (user) {
      const auds = API_AUDIENCES.filter((a) => target.includes(a));
      return auds.length ? { authenticated: true, user: { ...user, groups: [...user.groups] }, audiences: auds } : fail();
    }
    const c = verifyJwt(token, this.key);
    if (!c) return fail();
    const auds = c.aud.filter((a) => target.includes(a));
    if (auds.length === 0) return fail(`token audiences ${goQuote(c.aud)} is invalid for the target audiences ${goQuote(target)}`);
    if (this.clock().getTime() / 1000 >= c.exp) return fail("service account token has expired");
    const k = c["kubernetes.io"];
    const saUid = this.lookup("ServiceAccount", k.namespace, k.serviceaccount.name);
    // kube-apiserver's getter falls back to a GET, whose NotFound names the resource (plural).
    if (saUid === undefined) return fail(`serviceaccounts ${JSON.stringify(k.serviceaccount.name)} not found`);
    if (saUid !== k.serviceaccount.uid) return fail(`service account UID (${saUid}) does not match claim (${k.serviceaccount.uid})`);
    const extra: Record<string, string[]> = { "authentication.kubernetes.io/credential-id": [`JTI=${c.jti}`] };
    for (const [kind, ref] of [
      ["Pod", k.pod],
      ["Secret", k.secret],
    ] as const) {
      if (!ref) continue;
      const uid = this.lookup(kind, k.namespace, ref.name);
      if (uid === undefined) return fail(`${kind.toLowerCase()} ${JSON.stringify(ref.name)} not found`);
      if (uid !== ref.uid) return fail(`${kind.toLowerCase()} UID (${uid}) does not match claim (${ref.uid})`);
      if (kind === "Pod") Object.assign(extra, { "authentication.kubernetes.io/pod-name": [ref.name], "authentication.kubernetes.io/pod-uid": [ref.uid] });
    }
    return {
      authenticated: true,
      user: {
        username: c.sub,
        uid: k.serviceaccount.uid,
        groups: ["system:serviceaccounts", `system:serviceaccounts:${k.namespace}`, AUTHENTICATED_GROUP],
        extra,
      },
      audiences: auds,
    };
  }
}
