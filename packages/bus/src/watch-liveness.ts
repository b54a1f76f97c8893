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
  /** How often the consumer is asked for (default 1.5 s). */
  intervalMs?: number;
  /**
   * How long an answer may take before the consumer counts as gone (default 2 s, not the
   * JetStream request timeout of 5 s): a dead watch is then found within 3.5 s, inside the
   * stream-leader election (4-9 s on nats-server 2.9) that a consumer must wait out anyway, instead
   * of after it — the gap a consumer sees after its server dies is what makes it stale.
   */
  answerWithinMs?: number;
  /** Told why the watch was ended. */
  onGone?(reason: string): void;
}

/** Ends `watch` once its consumer is gone; returns the function that stops checking. */
export function endWatchWhenConsumerGone(watch: Watch, o: WatchLivenessOptions = {}): () => void {
  const consumer = (watch as unknown as WithConsumer)._data;
  if (typeof consumer?.info !== "function") return () => {};
  let asking = false;
  const answerWithinMs = o.answerWithinMs ?? 2_000;
  const timer = setInterval(() => {
    if (asking) return;
    asking = true;
    let waited: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      waited = setTimeout(() => reject(new Error(`no answer about the watch's consumer within ${answerWithinMs} ms`)), answerWithinMs);
    });
    Promise.race([consumer.info!(false), late])
      .then(
        () => {},
        (err: unknown) => {
          clearInterval(timer);
          o.onGone?.(String((err as Error)?.message ?? err));
          watch.stop();
        },
      )
      .finally(() => {
        clearTimeout(waited);
        asking = false;
      });
  }, o.intervalMs ?? 1_500);
  timer.unref();
  return () => clearInterval(timer);
}
