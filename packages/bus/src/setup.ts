// Idempotent creation of the event stream and the state bucket. Works on nats-server 2.9
// (no 2.10 features: one filter subject, no compression, no per-message TTL).
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { EVENT_SUBJECTS, EVENTS_STREAM, LEASE_QUEUE_BUCKET, STATE_BUCKET } from "@lockstep/contracts";

export interface EventStreamOptions {
  /** Maximum age of events in milliseconds (default 7 days). */
  maxAgeMs?: number;
  /** De-duplication window in milliseconds (default 2 minutes). */
  duplicateWindowMs?: number;
  replicas?: number;
}

const ms = (n: number) => n * 1_000_000; // JetStream durations are nanoseconds

export async function ensureEventStream(nc: NatsConnection, o: EventStreamOptions = {}): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  const config = {
    name: EVENTS_STREAM,
    subjects: [EVENT_SUBJECTS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: ms(o.maxAgeMs ?? 7 * 24 * 3600_000),
    duplicate_window: ms(o.duplicateWindowMs ?? 120_000),
    num_replicas: o.replicas ?? 1,
  };
  try {
    await jsm.streams.info(EVENTS_STREAM);
    await jsm.streams.update(EVENTS_STREAM, config);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    try {
      await jsm.streams.add(config);
    } catch (addErr) {
      // Another process created it between our info and add. nats-server says so in more than one
      // way ("already in use", or "subjects overlap with an existing stream" when both creates were
      // in flight), so ask again rather than read the message: if it exists now, it is ours.
      const exists = await jsm.streams.info(EVENTS_STREAM).then(
        () => true,
        () => false,
      );
      if (!exists) throw addErr;
    }
  }
  return jsm;
}

export interface StateBucketOptions {
  replicas?: number;
}

export async function ensureStateBucket(nc: NatsConnection, o: StateBucketOptions = {}): Promise<KV> {
  // History 1: consumers want the current state; deletes keep their marker so watchers see them.
  return new Kvm(nc).create(STATE_BUCKET, { history: 1, storage: StorageType.File, replicas: o.replicas ?? 1 });
}

export function isNotFound(err: unknown): boolean {
  return /not found/i.test(String((err as Error)?.message ?? err));
}

export interface LeaseQueueBucketOptions {
  replicas?: number;
  /**
   * How long an entry nobody rewrites is kept (default 10 minutes). Serving replicas rewrite their
   * waiters every few seconds, so this only clears what a dead replica left; it must outlast a
   * caller's reconnect to another replica, which keeps the entry's place.
   */
  maxAgeMs?: number;
}

/** The lease-coordinators' shared wait queue (LEASE_QUEUE_BUCKET). */
export async function ensureLeaseQueueBucket(nc: NatsConnection, o: LeaseQueueBucketOptions = {}): Promise<KV> {
  // History 1: only the current value of each waiter matters; its place is carried in the value.
  return new Kvm(nc).create(LEASE_QUEUE_BUCKET, { history: 1, storage: StorageType.File, replicas: o.replicas ?? 1, ttl: o.maxAgeMs ?? 600_000 });
}
