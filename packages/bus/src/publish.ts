import { randomUUID } from "node:crypto";
import type { NatsConnection } from "@nats-io/transport-node";
import { cloudEventHeaders, cloudEventSubject, encode, HEADER_MSG_ID, HEADER_TYPE, type EventMeta, type EventType } from "@lockstep/contracts";
import { JetStreamPublisher, type PubAck } from "./jetstream-publisher.js";

export interface PublishOptions {
  /** Event id (and Nats-Msg-Id). Pass a deterministic id to make a retried fact idempotent. */
  id?: string;
  occurredAt?: Date;
}

type WithMeta = { meta?: EventMeta };

/** Told of every event once the stream has it (e.g. to record it as a Kubernetes Event). */
export type PublishedObserver = (type: EventType<unknown>, message: unknown) => void;

/**
 * Publishes typed events to the event stream with the type header, a de-duplication id and the
 * CloudEvents binary-mode headers (contracts' cloudevents.ts).
 */
export class EventPublisher {
  private readonly js: JetStreamPublisher;

  constructor(
    nc: NatsConnection,
    private readonly source: string,
    private readonly observe?: PublishedObserver,
  ) {
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
    const full = { ...message, meta };
    const ce = cloudEventHeaders(type, { id, source: meta.source, time: meta.occurredAt ?? new Date(), subject: cloudEventSubject(full) });
    const ack = await this.js.publish(type.subject, encode(type.codec, full), { msgId: id, headers: { ...ce, [HEADER_TYPE]: type.typeName } });
    // A repeat id is the same fact again: observed once.
    if (!ack.duplicate) this.observe?.(type as EventType<unknown>, full);
    return ack;
  }
}

export { HEADER_MSG_ID };
