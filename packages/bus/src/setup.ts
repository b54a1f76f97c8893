// Idempotent creation of the event stream and the state bucket. Works on nats-server 2.9
// (no 2.10 features: one filter subject, no compression, no per-message TTL).
import { jetstreamManager, RetentionPolicy, StorageType, type JetStreamManager, type StreamConfig } from "@nats-io/jetstream";
import { Kvm, type KV } from "@nats-io/kv";
import type { NatsConnection } from "@nats-io/transport-node";
import { EVENT_SUBJECTS, EVENTS_STREAM, LEASE_QUEUE_BUCKET, STATE_BUCKET } from "@lockstep/contracts";
import type { Logger } from "pino";

/** What every ensure* function takes: the replica count (NATS_REPLICAS) and where to log. */
export interface ReplicatedOptions {
  /**
   * JetStream replicas (1..5) to create with (default 1); an existing stream or bucket with another
   * count is updated to it. Unset, an existing one keeps its count (a caller that does not know
   * NATS_REPLICAS must not scale the planes down).
   */
  replicas?: number;
  logger?: Logger;
  /**
   * How long to keep asking while JetStream does not answer in time (default 60 s): on a cluster,
   * creating a replicated stream is a round of the meta leader's consensus, and several processes
   * starting at once queue behind each other's.
   */
  patienceMs?: number;
}

export interface EventStreamOptions extends ReplicatedOptions {
  /** Maximum age of events in milliseconds (default 7 days). */
  maxAgeMs?: number;
  /** De-duplication window in milliseconds (default 2 minutes). */
  duplicateWindowMs?: number;
}

const ms = (n: number) => n * 1_000_000; // JetStream durations are nanoseconds

export function ensureEventStream(nc: NatsConnection, o: EventStreamOptions = {}): Promise<JetStreamManager> {
  return patiently(EVENTS_STREAM, o, () => createOrUpdateEventStream(nc, o));
}

async function createOrUpdateEventStream(nc: NatsConnection, o: EventStreamOptions): Promise<JetStreamManager> {
  const jsm = await jetstreamManager(nc);
  const replicas = o.replicas ?? 1;
  const config = {
    name: EVENTS_STREAM,
    subjects: [EVENT_SUBJECTS],
    retention: RetentionPolicy.Limits,
    storage: StorageType.File,
    max_age: ms(o.maxAgeMs ?? 7 * 24 * 3600_000),
    duplicate_window: ms(o.duplicateWindowMs ?? 120_000),
    num_replicas: replicas,
  };
  try {
    const info = await jsm.streams.info(EVENTS_STREAM);
    const num_replicas = o.replicas ?? info.config.num_replicas;
    await updateStream(jsm, { ...info.config, ...config, num_replicas }, info.config.num_replicas, { ...o, clustered: nc.info?.cluster !== undefined });
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
      if (!exists) throw isNotFound(addErr) ? creationInFlight(EVENTS_STREAM, addErr) : replicasError(addErr, replicas);
    }
  }
  return jsm;
}

export type StateBucketOptions = ReplicatedOptions;

export async function ensureStateBucket(nc: NatsConnection, o: StateBucketOptions = {}): Promise<KV> {
  // History 1: consumers want the current state; deletes keep their marker so watchers see them.
  return ensureKvBucket(nc, STATE_BUCKET, { history: 1, ...o });
}

export interface KvBucketOptions extends ReplicatedOptions {
  /** Values kept per key (default 1). */
  history?: number;
  /** How long a value nobody rewrites is kept (default: for ever). */
  ttlMs?: number;
}

/** Creates or opens a file-backed KV bucket with `replicas` replicas (a bucket of Lockstep's own). */
export function ensureKvBucket(nc: NatsConnection, name: string, o: KvBucketOptions = {}): Promise<KV> {
  return patiently(`KV_${name}`, o, () => createOrOpenBucket(nc, name, o));
}

async function createOrOpenBucket(nc: NatsConnection, name: string, o: KvBucketOptions): Promise<KV> {
  const replicas = o.replicas ?? 1;
  let kv: KV;
  try {
    kv = await new Kvm(nc).create(name, { history: o.history ?? 1, storage: StorageType.File, replicas, ...(o.ttlMs !== undefined ? { ttl: o.ttlMs } : {}) });
  } catch (err) {
    // Kvm.create catches "not found" from its info and adds; one from the add is a creation in flight.
    throw isNotFound(err) ? creationInFlight(`KV_${name}`, err) : replicasError(err, replicas);
  }
  // Kvm.create opens an existing bucket as it is; bring its replica count to ours.
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(`KV_${name}`);
  if (o.replicas !== undefined && info.config.num_replicas !== replicas) await updateStream(jsm, { ...info.config, num_replicas: replicas }, info.config.num_replicas, { ...o, clustered: nc.info?.cluster !== undefined });
  return kv;
}

