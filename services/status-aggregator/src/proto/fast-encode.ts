// GetUpdateStatus at 10,000 nodes is mostly protobuf encoding of node insights that did not change
// since the last answer. The aggregator's snapshot holds each node's encoding (a ready-made
// `UpdateStatus.nodes` field) and the status encoded without nodes; they are spliced into the
// response: protobuf allows a message's fields in any order, so the status followed by the node
// fields decodes to the same message. A response then costs one copy of bytes already encoded.
// Field numbers are never written here: the keys come from the generated encoders themselves, so a
// renumbered field in the .proto changes these bytes with the next `npm run generate`.
import type { handleUnaryCall } from "@grpc/grpc-js";
import { type GetUpdateStatusRequest, GetUpdateStatusResponse, NodeInsight, UpdateStatus, UpdateStatusServiceService, type UpdateStatusServiceServer } from "@lockstep/contracts";

/** An UpdateStatus with every field at its default: the generated encoder writes nothing for it. */
const NO_FIELDS = UpdateStatus.fromPartial({});
// The keys the generated encoders write before `UpdateStatus.nodes` and `GetUpdateStatusResponse.status`.
const NODES_KEY = lengthDelimitedKey(UpdateStatus.encode({ ...NO_FIELDS, nodes: [NodeInsight.fromPartial({})] }).finish(), "UpdateStatus.nodes");
const STATUS_KEY = lengthDelimitedKey(GetUpdateStatusResponse.encode({ status: NO_FIELDS }).finish(), "GetUpdateStatusResponse.status");

/**
 * The key of a length-delimited field, from the generated encoder's bytes for a message whose only
 * field is that one holding an empty sub-message: the key, then a zero length.
 */
export function lengthDelimitedKey(encoded: Uint8Array, field: string): Uint8Array {
  const key = encoded.subarray(0, -1);
  const oneVarint = key.length > 0 && key.every((b, i) => (i === key.length - 1 ? b < 0x80 : b >= 0x80));
  if (!oneVarint || encoded[encoded.length - 1] !== 0 || (key[0]! & 7) !== 2) {
    throw new Error(`${field}: the generated encoder does not write one length-delimited field for an empty message`);
  }
  return key;
}

export function varint(n: number): Buffer {
  const out: number[] = [];
  let v = n;
  while (v > 127) {
    out.push((v & 0x7f) | 0x80);
    v = Math.floor(v / 128);
  }
  out.push(v);
  return Buffer.from(out);
}

/**
 * One node as an encoded `UpdateStatus.nodes` field (key, length, message). Kept in a small pooled
 * Buffer: thousands of them are held at once, and one ArrayBuffer each costs the GC dearly.
 */
export function encodeNodeField(n: NodeInsight): Buffer {
  const body = NodeInsight.encode(n).finish();
  const length = varint(body.length);
  const out = Buffer.allocUnsafe(NODES_KEY.length + length.length + body.length);
  out.set(NODES_KEY, 0);
  length.copy(out, NODES_KEY.length);
  out.set(body, NODES_KEY.length + length.length);
  return out;
}

/**
 * What a GetUpdateStatus answer is made of, encoded ahead (the aggregator's snapshot): the status
 * without nodes, each node's `UpdateStatus.nodes` field (encodeNodeField) in name order, and the
 * response's freshness field (empty when unknown).
 */
export interface EncodedStatus {
  readonly statusBytes: Uint8Array;
  /** The node fields in name order, in chunks (concatenated, they are `UpdateStatus.nodes`). */
  readonly fieldChunks: readonly (readonly Uint8Array[])[];
  readonly fieldsLength: number;
  readonly freshnessBytes: Uint8Array;
}

/** What the GetUpdateStatus handler answers with: the snapshot itself, serialized below. */
export interface StatusAnswer {
  encoded: EncodedStatus;
  omitNodes: boolean;
}

/**
 * The GetUpdateStatusResponse bytes: the status field holding the status followed by the node
 * fields (protobuf fields may come in any order), then the freshness field.
 */
export function encodeStatusAnswer({ encoded: e, omitNodes }: StatusAnswer): Buffer {
  const nodes = omitNodes ? 0 : e.fieldsLength;
  const length = e.statusBytes.length + nodes;
  const prefix = varint(length);
  const head = STATUS_KEY.length + prefix.length;
  const out = Buffer.allocUnsafe(head + length + e.freshnessBytes.length);
  out.set(STATUS_KEY, 0);
  prefix.copy(out, STATUS_KEY.length);
  out.set(e.statusBytes, head);
  let at = head + e.statusBytes.length;
  if (!omitNodes) {
    for (const chunk of e.fieldChunks) {
      for (const f of chunk) {
        out.set(f, at);
        at += f.length;
      }
    }
  }
  out.set(e.freshnessBytes, at);
  return out;
}

type GetUpdateStatus = typeof UpdateStatusServiceService.getUpdateStatus;

/** UpdateStatusService whose GetUpdateStatus answers a StatusAnswer (a snapshot), serialized by encodeStatusAnswer. */
export const updateStatusServiceDefinition = {
  ...UpdateStatusServiceService,
  getUpdateStatus: { ...UpdateStatusServiceService.getUpdateStatus, responseSerialize: encodeStatusAnswer } as Omit<GetUpdateStatus, "responseSerialize"> & {
    responseSerialize: (answer: StatusAnswer) => Buffer;
  },
} as const;

/** The handlers of updateStatusServiceDefinition. */
export interface UpdateStatusServer {
  getUpdateStatus: handleUnaryCall<GetUpdateStatusRequest, StatusAnswer>;
  listNodeInsights: UpdateStatusServiceServer["listNodeInsights"];
  renderStatus: UpdateStatusServiceServer["renderStatus"];
  watchUpdateStatus: UpdateStatusServiceServer["watchUpdateStatus"];
}
