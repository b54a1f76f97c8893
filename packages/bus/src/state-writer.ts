// Writes snapshots to the state plane only when their encoding changed, so noise (heartbeats,
// resourceVersion bumps that normalise away) never reaches the bus. Callers state the desired value
// of a key; the writer converges the bucket to it: writes are pipelined across keys, never
// concurrent for one key (so they land in order), and retried with backoff while NATS is away.
//
// A value made from a Kubernetes object never goes back in time, whoever else writes the bucket (a
// second watcher, a deposed leader's late write): its put or delete carries the object's
// resourceVersion (header Lockstep-Resource-Version) and is a compare-and-set on the key's last
// sequence as this writer knows it. Refused (another write came between), the writer reads what the
// key holds: a newer resourceVersion there wins (this writer's informer will deliver that object
// too) and is recorded as known; an older or unknown one is overwritten at its sequence.
import { hash } from "node:crypto";
import { DeliverPolicy, type JetStreamClient, type JetStreamManager } from "@nats-io/jetstream";
import type { KV } from "@nats-io/kv";
import { headers as natsHeaders, type MsgHdrs } from "@nats-io/transport-node";
import { encode, HEADER_RESOURCE_VERSION, stateKey, StateKinds, type StateKindName, type StateOf } from "@lockstep/contracts";
import type { Logger } from "pino";
import type { JetStreamPublisher } from "./jetstream-publisher.js";
import { isNewerResourceVersion } from "./resource-version.js";

export interface StateWriterOptions {
  /** Writes in flight at once (across keys). */
  maxInFlight?: number;
  logger?: Logger;
  /** Called after a write or delete is acknowledged; `since` is when the change was observed. */
  onWritten?(key: string, op: "put" | "delete", since: number): void;
  onSuppressed?(key: string): void;
  /** A put or delete not made because the bucket holds the object at a newer resourceVersion. */
  onStale?(key: string, op: "put" | "delete"): void;
  onError?(key: string, err: unknown): void;
  /**
   * Puts go out through this publisher (one ack inbox, no per-put Error and timer) to the key's
   * subject, as kv.put would send them; deletes still use the KV client.
   */
  publisher?: JetStreamPublisher;
}

/**
 * The public members of @nats-io/kv's Bucket (what ensureStateBucket returns) the writer needs: the
 * subject of a key (domain and API prefix included), its stream, and its JetStream clients.
 */
type BucketLike = {
  js: JetStreamClient;
  jsm: JetStreamManager;
  bucketName(): string;
  subjectForKey(key: string, edit?: boolean): string;
  encodeKey(key: string): string;
  decodeKey(key: string): string;
  readonly prefixLen: number;
};
const isBucketLike = (kv: object): kv is BucketLike =>
  ["subjectForKey", "encodeKey", "decodeKey", "bucketName"].every((m) => typeof (kv as Record<string, unknown>)[m] === "function") && "js" in kv && "jsm" in kv;

const KV_OPERATION = "KV-Operation";
const EXPECTED_LAST_SUBJECT_SEQUENCE = "Nats-Expected-Last-Subject-Sequence";
/** JetStream's err_code for a refused Nats-Expected-Last-Subject-Sequence. */
const WRONG_LAST_SEQUENCE = 10071;
/** Refusals in a row for one write before it counts as failed (backoff, then again). */
const MAX_CONFLICTS = 8;

/** A value to converge to (null: delete), with its digest computed once. */
type Desired =
  | { bytes: Uint8Array; digest: string; since: number; resourceVersion: string | undefined }
  | { bytes: null; digest: null; since: number; resourceVersion: string | undefined };

/** What the bucket holds for a key as far as this writer knows. */
interface Known {
  digest: string;
  /** The key's last sequence (its KV revision); 0 when not known. */
  revision: number;
  resourceVersion: string | undefined;
}

/** A key's last message as stored, headers included. */
interface Stored {
  revision: number;
  op: "PUT" | "DEL" | "PURGE";
  digest: string;
  resourceVersion: string | undefined;
}

