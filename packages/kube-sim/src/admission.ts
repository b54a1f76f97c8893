// Validating admission webhooks, called the way kube-apiserver's ValidatingAdmissionWebhook plugin
// calls them (k8s.io/apiserver/pkg/admission/plugin/webhook/validating/dispatcher.go): every
// matching webhook of every ValidatingWebhookConfiguration, in parallel, with an admission.k8s.io/v1
// AdmissionReview POSTed over HTTPS (caBundle-verified), timeoutSeconds, failurePolicy, and the
// real error bodies. Every call is recorded in `calls` for tests.
import { randomUUID } from "node:crypto";
import { request as httpsRequest } from "node:https";
import { failure, forbidden, KubeError, notFound } from "./errors.js";
import { isPlainObject } from "./json.js";
import { matchingWebhooks, type AdmissionAttributes, type GroupVersionKind, type GroupVersionResource } from "./admission-match.js";
import type { UserInfo } from "./rbac.js";
import type { Entry, Store } from "./store.js";
import { splitApiVersion, type KubeObject } from "./types.js";
import { ADMISSION_GROUP, parseConfiguration, type ServiceReference, type ValidatingWebhook } from "./webhook-config.js";

export interface AdmissionOptions {
  /**
   * Where a `clientConfig.service` webhook listens: return a base URL such as
   * `https://127.0.0.1:8443` (the service's `path` is appended), or undefined to use
   * `https://<name>.<namespace>.svc:<port>` (kube-sim has no cluster DNS, so that rarely resolves).
   * The TLS server name is `<name>.<namespace>.svc` either way, as kube-apiserver sends it.
   */
  webhookServiceResolver?: (svc: ServiceReference) => string | undefined;
  /** The same as a map: `"namespace/name"` or `"namespace/name:port"` → base URL. Checked after the resolver. */
  webhookServices?: Record<string, string>;
}

/** One webhook call, as recorded in `sim.admission.calls`. */
export interface AdmissionCall {
  uid: string;
  configuration: string;
  webhook: string;
  operation: string;
  resource: GroupVersionResource;
  subResource: string;
  namespace: string;
  name: string;
  userInfo: UserInfo;
  /** The URL as kube-apiserver names it in errors (service DNS name for `service` webhooks). */
  url: string;
  /** allowed: the webhook said yes; denied: it said no; error: the call failed or the answer was unusable. */
  outcome: "allowed" | "denied" | "error";
  failurePolicy: "Fail" | "Ignore";
  /** An error under failurePolicy Ignore: the request went on. */
  ignored: boolean;
  /** Denials and Fail errors: the status code and message the client got; Ignore errors: the error. */
  code?: number;
  message?: string;
  warnings: string[];
  durationMs: number;
  /** The AdmissionReview request that was sent. */
  request: Record<string, unknown>;
}

/** The request attributes plus what the AdmissionReview carries besides them. */
export interface AdmissionRequest extends AdmissionAttributes {
  userInfo: UserInfo;
  dryRun: boolean;
  /** CreateOptions / UpdateOptions / DeleteOptions as sent by the client. */
  options?: Record<string, unknown>;
  /** The kind and resource the client asked for (before Equivalent matching). */
  requestKind?: GroupVersionKind;
}

const MAX_CALLS = 10_000;
const MAX_RESPONSE_BYTES = 3 * 1024 * 1024;

export class Admission {
  /** Every webhook call (the last 10,000), oldest first. */
  readonly calls: AdmissionCall[] = [];
  /** Called after each webhook call. */
  onCall?: (c: AdmissionCall) => void;
  private readonly parsed = new WeakMap<Entry, ValidatingWebhook[]>();

  constructor(
    private readonly store: Store,
    private readonly opts: AdmissionOptions = {},
  ) {}

  /** The calls that refused a request (denials, and errors under failurePolicy Fail). */
  denials(): AdmissionCall[] {
    return this.calls.filter((c) => c.outcome !== "allowed" && !c.ignored);
  }

  clear(): void {
    this.calls.length = 0;
  }

