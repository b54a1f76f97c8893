// NATS header names used on the event plane.
/** Names the protobuf message type of an event payload, e.g. `lockstep.events.v1.LeaseGranted`. */
export const HEADER_TYPE = "Lockstep-Type";
/** JetStream de-duplication id; Lockstep sets it to the event id. */
export const HEADER_MSG_ID = "Nats-Msg-Id";
/**
 * On a state-plane put or delete: the Kubernetes resourceVersion of the object the value was made
 * from, so a writer can tell a newer snapshot in the bucket from an older one (StateWriter).
 */
export const HEADER_RESOURCE_VERSION = "Lockstep-Resource-Version";

/**
 * CloudEvents (spec 1.0) binary content mode, as the NATS and HTTP protocol bindings name the
 * attributes: each event also carries these headers beside Lockstep's own, so CloudEvents tooling
 * (Knative, Argo Events, the SDKs) reads it without knowing Lockstep.
 */
export const CE_SPECVERSION = "ce-specversion";
export const CE_ID = "ce-id";
export const CE_SOURCE = "ce-source";
export const CE_TYPE = "ce-type";
export const CE_TIME = "ce-time";
export const CE_SUBJECT = "ce-subject";
export const CE_DATASCHEMA = "ce-dataschema";
/** datacontenttype travels as Content-Type in binary mode. */
export const HEADER_CONTENT_TYPE = "content-type";
export const PROTOBUF_CONTENT_TYPE = "application/protobuf";
