// What the state cache must know as a KV watch of one filter begins: which entries were stored
// before the watch (revision up to the stream's last sequence then), from the KV's public API.
// Whether the filter held anything at all comes from the watch's own consumer (watch-consumer.ts).
// The library behaviour both rely on is pinned by watch-start.test.ts.
import { type KV, type KvWatchOptions, KvWatchInclude } from "@nats-io/kv";

/** Entries with a revision up to this one were stored before now; asked before a watch starts, later ones are live. */
export async function storedUpTo(kv: KV): Promise<number> {
  return (await kv.status()).streamInfo.state.last_seq;
}

/**
 * How a state-plane watch asks for its entries: those after `lastSeen` (a resume), or every stored
 * entry (none seen yet: undefined or 0). Not
 * nats.js's default (the last entry per key): nats-server 2.9 counts what such a consumer has pending
 * by a pass over every key of its filter, and once a consumer-info request (watch liveness) finds it
 * caught up it does so for every message it delivers: 10,000 node keys made nats-server 30 times
 * dearer per put (0.34 → 10.2 CPU-s per 1,000 puts with three watches). Lockstep's buckets keep one
 * entry per key (history 1), so every stored entry is the last per key; with more history the
 * older entries would be replayed first, in order, and the cache would still end on the newest.
 */
export function watchOptions(key: string | undefined, lastSeen: number | undefined): KvWatchOptions {
  const base: KvWatchOptions = key === undefined ? {} : { key };
  return lastSeen ? { ...base, resumeFromRevision: lastSeen + 1 } : { ...base, include: KvWatchInclude.AllHistory };
}
