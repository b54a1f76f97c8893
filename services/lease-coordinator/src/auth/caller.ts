// Who is calling the LeaseService, and which holder names that caller may use. Pure.
//
// A holder name is derived from the authenticated subject: the subject itself or the subject with
// a suffix ("system:serviceaccount:ns:sa/drain-42"). A caller can therefore never hold, renew or
// release a lease under another subject's name, whatever it types.

/** How the caller proved who it is. */
export type AuthMethod = "token" | "mtls" | "none";

export interface Caller {
  /** The authenticated user name (TokenReview username, certificate CN); "" with auth `none`. */
  subject: string;
  groups: readonly string[];
  uid: string;
  method: AuthMethod;
}

/** The caller of a deployment that runs with LEASE_AUTH=none: it may name any holder. */
export const ANONYMOUS: Caller = Object.freeze({ subject: "", groups: Object.freeze([]), uid: "", method: "none" });

export const HOLDER_SUFFIX_SEPARATOR = "/";

/** True when `holder` is the caller's own: its subject, or its subject followed by "/suffix". */
export function ownsHolder(caller: Caller, holder: string): boolean {
  if (caller.method === "none") return true;
  return holder === caller.subject || (holder.startsWith(caller.subject + HOLDER_SUFFIX_SEPARATOR) && holder.length > caller.subject.length + 1);
}

export type HolderResult = { ok: true; holder: string } | { ok: false; message: string };

/**
 * The holder a request acts as: empty means the caller's subject; anything else must be the
 * caller's own (see ownsHolder). With auth `none` the requested name is taken as it is.
 */
export function holderFor(caller: Caller, requested: string): HolderResult {
  if (caller.method === "none") return { ok: true, holder: requested };
  if (requested === "") return { ok: true, holder: caller.subject };
  if (ownsHolder(caller, requested)) return { ok: true, holder: requested };
  return {
    ok: false,
    message: `holder "${requested}" is not yours: you are authenticated as "${caller.subject}"; use "${caller.subject}", "${caller.subject}${HOLDER_SUFFIX_SEPARATOR}<suffix>" or no holder at all`,
  };
}

/** The subject and groups of a client certificate, as the Kubernetes API server reads them (CN, O). */
export function callerFromCertificate(subject: { CN?: string | string[]; O?: string | string[] } | undefined): Caller | undefined {
  const first = (v: string | string[] | undefined) => (Array.isArray(v) ? v[0] : v);
  const cn = first(subject?.CN);
  if (!cn) return undefined;
  const o = subject?.O;
  const groups = (o === undefined ? [] : Array.isArray(o) ? o : [o]).filter((g) => g !== "");
  return { subject: cn, groups: [...groups, "system:authenticated"], uid: "", method: "mtls" };
}
