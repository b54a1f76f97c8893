// A KV watch is a JetStream push consumer living on one server. In a cluster, when that server dies
// the consumer is gone, and nats.js only tells the push consumer's status iterator (heartbeats
// missed) — which kv.watch keeps private — so the watch would wait for ever without an error. This
// asks the server every interval whether the watch's consumer still exists, and ends the watch when
// it does not or the question gets no answer, so its owner resumes it (from its last revision: a
// needless resume costs one consumer, a missed one the service's whole view).
import type { KV } from "@nats-io/kv";

type Watch = Awaited<ReturnType<KV["watch"]>>;
/** What kv.watch keeps behind its iterator (nats.js 3.x: the push consumer as `_data`). */
type WithConsumer = { _data?: { info?(cached?: boolean): Promise<unknown> } };

export interface WatchLivenessOptions {
  /** How often the consumer is asked for (default 3 s: a dead watch is found within that and one request timeout). */
  intervalMs?: number;
  /** Told why the watch was ended. */
  onGone?(reason: string): void;
}

/** Ends `watch` once its consumer is gone; returns the function that stops checking. */
export function endWatchWhenConsumerGone(watch: Watch, o: WatchLivenessOptions = {}): () => void {
  const consumer = (watch as unknown as WithConsumer)._data;
  if (typeof consumer?.info !== "function") return () => {};
  let asking = false;
  const timer = setInterval(() => {
    if (asking) return;
    asking = true;
    consumer.info!(false).then(
      () => {},
      (err: unknown) => {
        clearInterval(timer);
        o.onGone?.(String((err as Error)?.message ?? err));
        watch.stop();
      },
    ).finally(() => {
      asking = false;
    });
  }, o.intervalMs ?? 3_000);
  timer.unref();
  return () => clearInterval(timer);
}
