// GetUpdateStatus at 10,000 nodes is mostly protobuf encoding of node insights that did not change
// since the last answer. The nodes' encodings are cached (ready-made `UpdateStatus.nodes` fields, all
// of them concatenated in one buffer) and spliced into the response: protobuf allows a message's
// fields in any order, so the status encoded without nodes followed by the node fields decodes to
// the same message. A response then costs one small status encoding and one copy of the cached bytes.
// Field numbers are never written here: the keys come from the generated encoders themselves, so a
// renumbered field in the .proto changes these bytes with the next `npm run generate`.
import { GetUpdateStatusResponse, NodeInsight, UpdateStatus, UpdateStatusServiceService } from "@lockstep/contracts";

const NODE_BYTES = Symbol("lockstep.nodeBytes");
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

type WithNodeBytes = GetUpdateStatusResponse & { [NODE_BYTES]?: Uint8Array };

/**
 * Attaches pre-encoded node fields (concatenated `UpdateStatus.nodes` fields, see encodeNodeField)
 * to a response whose status has no nodes.
 */
export function withNodeFields(res: GetUpdateStatusResponse, fields: Uint8Array | readonly Uint8Array[]): GetUpdateStatusResponse {
  const bytes = fields instanceof Uint8Array ? fields : Buffer.concat(fields as Uint8Array[]);
  Object.defineProperty(res, NODE_BYTES, { value: bytes, enumerable: false });
  return res;
}

export function encodeGetUpdateStatusResponse(res: GetUpdateStatusResponse): Buffer {
  const fields = (res as WithNodeBytes)[NODE_BYTES];
  if (!fields || !res.status) return Buffer.from(GetUpdateStatusResponse.encode(res).finish());
  const status = UpdateStatus.encode(res.status).finish();
  const length = status.length + fields.length;
  const prefix = varint(length);
  // Any other field of the response (freshness) after the status: protobuf fields may come in any order.
  const rest = res.freshness ? GetUpdateStatusResponse.encode({ status: undefined, freshness: res.freshness }).finish() : new Uint8Array(0);
  const head = STATUS_KEY.length + prefix.length;
  const out = Buffer.allocUnsafe(head + length + rest.length);
  out.set(STATUS_KEY, 0);
  prefix.copy(out, STATUS_KEY.length);
  out.set(status, head);
  out.set(fields, head + status.length);
  out.set(rest, head + length);
  return out;
}

/** UpdateStatusService with the splicing serializer for GetUpdateStatus. */
export const updateStatusServiceDefinition = {
  ...UpdateStatusServiceService,
  getUpdateStatus: { ...UpdateStatusServiceService.getUpdateStatus, responseSerialize: encodeGetUpdateStatusResponse },
} as const;