export class StateWriter {
  /**
   * What the bucket holds per key, as the SHA-256 digest of the value's bytes (a 32-char latin1
   * string, in V8's heap rather than one malloc'd block per key). Two different values share a
   * digest with odds of about 2^-256 per comparison (each value is only ever compared with its own
   * key's previous one), so an unchanged value is told apart as surely as by its bytes, at 32 bytes
   * per key instead of the value's ~700 (about 7 MiB less live heap at 10,000 nodes). With it, the
   * key's revision (the compare-and-set's expected sequence) and the resourceVersion stored there.
   */
  private readonly known = new Map<string, Known>();
  private readonly desired = new Map<string, Desired>();
  private readonly inFlight = new Set<string>();
  private retryTimer: NodeJS.Timeout | undefined;
  private retryDelayMs = 100;
  private idleWaiters: Array<() => void> = [];
  private stopped = false;

  private readonly bucket: BucketLike;

  constructor(kv: KV, private readonly o: StateWriterOptions = {}) {
    if (!isBucketLike(kv)) throw new Error("StateWriter needs a KV bucket from @nats-io/kv (ensureStateBucket)");
    this.bucket = kv;
  }

  /**
   * Seeds what the bucket holds (e.g. from a StateCache: key, bytes, revision), so unchanged values
   * are not rewritten and the first compare-and-set of a key expects the right sequence.
   */
  prime(entries: Iterable<[key: string, bytes: Uint8Array, revision?: number, resourceVersion?: string]>): void {
    for (const [k, v, revision, resourceVersion] of entries) this.known.set(k, { digest: digestOf(v), revision: revision ?? 0, resourceVersion });
  }

  /**
   * Forgets what this writer believed and reads every key's last value, revision and resourceVersion
   * from the bucket (one ordered consumer over the last message per key). For a writer that may have
   * missed others' writes, e.g. a watcher replica that has just become leader.
   */
  async resync(): Promise<void> {
    const b = this.bucket;
    const fresh = new Map<string, Known>();
    const info = await b.jsm.streams.info(b.bucketName());
    if (info.state.messages > 0) {
      // No filter: the bucket's stream holds only its keys (and nats-server 2.9 takes no filter_subjects).
      const consumer = await b.js.consumers.get(b.bucketName(), { deliver_policy: DeliverPolicy.LastPerSubject });
      const messages = await consumer.consume();
      try {
        for await (const m of messages) {
          const key = b.decodeKey(m.subject.substring(b.prefixLen));
          const stored = storedOf(m.seq, m.data, m.headers);
          if (stored.op === "PUT") fresh.set(key, { digest: stored.digest, revision: stored.revision, resourceVersion: stored.resourceVersion });
          if (m.info.pending === 0) break;
        }
      } finally {
        messages.stop();
      }
    }
    this.known.clear();
    for (const [k, v] of fresh) this.known.set(k, v);
  }

  /** Keys the bucket holds or will hold once pending writes land. */
  keys(): Set<string> {
    const out = new Set(this.known.keys());
    for (const [k, d] of this.desired) d.bytes === null ? out.delete(k) : out.add(k);
    return out;
  }

  put<K extends StateKindName>(kind: K, value: StateOf<K>, name: string, namespace?: string, since = Date.now(), resourceVersion?: string): void {
    this.set(stateKey(kind, name, namespace), encode(StateKinds[kind].codec as never, value as never), since, resourceVersion);
  }

  /**
   * The key's value should be `bytes`. `resourceVersion` (of the object it was made from) makes the
   * write a compare-and-set that never replaces a newer one; without it (meta.synced, the heartbeat)
   * the write is a plain put.
   */
  set(key: string, bytes: Uint8Array, since = Date.now(), resourceVersion?: string): void {
    const digest = digestOf(bytes);
    if (!this.desired.has(key) && !this.inFlight.has(key) && this.known.get(key)?.digest === digest) {
      this.o.onSuppressed?.(key);
      return;
    }
    this.desired.set(key, { bytes, digest, since: this.desired.get(key)?.since ?? since, resourceVersion });
    this.pump();
  }

