// The only place the coordinator talks to the API server: compare-and-swap Lease writes, a direct
// re-read after a conflict, and creating its namespace. Errors are classified, never thrown raw.
import { CoordinationV1Api, CoreV1Api, V1MicroTime, type KubeConfig, type V1Lease } from "@kubernetes/client-node";
import type { LeaseState } from "@lockstep/contracts";
import { isConflict, isNotFound, statusCode, statusReason } from "@lockstep/kube";
import { makeKeepAliveApiClient } from "./keep-alive.js";
import { leaseStateFromObject, type LeaseBody, type LeaseWrite } from "../policy/index.js";

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

/** MicroTime must go out with six fractional digits (stack.md pitfall 22). */
function toApiBody(body: LeaseBody): V1Lease {
  const spec = { ...body.spec } as Record<string, unknown>;
  if (typeof body.spec.acquireTime === "string") spec.acquireTime = new V1MicroTime(body.spec.acquireTime);
  if (typeof body.spec.renewTime === "string") spec.renewTime = new V1MicroTime(body.spec.renewTime);
  return { ...body, spec } as V1Lease;
}

function describe(err: unknown): string {
  const code = statusCode(err);
  const reason = statusReason(err);
  const message = err instanceof Error ? err.message.split("\n")[0] : String(err);
  return code !== undefined ? `HTTP ${code}${reason ? ` ${reason}` : ""}` : (message ?? "unknown error");
}

export class KubeLeaseApi implements LeaseApi {
  private readonly coord: CoordinationV1Api;
  private readonly core: CoreV1Api;

  constructor(kc: KubeConfig) {
    this.coord = makeKeepAliveApiClient(kc, CoordinationV1Api);
    this.core = kc.makeApiClient(CoreV1Api);
  }

  async write(w: LeaseWrite): Promise<WriteOutcome> {
    const body = toApiBody(w.body);
    try {
      const result =
        w.expectedResourceVersion === null
          ? await this.coord.createNamespacedLease({ namespace: w.namespace, body })
          : await this.coord.replaceNamespacedLease({
              name: w.name,
              namespace: w.namespace,
              body: { ...body, metadata: { ...body.metadata, resourceVersion: w.expectedResourceVersion } },
            });
      return { ok: true, state: leaseStateFromObject(result) };
    } catch (err) {
      // A replace of a Lease deleted meanwhile is a lost race like any other.
      if (isConflict(err) || (w.expectedResourceVersion !== null && isNotFound(err))) return { ok: false, kind: "conflict", reason: describe(err) };
      const code = statusCode(err);
      if (code !== undefined && code >= 400 && code < 500 && code !== 429) return { ok: false, kind: "rejected", reason: describe(err) };
      return { ok: false, kind: "transient", reason: describe(err) };
    }
  }

  async read(namespace: string, name: string): Promise<LeaseState | null | { error: string }> {
    try {
      return leaseStateFromObject(await this.coord.readNamespacedLease({ name, namespace }));
    } catch (err) {
      if (isNotFound(err)) return null;
      return { error: describe(err) };
    }
  }

  /** Creates the namespace when missing; false (with the reason) when that is not possible. */
  async ensureNamespace(name: string): Promise<{ ok: true } | { ok: false; reason: string }> {
    try {
      await this.core.readNamespace({ name });
      return { ok: true };
    } catch (err) {
      if (!isNotFound(err)) return { ok: false, reason: describe(err) };
    }
    try {
      await this.core.createNamespace({ body: { metadata: { name } } });
      return { ok: true };
    } catch (err) {
      return isConflict(err) ? { ok: true } : { ok: false, reason: describe(err) };
    }
  }
}
