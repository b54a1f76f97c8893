// kv.watch keeps its JetStream consumer private (nats.js 3.x: as `_data` on the iterator it
// returns). The state cache needs it for three things the KV API does not offer: to ask whether it
// still exists (watch-liveness.ts), to read how much its filter held when it began (an empty filter
// delivers nothing, so nothing else would say its initial values are in), and to delete it when the
// watch ends. It is an ordered push consumer, which nats.js creates with a 5-minute inactive
// threshold: left alone, a stopped one stays on the server that long with its pending messages, and
// nats-server 2.9 keeps recounting them (a pass over every key of the bucket) as the stream takes new
// ones (the system bench found six such leftovers, 10,025 pending each; README, performance).
// watch-start.test.ts pins what this reads.

/** A connection status event as nats.js reports it (only what is read here). */
export interface ConnectionStatus {
  type: string;
}

/** The part of a NatsConnection the liveness check needs: its status events. */
export interface StatusSource {
  status(): AsyncIterable<ConnectionStatus> & { stop?(): void };
}

/** What is read of the consumer behind a watch. */
export interface WatchConsumer {
  info(cached?: boolean): Promise<{ num_pending?: number }>;
  delete?(): Promise<unknown>;
  /** The consumer's JetStream API; `nc` is the watch's connection. */
  api?: { nc?: StatusSource };
}

/** The consumer behind what kv.watch returned; undefined if the library keeps it elsewhere. */
export function consumerOf(iter: unknown): WatchConsumer | undefined {
  const c = (iter as { _data?: Partial<WatchConsumer> } | undefined)?._data;
  return typeof c?.info === "function" ? (c as WatchConsumer) : undefined;
}

/**
 * How many messages the watch's filter held when its consumer was created (from the creation's
 * answer, no request): 0 means nothing will be replayed. Undefined when the library does not say.
 */
export async function pendingAtStart(iter: unknown): Promise<number | undefined> {
  const n = (await consumerOf(iter)?.info(true))?.num_pending;
  return typeof n === "number" ? n : undefined;
}

/** Deletes the consumer behind an ended watch; a consumer already gone is no error. */
export function deleteConsumer(iter: unknown): void {
  void consumerOf(iter)?.delete?.().catch(() => undefined);
}
