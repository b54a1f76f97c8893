// A refused Renew as fields (lockstep.lease.v1.RenewRefusal), carried in a binary gRPC trailer of
// its FAILED_PRECONDITION status. The status text ("Preempted: preempted by …") stays as it was, so
// older clients keep working; newer ones read the fields and never parse the text.
import { Metadata } from "@grpc/grpc-js";
import { RenewRefusal } from "./gen/lockstep/lease/v1/lease.js";

/** grpc-js sends a key ending in "-bin" as base64 and hands it back as a Buffer. */
export const RENEW_REFUSAL_TRAILER = "lockstep-refusal-bin";

export function renewRefusalMetadata(refusal: RenewRefusal): Metadata {
  const md = new Metadata();
  md.set(RENEW_REFUSAL_TRAILER, Buffer.from(RenewRefusal.encode(refusal).finish()));
  return md;
}

/** The refusal's fields from a call error, or undefined (an older coordinator, another error, or bytes that do not decode). */
export function renewRefusalOf(err: { metadata?: Metadata } | null | undefined): RenewRefusal | undefined {
  const raw = err?.metadata?.get(RENEW_REFUSAL_TRAILER)[0];
  if (!(raw instanceof Uint8Array)) return undefined;
  try {
    return RenewRefusal.decode(raw);
  } catch {
    return undefined;
  }
}