/**
 * Applies `config` to an existing stream. A refused replica change is logged, not thrown: the planes still
 * work at the old count, and a service must not crash-loop over it.
 */
async function updateStream(jsm: JetStreamManager, config: StreamConfig, had: number, o: ReplicatedOptions & { clustered: boolean }): Promise<void> {
  let want = config.num_replicas;
  if (want > 1 && want !== had && !o.clustered) {
    // nats-server 2.9 alone refuses replicas > 1 at creation but accepts them in an update, then
    // keeps one copy under a config that says three: say so, and leave the count as it is.
    o.logger?.warn({ err: new Error(`${needsCluster(want)} (this nats-server is not in a cluster)`), stream: config.name, replicas: had, wanted: want }, "stream replica count not changed");
    config = { ...config, num_replicas: had };
    want = had;
  }
  try {
    await jsm.streams.update(config.name, config);
  } catch (err) {
    if (want === had) throw err;
    o.logger?.warn({ err: replicasError(err, want), stream: config.name, replicas: had, wanted: want }, "stream replica count not changed");
  }
}

/** Runs `attempt` again while JetStream times out or is busy, until `patienceMs` has passed. */
async function patiently<T>(stream: string, o: ReplicatedOptions, attempt: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + (o.patienceMs ?? 60_000);
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (!isBusy(err) || Date.now() >= deadline) throw err;
      o.logger?.warn({ err, stream, attempt: n }, "JetStream busy; ensuring the stream again");
      await new Promise((r) => setTimeout(r, Math.min(250 * n, 2_000)));
    }
  }
}

/**
 * "stream not found" in answer to a create: on a cluster, nats-server 2.9 turns a create of a stream
 * that is already assigned (another process's create, in flight) into an info request, and a member
 * of a group with no leader yet answers it from its own servers, where the stream may not exist yet
 * (seen in CI: eight processes creating R3 planes at once on a loaded machine). Asked again, it is
 * there.
 */
function creationInFlight(stream: string, cause: unknown): Error {
  return Object.assign(new Error(`stream ${stream} is being created by another request; not found yet`, { cause }), { name: CREATION_IN_FLIGHT });
}
const CREATION_IN_FLIGHT = "CreationInFlightError";

/**
 * A request that timed out, a stream another request is creating (creationInFlight), or JetStream
 * saying it cannot answer now: 10008, no meta leader yet; "no
 * suitable peers for placement", the meta leader not yet counting every server of a cluster that is
 * starting or where one server restarts (seen with eight processes creating R3 planes on a fresh
 * three-node cluster). A cluster that is really too small keeps refusing, and the last error says so.
 */
export function isBusy(err: unknown): boolean {
  const e = err as { name?: string; code?: unknown; message?: string } | undefined;
  return e?.name === "TimeoutError" || e?.name === CREATION_IN_FLIGHT || e?.code === 10008 || /timeout|temporarily unavailable|no responders|no suitable peers/i.test(String(e?.message ?? err));
}

/**
 * A single server refuses replicas > 1 ("replicas > 1 not supported in non-clustered mode"), a small
 * cluster with "insufficient resources"; both mean the same to whoever set NATS_REPLICAS.
 */
export function replicasError(err: unknown, replicas: number): unknown {
  if (replicas <= 1) return err;
  const text = String((err as Error)?.message ?? err);
  if (!/non-clustered|insufficient resources|no suitable peers|replicas/i.test(text)) return err;
  return new Error(`${needsCluster(replicas)} (nats-server: ${text})`, { cause: err });
}

const needsCluster = (replicas: number) => `NATS_REPLICAS=${replicas} needs a JetStream cluster of at least ${replicas} servers`;

export function isNotFound(err: unknown): boolean {
  return /not found/i.test(String((err as Error)?.message ?? err));
}

export interface LeaseQueueBucketOptions extends ReplicatedOptions {
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
  return ensureKvBucket(nc, LEASE_QUEUE_BUCKET, { ...o, history: 1, ttlMs: o.maxAgeMs ?? 600_000 });
}
