import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { encode, HEADER_MSG_ID, HEADER_TYPE, type EventMeta, type EventType } from "@lockstep/contracts";
import { JetStreamPublisher, type PubAck } from "./jetstream-publisher.js";

export interface PublishOptions {
  /** Event id (and Nats-Msg-Id). Pass a deterministic id to make a retried fact idempotent. */
  id?: string;
  occurredAt?: Date;
}

type WithMeta = { meta?: EventMeta };

/** Publishes typed events to the event stream with the type header and a de-duplication id. */
export class EventPublisher {
  private readonly js: JetStreamPublisher;

  constructor(nc: NatsConnection, private readonly source: string) {
    this.js = new JetStreamPublisher(nc);
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
    return this.js.publish(type.subject, encode(type.codec, { ...message, meta }), { msgId: id, headers: { [HEADER_TYPE]: type.typeName } });
  }
}

export { HEADER_MSG_ID };
