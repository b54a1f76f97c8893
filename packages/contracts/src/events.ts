// The event plane: stream, subjects and the message type of every fact. The only place a subject
// is spelled; services refer to entries of `Events`.
import { decode, type Codec } from "./codec.js";
import {
  BootImageSkipped,
  BootImageUpdated,
  BootImageUpdateFailed,
  InsightChanged,
  LeaseDenied,
  LeaseExpired,
  LeaseGranted,
  LeasePreempted,
  LeasePreemptionWithdrawn,
  LeaseReleased,
  SkewEvaluated,
  UpdateCompleted,
  UpgradeableChanged,
  WarningRaised,
} from "./gen/lockstep/events/v1/events.js";

export const EVENTS_STREAM = "LOCKSTEP_EVENTS_V1";
export const EVENT_SUBJECT_PREFIX = "lockstep.v1.evt";
/** Every event subject; the stream's only subject filter. */
export const EVENT_SUBJECTS = `${EVENT_SUBJECT_PREFIX}.>`;

export interface EventType<T> {
  /** `lockstep.v1.evt.<entity>.<fact>` */
  readonly subject: string;
  /** Fully qualified protobuf message name, sent in the Lockstep-Type header. */
  readonly typeName: string;
  readonly codec: Codec<T>;
}

function event<T>(entity: string, fact: string, message: string, codec: Codec<T>): EventType<T> {
  return { subject: `${EVENT_SUBJECT_PREFIX}.${entity}.${fact}`, typeName: `lockstep.events.v1.${message}`, codec };
}

export const Events = {
  leaseGranted: event("lease", "granted", "LeaseGranted", LeaseGranted),
  leaseDenied: event("lease", "denied", "LeaseDenied", LeaseDenied),
  leaseReleased: event("lease", "released", "LeaseReleased", LeaseReleased),
  leaseExpired: event("lease", "expired", "LeaseExpired", LeaseExpired),
  leasePreempted: event("lease", "preempted", "LeasePreempted", LeasePreempted),
  leasePreemptionWithdrawn: event("lease", "preemption-withdrawn", "LeasePreemptionWithdrawn", LeasePreemptionWithdrawn),
  warningRaised: event("warning", "raised", "WarningRaised", WarningRaised),
  skewEvaluated: event("skew", "evaluated", "SkewEvaluated", SkewEvaluated),
  upgradeableChanged: event("upgradeable", "changed", "UpgradeableChanged", UpgradeableChanged),
  updateCompleted: event("update", "completed", "UpdateCompleted", UpdateCompleted),
  bootImageUpdated: event("bootimage", "updated", "BootImageUpdated", BootImageUpdated),
  bootImageSkipped: event("bootimage", "skipped", "BootImageSkipped", BootImageSkipped),
  bootImageUpdateFailed: event("bootimage", "update-failed", "BootImageUpdateFailed", BootImageUpdateFailed),
  insightChanged: event("insight", "changed", "InsightChanged", InsightChanged),
} as const;

export type EventName = keyof typeof Events;
export type EventMessage<E> = E extends EventType<infer T> ? T : never;

const bySubject = new Map<string, EventType<unknown>>(Object.values(Events).map((e) => [e.subject, e as EventType<unknown>]));
const byTypeName = new Map<string, EventType<unknown>>(Object.values(Events).map((e) => [e.typeName, e as EventType<unknown>]));

export function eventBySubject(subject: string): EventType<unknown> | undefined {
  return bySubject.get(subject);
}

export function eventByTypeName(typeName: string): EventType<unknown> | undefined {
  return byTypeName.get(typeName);
}

/** Subject filter for every fact about one entity, e.g. `lockstep.v1.evt.lease.>`. */
export function entitySubjects(entity: string): string {
  return `${EVENT_SUBJECT_PREFIX}.${entity}.>`;
}

export class EventTypeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EventTypeError";
  }
}

export interface DecodedEvent {
  type: EventType<unknown>;
  message: unknown;
}

/**
 * Decodes an event from its subject, Lockstep-Type header and payload. The header must name the
 * message type the subject carries; anything else is refused rather than mis-decoded.
 */
export function decodeEvent(subject: string, typeHeader: string | undefined, data: Uint8Array): DecodedEvent {
  const type = eventBySubject(subject);
  if (!type) throw new EventTypeError(`unknown event subject ${subject}`);
  if (typeHeader !== type.typeName) {
    throw new EventTypeError(`event on ${subject} has type header ${JSON.stringify(typeHeader ?? "")}, expected ${type.typeName}`);
  }
  return { type, message: decode(type.codec, type.typeName, data) };
}
