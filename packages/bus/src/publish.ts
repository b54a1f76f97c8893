import { randomUUID } from "node:crypto";
import { jetstream, type JetStreamClient, type PubAck } from "@nats-io/jetstream";
import { headers, type NatsConnection } from "@nats-io/transport-node";
import { encode, HEADER_MSG_ID, HEADER_TYPE, type EventMeta, type EventType } from "@lockstep/contracts";

export interface PublishOptions {
  /** Event id (and Nats-Msg-Id). Pass a deterministic id to make a retried fact idempotent. */
  id?: string;
  occurredAt?: Date;
}

type WithMeta = { meta?: EventMeta };

/** Publishes typed events to the event stream with the type header and a de-duplication id. */
export class EventPublisher {
  private readonly js: JetStreamClient;

  constructor(nc: NatsConnection, private readonly source: string) {
    this.js = jetstream(nc);
  }

  /** Fills `meta` (id, time, source) unless given, publishes, and returns the ack (`duplicate` on a repeat id). */
  async publish<T extends WithMeta>(type: EventType<T>, message: T, o: PublishOptions = {}): Promise<PubAck> {
    const id = o.id ?? message.meta?.id ?? randomUUID();
    const meta: EventMeta = {
      id,
      occurredAt: o.occurredAt ?? message.meta?.occurredAt ?? new Date(),
      source: message.meta?.source || this.source,
      object: message.meta?.object,
      correlationId: message.meta?.correlationId ?? "",
    };
    const h = headers();
    h.set(HEADER_TYPE, type.typeName);
    return this.js.publish(type.subject, encode(type.codec, { ...message, meta }), { msgID: id, headers: h });
  }
}

export { HEADER_MSG_ID };
