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