  /** The key should be absent; `resourceVersion` is the deleted object's (see set). */
  remove(key: string, since = Date.now(), resourceVersion?: string): void {
    if (!this.desired.has(key) && !this.inFlight.has(key) && !this.known.has(key)) return;
    this.desired.set(key, { bytes: null, digest: null, since: this.desired.get(key)?.since ?? since, resourceVersion });
    this.pump();
  }

  /** Resolves when every desired value has been written. */
  flushed(): Promise<void> {
    if (this.desired.size === 0 && this.inFlight.size === 0) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  get pending(): number {
    return this.desired.size;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.retryTimer);
  }

  private pump(): void {
    if (this.stopped || this.retryTimer) return;
    const max = this.o.maxInFlight ?? 256;
    for (const [key, d] of this.desired) {
      if (this.inFlight.size >= max) break;
      if (this.inFlight.has(key)) continue;
      void this.write(key, d);
    }
    if (this.desired.size === 0 && this.inFlight.size === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of waiters) w();
    }
  }

  private async write(key: string, d: Desired): Promise<void> {
    this.inFlight.add(key);
    try {
      const current = this.known.get(key);
      let written = true;
      if (current !== undefined && isNewerResourceVersion(current.resourceVersion, d.resourceVersion)) {
        written = false; // the bucket already holds a newer version of the object
      } else if (d.bytes === null) {
        if (current !== undefined) written = await this.deleteKey(key, current, d.resourceVersion);
      } else if (current?.digest !== d.digest) {
        written = await this.putKey(key, d.bytes, d.digest, current, d.resourceVersion);
      }
      if (this.desired.get(key) === d) this.desired.delete(key);
      this.retryDelayMs = 100;
      if (written) this.o.onWritten?.(key, d.bytes === null ? "delete" : "put", d.since);
      else this.o.onStale?.(key, d.bytes === null ? "delete" : "put");
    } catch (err) {
      this.o.onError?.(key, err);
      this.o.logger?.warn({ err, key, retryMs: this.retryDelayMs }, "state write failed; retrying");
      // Pause all writes briefly: the usual cause (NATS away) affects every key.
      this.retryTimer = setTimeout(() => {
        this.retryTimer = undefined;
        this.pump();
      }, this.retryDelayMs);
      // At most a second apart: a stream-leader election refuses writes for ~5-8 s, and the heartbeat
      // waits for these writes to land, so a long backoff would outlast the consumers' patience.
      this.retryDelayMs = Math.min(this.retryDelayMs * 2, 1_000);
    } finally {
      this.inFlight.delete(key);
    }
    this.pump();
  }

  /** Puts the value; false when the bucket turned out to hold a newer version (nothing written). */
  private async putKey(key: string, bytes: Uint8Array, digest: string, current: Known | undefined, resourceVersion: string | undefined): Promise<boolean> {
    if (resourceVersion === undefined) {
      this.known.set(key, { digest, revision: await this.send(key, bytes, undefined, undefined), resourceVersion });
      return true;
    }
    let expected = current?.revision ?? 0;
    for (let conflicts = 0; ; conflicts++) {
      try {
        this.known.set(key, { digest, revision: await this.send(key, bytes, expected, resourceVersion), resourceVersion });
        return true;
      } catch (err) {
        if (!isWrongLastSequence(err) || conflicts >= MAX_CONFLICTS) throw err;
      }
      const stored = await this.readLast(key);
      if (stored && isNewerResourceVersion(stored.resourceVersion, resourceVersion)) {
        this.learn(key, stored);
        return false;
      }
      if (stored?.op === "PUT" && stored.digest === digest && stored.resourceVersion === resourceVersion) {
        this.learn(key, stored); // ours, landed after all (an earlier attempt timed out)
        return true;
      }
      expected = stored?.revision ?? 0;
    }
  }

  /** Deletes the key; false when the bucket holds a newer version of the object (nothing deleted). */
  private async deleteKey(key: string, current: Known, resourceVersion: string | undefined): Promise<boolean> {
    if (resourceVersion === undefined) {
      await this.send(key, undefined, undefined, undefined);
      this.known.delete(key);
      return true;
    }
    let expected = current.revision;
    for (let conflicts = 0; ; conflicts++) {
      try {
        await this.send(key, undefined, expected, resourceVersion);
        this.known.delete(key);
        return true;
      } catch (err) {
        if (!isWrongLastSequence(err) || conflicts >= MAX_CONFLICTS) throw err;
      }
      const stored = await this.readLast(key);
      if (stored === null || stored.op !== "PUT") {
        this.known.delete(key); // already gone
        return true;
      }
      if (isNewerResourceVersion(stored.resourceVersion, resourceVersion)) {
        this.learn(key, stored);
        return false;
      }
      expected = stored.revision;
    }
  }

  private learn(key: string, stored: Stored): void {
    if (stored.op === "PUT") this.known.set(key, { digest: stored.digest, revision: stored.revision, resourceVersion: stored.resourceVersion });
    else this.known.delete(key);
  }

  /**
   * Publishes a put (bytes) or a delete marker (undefined) to the key's subject, as kv.put and
   * kv.delete would, with the compare-and-set and resourceVersion headers; resolves with its sequence.
   */
  private async send(key: string, bytes: Uint8Array | undefined, expected: number | undefined, resourceVersion: string | undefined): Promise<number> {
    const subject = this.bucket.subjectForKey(this.bucket.encodeKey(key), true);
    const h: Record<string, string> = {};
    if (bytes === undefined) h[KV_OPERATION] = "DEL";
    if (expected !== undefined) h[EXPECTED_LAST_SUBJECT_SEQUENCE] = String(expected);
    if (resourceVersion !== undefined) h[HEADER_RESOURCE_VERSION] = resourceVersion;
    const data = bytes ?? new Uint8Array(0);
    const publisher = this.o.publisher;
    if (publisher) return (await publisher.publish(subject, data, Object.keys(h).length > 0 ? { headers: h } : {})).seq;
    let mh: MsgHdrs | undefined;
    if (Object.keys(h).length > 0) {
      mh = natsHeaders();
      for (const [k, v] of Object.entries(h)) mh.set(k, v);
    }
    return (await this.bucket.js.publish(subject, data, { headers: mh })).seq;
  }

  /** The key's last message (value or delete marker) with its headers; null if it has none. */
  private async readLast(key: string): Promise<Stored | null> {
    const b = this.bucket;
    const sm = await b.jsm.streams.getMessage(b.bucketName(), { last_by_subj: b.subjectForKey(b.encodeKey(key)) });
    return sm ? storedOf(sm.seq, sm.data, sm.header) : null;
  }
}

/** A refused compare-and-set, from the JetStreamPublisher or from nats.js's publish. */
function isWrongLastSequence(err: unknown): boolean {
  const e = err as { errCode?: unknown; code?: unknown } | undefined;
  return e?.errCode === WRONG_LAST_SEQUENCE || e?.code === WRONG_LAST_SEQUENCE;
}

function storedOf(revision: number, data: Uint8Array, h: MsgHdrs | undefined): Stored {
  const op = h?.get(KV_OPERATION);
  return {
    revision,
    op: op === "DEL" || op === "PURGE" ? op : "PUT",
    digest: digestOf(data),
    resourceVersion: h?.get(HEADER_RESOURCE_VERSION) || undefined,
  };
}

/** SHA-256 of the bytes as a one-byte string (latin1 maps each byte to one char). */
function digestOf(bytes: Uint8Array): string {
  return hash("sha256", bytes, "binary"); // "binary" is latin1
}
