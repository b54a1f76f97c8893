// A KV watch is a JetStream push consumer living on one server. In a cluster, when that server dies
// the consumer is gone, and nats.js tells only the push consumer's status iterator, which kv.watch
// keeps private; its ordered consumer recreates itself after two missed idle heartbeats, 10-15 s
// later (a frozen server in cluster.test.ts), by when a consumer's view is stale. This
// asks the server whether the watch's consumer still exists, and ends the watch when it does not or
// the question gets no answer, so its owner resumes it (from its last revision: a needless resume
// costs one consumer, a missed one the service's whole view).
//
// It asks when the connection says the cluster changed — a server left (nats-server tells its
// clients at once, in an INFO with the cluster's new URLs), or this connection reconnected — and
// otherwise every `intervalMs` (3 s), for what sends no such word (a frozen server, a cluster with
// `no_advertise`): a dead watch is then found within ~5 s, inside the consumers' STATE_MAX_AGE, and
// before nats.js's own ordered-consumer reset (10 s). (Asking every 10 s, cluster.test.ts's frozen
// server case once had nothing in the cache within 60 s; since the resume asks again (ask-again.ts),
// four runs asking every 10 s recovered in 12.3 s, so that was not the check's interval alone.) It
// asked every 10 s while a consumer info cost nats-server 2.9 a pass over every subject of the
// stream (~5 ms at 10,000 nodes: ~40 watches asking every 1.5 s took a quarter to three quarters
// of its CPU in the system bench, README, performance). That pass was the last-value consumers' way
// of counting; the watches now ask for every entry (watch-start.ts), and an answer costs ~0.1 ms
// (3.2 ms before, caught up, 10,000 keys, measured stand-alone).
import type { KV } from "@nats-io/kv";
import { consumerOf, deleteConsumer, type ConnectionStatus, type StatusSource } from "./watch-consumer.js";

export type { ConnectionStatus, StatusSource } from "./watch-consumer.js";

type Watch = Awaited<ReturnType<KV["watch"]>>;

export interface WatchLivenessOptions {
  /** How often the consumer is asked for when nothing is heard of the cluster (default 3 s). */
  intervalMs?: number;
  /**
   * How long an answer may take before the consumer counts as gone (default 2 s, not the
   * JetStream request timeout of 5 s): a dead watch is then found ~2 s after its server's death,
   * inside the stream-leader election (4-9 s on nats-server 2.9) that a consumer must wait out anyway.
   */
  answerWithinMs?: number;
  /** Told why the watch was ended. */
  onGone?(reason: string): void;
  /** Whose status events mean "ask now" (default: the watch's own connection). */
  connection?: StatusSource;
}

/**
 * A status event after which a consumer may be gone: the cluster's servers changed, or we
 * reconnected. Any "update", not only one that names a deleted server: nats.js names only servers
 * it learned from the cluster, so a connection given every server's URL (NATS_URL) hears of a
 * server's death as an update that deletes nothing.
 */
export function mayHaveLostConsumers(s: ConnectionStatus): boolean {
  return s.type === "reconnect" || s.type === "update";
}

/** Ends `watch` once its consumer is gone; returns the function that stops checking. */
export function endWatchWhenConsumerGone(watch: Watch, o: WatchLivenessOptions = {}): () => void {
  const consumer = consumerOf(watch);
  if (!consumer) return () => {};
  let asking = false;
  let stopped = false;
  const answerWithinMs = o.answerWithinMs ?? 2_000;
  const ask = () => {
    if (asking || stopped) return;
    asking = true;
    let waited: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      waited = setTimeout(() => reject(new Error(`no answer about the watch's consumer within ${answerWithinMs} ms`)), answerWithinMs);
    });
    Promise.race([consumer.info(false), late])
      .then(
        () => {},
        (err: unknown) => {
          if (stopped) return;
          stop();
          o.onGone?.(String((err as Error)?.message ?? err));
          watch.stop();
        },
      )
      .finally(() => {
        clearTimeout(waited);
        asking = false;
      });
  };
  const timer = setInterval(ask, o.intervalMs ?? 3_000);
  timer.unref();
  const statuses = (o.connection ?? consumer.api?.nc)?.status();
  if (statuses) {
    void (async () => {
      for await (const s of statuses) {
        if (stopped) break;
        if (mayHaveLostConsumers(s)) ask();
      }
    })().catch(() => undefined);
  }
  function stop(): void {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    statuses?.stop?.();
  }
  return stop;
}

/**
 * Checks a running watch's consumer (endWatchWhenConsumerGone) and returns its release, for when the
 * watch has ended however it ended: the check stops and the consumer is deleted rather than left on
 * the server for nats.js's 5-minute inactive threshold (watch-consumer.ts).
 */
export function tendWatch(watch: Watch, o: WatchLivenessOptions = {}): () => void {
  const stopChecking = endWatchWhenConsumerGone(watch, o);
  return () => {
    stopChecking();
    deleteConsumer(watch);
  };
}
