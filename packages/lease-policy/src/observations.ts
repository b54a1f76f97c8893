import { leaseFingerprint, type LeaseRecord } from "./lease-record.js";

export interface Observation {
  fingerprint: string;
  /** Local-clock time (ms) at which this replica first saw this exact record. */
  firstSeenMs: number;
}

/** Per-replica memory of when each lease record was first seen; lost on restart (which only delays expiry). */
export type ObservationLog = ReadonlyMap<string, Observation>;

export function leaseKey(rec: Pick<LeaseRecord, "namespace" | "name">): string {
  return `${rec.namespace}/${rec.name}`;
}

/**
 * Records first sightings (client-go's observedTime): a record that changed since last time restarts
 * its clock; leases no longer present are forgotten so the log stays bounded.
 */
export function observe(log: ObservationLog, records: readonly LeaseRecord[], nowMs: number): Map<string, Observation> {
  const next = new Map<string, Observation>();
  for (const rec of records) {
    const key = leaseKey(rec);
    const fingerprint = leaseFingerprint(rec);
    const prev = log.get(key);
    next.set(key, prev !== undefined && prev.fingerprint === fingerprint ? prev : { fingerprint, firstSeenMs: nowMs });
  }
  return next;
}