  /** Whether any ValidatingWebhookConfiguration exists (else writes skip admission entirely). */
  active(): boolean {
    const t = this.store.registry.get(ADMISSION_GROUP, "validatingwebhookconfigurations");
    return t !== undefined && this.store.state(t).objects.size > 0;
  }

  /** Every webhook of every configuration, configurations in name order. */
  webhooks(): ValidatingWebhook[] {
    const t = this.store.registry.get(ADMISSION_GROUP, "validatingwebhookconfigurations");
    if (!t) return [];
    const out: ValidatingWebhook[] = [];
    for (const e of this.store.entries(t)) {
      let hooks = this.parsed.get(e);
      if (!hooks) this.parsed.set(e, (hooks = parseConfiguration(e.obj)));
      out.push(...hooks);
    }
    return out;
  }

  /**
   * Calls every matching webhook: the warnings of all of them, and the error the client gets when
   * one refuses (the first in webhook order), else the request may proceed.
   */
  async validate(req: AdmissionRequest): Promise<{ warnings: string[]; error?: KubeError }> {
    const nsType = this.store.registry.get("", "namespaces")!;
    const { matches, namespaceNotFound, conditionError } = matchingWebhooks(this.webhooks(), req, (n) => {
      const e = this.store.getEntry(nsType, undefined, n);
      return e ? (e.obj.metadata?.labels ?? {}) : undefined;
    });
    if (namespaceNotFound) return { warnings: [], error: notFound(nsType, req.namespace) };
    // As kube-apiserver: a matchCondition that cannot be evaluated under Fail refuses the request.
    if (conditionError)
      return { warnings: [], error: forbidden({ group: req.resource.group, plural: req.resource.resource, kind: req.kind.kind }, req.name, conditionError.message) };
    if (matches.length === 0) return { warnings: [] };
    const results = await Promise.all(matches.map((m) => this.call(m.webhook, m.version, req)));
    return { warnings: results.flatMap((r) => r.warnings), error: results.find((r) => r.error)?.error };
  }

  private target(w: ValidatingWebhook): { url: string; connect: string; servername?: string } {
    if (w.url) return { url: w.url, connect: w.url };
    const s = w.service!;
    const host = `${s.name}.${s.namespace}.svc`;
    const path = s.path ?? "";
    const url = `https://${host}:${s.port}${path}`;
    const base =
      this.opts.webhookServiceResolver?.(s) ??
      this.opts.webhookServices?.[`${s.namespace}/${s.name}:${s.port}`] ??
      this.opts.webhookServices?.[`${s.namespace}/${s.name}`];
    return { url, connect: base ? `${base.replace(/\/+$/, "")}${path}` : url, servername: host };
  }

