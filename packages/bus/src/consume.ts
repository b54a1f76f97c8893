// Durable event consumers with explicit acks. A fetch loop (rather than a long-lived push) keeps
// recovery simple: after a nats-server restart the next fetch resumes from the durable position.
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, type JsMsg } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import { decodeEvent, EVENTS_STREAM, HEADER_TYPE, type DecodedEvent } from "@lockstep/contracts";
import type { Logger } from "pino";
import { isNotFound } from "./setup.js";

export interface ConsumeEventsOptions {
  /** Durable consumer name; one per service (replicas share it and split the work). */
  durable: string;
  /** One subject filter (nats-server 2.9 has no filter_subjects), e.g. `lockstep.v1.evt.lease.>`. */
  filterSubject: string;
  handler: (event: DecodedEvent, msg: JsMsg) => Promise<void> | void;
  signal: AbortSignal;
  logger?: Logger;
  /** Redelivery delay after a handler error, ms. */
  retryDelayMs?: number;
  batch?: number;
  /** Start position for a consumer that does not exist yet (default: all retained events). */
  deliverPolicy?: DeliverPolicy;
}

export async function ensureDurableConsumer(nc: NatsConnection, o: Pick<ConsumeEventsOptions, "durable" | "filterSubject" | "deliverPolicy">): Promise<void> {
  const jsm = await jetstreamManager(nc);
  try {
    await jsm.consumers.info(EVENTS_STREAM, o.durable);
  } catch (err) {
    if (!isNotFound(err)) throw err;
    await jsm.consumers.add(EVENTS_STREAM, {
      durable_name: o.durable,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: o.deliverPolicy ?? DeliverPolicy.All,
      filter_subject: o.filterSubject,
      ack_wait: 30_000_000_000,
      max_deliver: -1,
    });
  }
}

/**
 * Runs until the signal aborts. Handler success → ack; handler error → nak with delay (retried);
 * an undecodable or mistyped event → term (logged, never redelivered, never crashes the service).
 */
export async function consumeEvents(nc: NatsConnection, o: ConsumeEventsOptions): Promise<void> {
  const js = jetstream(nc);
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  while (!o.signal.aborted) {
    try {
      await ensureDurableConsumer(nc, o);
      const consumer = await js.consumers.get(EVENTS_STREAM, o.durable);
      while (!o.signal.aborted) {
        const batch = await consumer.fetch({ max_messages: o.batch ?? 128, expires: 1_000 });
        for await (const m of batch) {
          let event: DecodedEvent;
          try {
            event = decodeEvent(m.subject, m.headers?.get(HEADER_TYPE) || undefined, m.data);
          } catch (err) {
            o.logger?.warn({ err, subject: m.subject, seq: m.seq }, "dropping malformed event");
            m.term();
            continue;
          }
          try {
            await o.handler(event, m);
            m.ack();
          } catch (err) {
            o.logger?.warn({ err, subject: m.subject, seq: m.seq }, "event handler failed; will retry");
            m.nak(o.retryDelayMs ?? 1_000);
          }
        }
      }
    } catch (err) {
      if (o.signal.aborted) break;
      o.logger?.warn({ err, durable: o.durable }, "event consumer interrupted; retrying");
      await sleep(500);
    }
  }
}
