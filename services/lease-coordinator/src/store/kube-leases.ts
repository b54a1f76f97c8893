// The only place the coordinator talks to the API server: compare-and-swap Lease writes, a direct
// re-read after a conflict, and creating its namespace. Errors are classified, never thrown raw.
import type { LeaseState } from "@lockstep/contracts";
import type { KubeConfigLike } from "@lockstep/kube";
import type { HttpResult } from "./kube-http.js";
import { CoordinationV1Api, CoreV1Api, makeJsonApiClient, type LeaseJsonClient, type NamespaceJsonClient } from "./lease-json-client.js";
import { leaseStateFromObject, type LeaseWrite } from "@lockstep/lease-policy";

export type WriteOutcome =
  | { ok: true; state: LeaseState }
  | { ok: false; kind: "conflict"; reason: string }
  | { ok: false; kind: "transient"; reason: string }
  | { ok: false; kind: "rejected"; reason: string };

export interface LeaseApi {
  write(w: LeaseWrite): Promise<WriteOutcome>;
  /** Direct read (only after a conflict): the Lease, null when absent, or an error outcome. */
  read(namespace: string, name: string): Promise<LeaseState | null | { error: string }>;
}

/** "HTTP 409 Conflict" from a Kubernetes Status body, or the transport error. */
function describeResult(r: HttpResult): string {
  if ("error" in r) return r.error.split("\n")[0] ?? "unknown error";
  let reason: unknown;
  try {
    reason = (JSON.parse(r.text) as { reason?: unknown } | null)?.reason;
  } catch {
    // not a Status body
  }
  return `HTTP ${r.status}${typeof reason === "string" && reason ? ` ${reason}` : ""}`;
}

const success = (r: HttpResult): r is { status: number; text: string } => "status" in r && r.status >= 200 && r.status < 300;
const status = (r: HttpResult): number | undefined => ("status" in r ? r.status : undefined);

/** A 2xx body as LeaseState; a body that is not JSON is an error like a broken connection. */
function parsed(r: { text: string }): { state: LeaseState } | { error: string } {
  try {
    return { state: leaseStateFromObject(JSON.parse(r.text)) };
  } catch (err) {
    return { error: `unreadable API response: ${err instanceof Error ? err.message : String(err)}` };
  }
}

export class KubeLeaseApi implements LeaseApi {
  private readonly coord: LeaseJsonClient;
  private readonly core: NamespaceJsonClient;

  constructor(kc: KubeConfigLike) {
    this.coord = makeJsonApiClient(kc, CoordinationV1Api);
    this.core = makeJsonApiClient(kc, CoreV1Api);
  }

  async write(w: LeaseWrite): Promise<WriteOutcome> {
    const r =
      w.expectedResourceVersion === null
        ? await this.coord.createNamespacedLease({ namespace: w.namespace, body: w.body })
        : await this.coord.replaceNamespacedLease({
            name: w.name,
            namespace: w.namespace,
            body: { ...w.body, metadata: { ...w.body.metadata, resourceVersion: w.expectedResourceVersion } },
          });
    if (success(r)) {
      const p = parsed(r);
      return "state" in p ? { ok: true, state: p.state } : { ok: false, kind: "transient", reason: p.error };
    }
    // A replace of a Lease deleted meanwhile is a lost race like any other.
    const code = status(r);
    if (code === 409 || (w.expectedResourceVersion !== null && code === 404)) return { ok: false, kind: "conflict", reason: describeResult(r) };
    if (code !== undefined && code >= 400 && code < 500 && code !== 429) return { ok: false, kind: "rejected", reason: describeResult(r) };
    return { ok: false, kind: "transient", reason: describeResult(r) };
  }

  async read(namespace: string, name: string): Promise<LeaseState | null | { error: string }> {
    const r = await this.coord.readNamespacedLease({ name, namespace });
    if (success(r)) {
      const p = parsed(r);
      return "state" in p ? p.state : p;
    }
    if (status(r) === 404) return null;
    return { error: describeResult(r) };
  }

  /** Creates the namespace when missing; false (with the reason) when that is not possible. */
  async ensureNamespace(name: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    const read = await this.core.readNamespace({ name });
    if (success(read)) return { ok: true };
    if (status(read) !== 404) return { ok: false, reason: describeResult(read) };
    // 409: created meanwhile (another replica).
    const created = await this.core.createNamespace({ body: { metadata: { name } } });
    return success(created) || status(created) === 409 ? { ok: true } : { ok: false, reason: describeResult(created) };
  }
}