  private async call(w: ValidatingWebhook, version: string, req: AdmissionRequest): Promise<{ warnings: string[]; error?: KubeError }> {
    const started = performance.now();
    const uid = randomUUID();
    const resource = { ...req.resource, version };
    const kind = { ...req.kind, version: req.resource.version === version ? req.kind.version : version };
    const asVersion = (o: KubeObject | undefined) => {
      if (!o) return null;
      if (version === req.resource.version || typeof o.apiVersion !== "string") return o;
      return { ...o, apiVersion: kind.group ? `${kind.group}/${version}` : version };
    };
    const request: Record<string, unknown> = {
      uid,
      kind,
      resource,
      ...(req.subresource ? { subResource: req.subresource } : {}),
      requestKind: req.requestKind ?? req.kind,
      requestResource: req.resource,
      ...(req.subresource ? { requestSubResource: req.subresource } : {}),
      ...(req.name ? { name: req.name } : {}),
      ...(req.namespace ? { namespace: req.namespace } : {}),
      operation: req.operation,
      userInfo: reviewUser(req.userInfo),
      object: asVersion(req.object),
      oldObject: asVersion(req.oldObject),
      dryRun: req.dryRun,
      ...(req.options ? { options: req.options } : {}),
    };
    const { url, connect, servername } = this.target(w);
    const timeoutParam = `timeout=${w.timeoutSeconds}s`;
    const withTimeout = (u: string) => `${u}${u.includes("?") ? "&" : "?"}${timeoutParam}`;
    const record = (c: Partial<AdmissionCall> & Pick<AdmissionCall, "outcome">) => {
      const call: AdmissionCall = {
        uid,
        configuration: w.configuration,
        webhook: w.name,
        operation: req.operation,
        resource,
        subResource: req.subresource,
        namespace: req.namespace,
        name: req.name,
        userInfo: req.userInfo,
        url: withTimeout(url),
        failurePolicy: w.failurePolicy,
        ignored: false,
        warnings: [],
        durationMs: performance.now() - started,
        request,
        ...c,
      };
      this.calls.push(call);
      if (this.calls.length > MAX_CALLS) this.calls.splice(0, this.calls.length - MAX_CALLS);
      try {
        this.onCall?.(call);
      } catch {
        // a test's listener must not break the request
      }
    };
    const callError = (reason: string): { warnings: string[]; error?: KubeError } => {
      const text = `failed calling webhook "${w.name}": ${reason}`;
      if (w.failurePolicy === "Ignore") {
        record({ outcome: "error", ignored: true, message: text });
        return { warnings: [] };
      }
      const err = new KubeError(failure(500, `Internal error occurred: ${text}`, "InternalError", { causes: [{ message: text }] }));
      record({ outcome: "error", code: 500, message: err.status.message });
      return { warnings: [], error: err };
    };

    let res: { status: number; body: Buffer };
    try {
      res = await post(new URL(withTimeout(connect)), Buffer.from(JSON.stringify({ kind: "AdmissionReview", apiVersion: "admission.k8s.io/v1", request })), {
        ca: w.caBundle,
        servername,
        timeoutMs: w.timeoutSeconds * 1000,
      });
    } catch (e) {
      return callError(`failed to call webhook: Post "${withTimeout(url)}": ${goNetError(e, connect)}`);
    }
    if (res.status < 200 || res.status > 299) return callError(`failed to call webhook: ${httpErrorText(res.status, res.body)}`);
    let review: unknown;
    try {
      review = JSON.parse(res.body.toString("utf8"));
    } catch (e) {
      return callError(`failed to call webhook: couldn't get version/kind; json parse error: ${(e as Error).message}`);
    }
    const invalid = (why: string) => callError(`received invalid webhook response: ${why}`);
    if (!isPlainObject(review)) return invalid("webhook response was absent");
    const response = review.response;
    if (!isPlainObject(response)) return invalid("webhook response was absent");
    if (response.uid !== uid) return invalid(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(String(response.uid ?? ""))}`);
    if (review.apiVersion !== "admission.k8s.io/v1" || review.kind !== "AdmissionReview") {
      const { group, version } = splitApiVersion(String(review.apiVersion ?? ""));
      const got = `${group ? `${group}/` : ""}${version}, Kind=${String(review.kind ?? "")}`;
      return invalid(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${got}`);
    }
    const warnings = Array.isArray(response.warnings) ? response.warnings.filter((x): x is string => typeof x === "string") : [];
    if (response.allowed === true) {
      record({ outcome: "allowed", warnings });
      return { warnings };
    }
    const err = denial(w.name, isPlainObject(response.status) ? response.status : undefined);
    record({ outcome: "denied", code: err.status.code, message: err.status.message, warnings });
    return { warnings, error: err };
  }
}

/** webhookerrors.ToStatusErr: the webhook's Status, code ≥ 400 (default 400), message prefixed. */
export function denial(webhook: string, st: Record<string, unknown> | undefined): KubeError {
  const by = `admission webhook ${JSON.stringify(webhook)} denied the request`;
  const s = st ?? {};
  const code = typeof s.code === "number" && s.code >= 400 ? s.code : 400;
  const message = typeof s.message === "string" && s.message ? `${by}: ${s.message}` : typeof s.reason === "string" && s.reason ? `${by}: ${s.reason}` : `${by} without explanation`;
  const body = failure(code, message, typeof s.reason === "string" && s.reason ? s.reason : undefined, isPlainObject(s.details) ? (s.details as object) : undefined);
  if (isPlainObject(s.metadata)) body.metadata = s.metadata;
  return new KubeError(body);
}

function reviewUser(u: UserInfo): Record<string, unknown> {
  return {
    username: u.username,
    ...(u.uid ? { uid: u.uid } : {}),
    ...(u.groups.length ? { groups: u.groups } : {}),
    ...(u.extra && Object.keys(u.extra).length ? { extra: u.extra } : {}),
  };
}

