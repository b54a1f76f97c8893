// What the state cache must know as a KV watch of one filter begins, from the KV's public API: which
// entries were stored before the watch (revision up to the stream's last sequence then) and whether
// the filter holds any value at all — a watch of an empty filter delivers nothing, so nothing would
// ever say its initial values are in. (The KV library knows both from its consumer's pending count,
// but keeps that consumer private.) The library behaviour this relies on is pinned by
// watch-start.test.ts.
import type { KV } from "@nats-io/kv";

/** Entries with a revision up to this one were stored before now; asked before a watch starts, later ones are live. */
export async function storedUpTo(kv: KV): Promise<number> {
  return (await kv.status()).streamInfo.state.last_seq;
}

/**
 * Whether the filter holds a value (not only delete markers). One key is enough: the listing stops
 * there, and ends at once for an empty filter.
 */
export async function hasValues(kv: KV, filter: string): Promise<boolean> {
  const keys = await kv.keys(filter);
  try {
    for await (const _ of keys) return true;
    return false;
  } finally {
    keys.stop();
  }
}
