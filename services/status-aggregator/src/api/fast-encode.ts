// GetUpdateStatus at 10,000 nodes is mostly protobuf encoding of node insights that did not change
// since the last answer. The nodes' encodings are cached (ready-made `UpdateStatus.nodes` fields, all
// of them concatenated in one buffer) and spliced into the response: protobuf allows a message's
// fields in any order, so the status encoded without nodes followed by the node fields decodes to
// the same message. A response then costs one small status encoding and one copy of the cached bytes.
import { GetUpdateStatusResponse, NodeInsight, UpdateStatus, UpdateStatusServiceService } from "@lockstep/contracts";

const NODE_BYTES = Symbol("lockstep.nodeBytes");
const NODES_TAG = (5 << 3) | 2; // UpdateStatus.nodes, length-delimited
const STATUS_TAG = (1 << 3) | 2; // GetUpdateStatusResponse.status

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

/** One node as an encoded `UpdateStatus.nodes` field (tag, length, message). */
export function encodeNodeField(n: NodeInsight): Buffer {
  const body = NodeInsight.encode(n).finish();
  const length = varint(body.length);
  const out = Buffer.allocUnsafe(1 + length.length + body.length);
  out[0] = NODES_TAG;
  length.copy(out, 1);
  out.set(body, 1 + length.length);
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
  const out = Buffer.allocUnsafe(1 + prefix.length + length + rest.length);
  out[0] = STATUS_TAG;
  prefix.copy(out, 1);
  out.set(status, 1 + prefix.length);
  out.set(fields, 1 + prefix.length + status.length);
  out.set(rest, 1 + prefix.length + length);
  return out;
}

/** UpdateStatusService with the splicing serializer for GetUpdateStatus. */
export const updateStatusServiceDefinition = {
  ...UpdateStatusServiceService,
  getUpdateStatus: { ...UpdateStatusServiceService.getUpdateStatus, responseSerialize: encodeGetUpdateStatusResponse },
} as const;