/** `Warning` header values for webhook warnings: `299 - "<text>"`, quoted like Go's warning writer. */
export function warningHeaders(warnings: string[]): Record<string, string[]> {
  if (warnings.length === 0) return {};
  const quote = (t: string) => {
    // Control characters cannot travel in a header; non-ASCII goes as its UTF-8 bytes, as Go sends it.
    const clean = t.replace(/[\u0000-\u0008\u000a-\u001f\u007f]/g, " ").replace(/["\\]/g, (c) => `\\${c}`);
    return `299 - "${Buffer.from(clean, "utf8").toString("latin1")}"`;
  };
  return { Warning: warnings.map(quote) };
}

function post(url: URL, body: Buffer, o: { ca?: Buffer; servername?: string; timeoutMs: number }): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (err: unknown, v?: { status: number; body: Buffer }) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (err) reject(err);
      else resolve(v!);
    };
    const req = httpsRequest(
      url,
      {
        method: "POST",
        agent: false,
        ...(o.ca ? { ca: o.ca } : {}),
        ...(o.servername ? { servername: o.servername } : {}),
        headers: { "Content-Type": "application/json", Accept: "application/json, */*", "Content-Length": body.length, "User-Agent": "kube-apiserver-admission" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (c: Buffer) => {
          size += c.length;
          if (size > MAX_RESPONSE_BYTES) {
            req.destroy(new Error(`response body larger than ${MAX_RESPONSE_BYTES} bytes`));
            return;
          }
          chunks.push(c);
        });
        res.on("end", () => finish(undefined, { status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on("error", (e) => finish(e));
        res.on("aborted", () => finish(new Error("unexpected EOF")));
      },
    );
    const timer = setTimeout(() => {
      const e = new Error("context deadline exceeded") as Error & { code: string };
      e.code = "DEADLINE";
      req.destroy(e);
      finish(e);
    }, o.timeoutMs);
    req.on("error", (e) => finish(e));
    req.end(body);
  });
}

/** Node's network and TLS errors in the words of Go's net/http, as they appear in upstream messages. */
function goNetError(e: unknown, connect: string): string {
  const err = e as NodeJS.ErrnoException & { reason?: string };
  let hostPort = "";
  try {
    const u = new URL(connect);
    hostPort = `${u.hostname.replace(/^\[|\]$/g, "")}:${u.port || "443"}`;
  } catch {
    // keep empty
  }
  switch (err?.code) {
    case "DEADLINE":
      return "context deadline exceeded";
    case "ECONNREFUSED":
      return `dial tcp ${hostPort}: connect: connection refused`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `dial tcp: lookup ${hostPort.replace(/:\d+$/, "")}: no such host`;
    case "ECONNRESET":
      return "read: connection reset by peer";
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case "CERT_HAS_EXPIRED":
      return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
    case "ERR_TLS_CERT_ALTNAME_INVALID":
      return `tls: failed to verify certificate: x509: ${err.reason ?? err.message}`;
    default:
      return err?.message ?? String(e);
  }
}

/** client-go's text for a non-2xx answer that is not a Status. */
function httpErrorText(status: number, body: Buffer): string {
  const text = body.toString("utf8").trim().slice(0, 256);
  try {
    const st = JSON.parse(text);
    if (isPlainObject(st) && st.kind === "Status" && typeof st.message === "string") return st.message;
  } catch {
    // not a Status
  }
  switch (status) {
    case 400:
      return "the server rejected our request for an unknown reason";
    case 401:
      return "Unauthorized";
    case 403:
      return "the server does not allow access to the requested resource";
    case 404:
      return "the server could not find the requested resource";
    case 405:
      return "the server does not allow this method on the requested resource";
    case 429:
      return "the server has received too many requests and has asked us to try again later";
    case 503:
      return "the server is currently unable to handle the request";
    case 504:
      return "the server was unable to return a response in the time allotted, but may still be processing the request";
    default:
      return `an error on the server (${JSON.stringify(text || "unknown")}) has prevented the request from succeeding`;
  }
}
