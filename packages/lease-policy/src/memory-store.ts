import type { LeaseState } from "@lockstep/contracts";
import { leaseStateFromObject, type LeaseBody, type LeaseWrite } from "./lease-record.js";

export type WriteResult = { ok: true; resourceVersion: string } | { ok: false; status: 409; reason: "Conflict" | "AlreadyExists" };

/**
 * An in-memory Lease store with the API server's write rules (create fails if present, replace
 * needs the current resourceVersion), for tests and simulations of the CAS loop. No I/O.
 */
export class MemoryLeaseStore {
  private readonly objects = new Map<string, LeaseBody>();
  /** Each object's LeaseState, decoded once per write (list is called for every decision). */
  private readonly states = new Map<string, LeaseState>();
  private revision = 0;
  reads = 0;
  writes = 0;

  private key(namespace: string, name: string): string {
    return `${namespace}/${name}`;
  }

  /** A consistent list, as LeaseStates (what the state plane would hold); shared, do not mutate. */
  list(): LeaseState[] {
    this.reads++;
    return [...this.states.values()];
  }

  get(namespace: string, name: string): LeaseBody | undefined {
    const o = this.objects.get(this.key(namespace, name));
    return o ? structuredClone(o) : undefined;
  }

  /** Seeds a raw object as-is (for corrupt leases a real API server would reject). */
  seed(body: unknown, namespace: string, name: string): string {
    const rv = String(++this.revision);
    const copy = structuredClone(body) as LeaseBody;
    copy.metadata = { ...(copy.metadata ?? {}), name, namespace, resourceVersion: rv } as LeaseBody["metadata"];
    this.objects.set(this.key(namespace, name), copy);
    this.states.set(this.key(namespace, name), leaseStateFromObject(structuredClone(copy)));
    return rv;
  }

  apply(write: LeaseWrite): WriteResult {
    this.writes++;
    const key = this.key(write.namespace, write.name);
    const existing = this.objects.get(key);
    if (write.expectedResourceVersion === null) {
      if (existing) return { ok: false, status: 409, reason: "AlreadyExists" };
    } else if (!existing || existing.metadata.resourceVersion !== write.expectedResourceVersion) {
      return { ok: false, status: 409, reason: "Conflict" };
    }
    const rv = String(++this.revision);
    const body = structuredClone(write.body);
    body.metadata.resourceVersion = rv;
    this.objects.set(key, body);
    this.states.set(key, leaseStateFromObject(structuredClone(body)));
    return { ok: true, resourceVersion: rv };
  }

  delete(namespace: string, name: string): void {
    this.objects.delete(this.key(namespace, name));
    this.states.delete(this.key(namespace, name));
  }
}
