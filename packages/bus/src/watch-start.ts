// What the state cache must know as a KV watch of one filter begins: which entries were stored
// before the watch (revision up to the stream's last sequence then), from the KV's public API.
// Whether the filter held anything at all comes from the watch's own consumer (watch-consumer.ts).
// The library behaviour both rely on is pinned by watch-start.test.ts.
import type { KV } from "@nats-io/kv";

/** Entries with a revision up to this one were stored before now; asked before a watch starts, later ones are live. */
export async function storedUpTo(kv: KV): Promise<number> {
  return (await kv.status()).streamInfo.state.last_seq;
}
