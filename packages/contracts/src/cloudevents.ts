// The CloudEvents attributes of a Lockstep event (binary content mode headers): pure, so the
// publisher and its tests agree on one mapping (README, "Event catalogue").
import { CE_DATASCHEMA, CE_ID, CE_SOURCE, CE_SPECVERSION, CE_SUBJECT, CE_TIME, CE_TYPE, HEADER_CONTENT_TYPE, PROTOBUF_CONTENT_TYPE } from "./headers.js";
import { EVENT_SUBJECT_PREFIX, type EventType } from "./events.js";

/** `lockstep.v1.evt.lease.granted` → `io.lockstep.lease.granted.v1`. */
export function cloudEventType(type: Pick<EventType<unknown>, "subject">): string {
  return `io.lockstep.${type.subject.slice(EVENT_SUBJECT_PREFIX.length + 1)}.v1`;
}

/** `lockstep.events.v1.LeaseGranted` → `proto:lockstep.events.v1.LeaseGranted` (the message in proto/). */
export function cloudEventDataSchema(type: Pick<EventType<unknown>, "typeName">): string {
  return `proto:${type.typeName}`;
}

export interface CloudEventFacts {
  id: string;
  /** The publishing service, e.g. `lease-coordinator`. */
  source: string;
  time: Date;
  /** What the event is about: the node, pool or MachineSet (empty: no subject header). */
  subject: string;
}

/** The headers of binary content mode for one event. */
export function cloudEventHeaders(type: Pick<EventType<unknown>, "subject" | "typeName">, f: CloudEventFacts): Record<string, string> {
  const h: Record<string, string> = {
    [CE_SPECVERSION]: "1.0",
    [CE_ID]: f.id,
    [CE_SOURCE]: `/lockstep/${f.source}`,
    [CE_TYPE]: cloudEventType(type),
    [CE_TIME]: f.time.toISOString(),
    [CE_DATASCHEMA]: cloudEventDataSchema(type),
    [HEADER_CONTENT_TYPE]: PROTOBUF_CONTENT_TYPE,
  };
  if (f.subject) h[CE_SUBJECT] = f.subject;
  return h;
}

/** The subject of a fact: the node, pool or MachineSet it is about (from the message's fields). */
export function cloudEventSubject(message: any): string {
  const ms = message?.machineSet;
  if (ms?.name) return ms.namespace ? `${ms.namespace}/${ms.name}` : ms.name;
  return message?.lease?.node || message?.node || message?.meta?.object?.name || message?.pool || "";
}
