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
  return Buffer.concat([Buffer.from([NODES_TAG]), varint(body.length), body]);
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
  const out = Buffer.allocUnsafe(1 + prefix.length + length);
  out[0] = STATUS_TAG;
  prefix.copy(out, 1);
  out.set(status, 1 + prefix.length);
  out.set(fields, 1 + prefix.length + status.length);
  return out;
}

/**
 * The encodings of a name-ordered node list as one buffer, reusing unchanged nodes' bytes. `cache`
 * maps a node name to its field bytes; afterwards every entry is a view into the returned buffer, so
 * the previous buffer is released and each node's bytes are held once. The list may be of anything
 * that names a node (`nameOf`) and can be encoded (`encode`, called only for nodes not cached).
 */
export function concatNodeFields<T = NodeInsight>(
  nodes: readonly T[],
  cache: Map<string, Uint8Array>,
  encode: (n: T) => Uint8Array = encodeNodeField as unknown as (n: T) => Uint8Array,
  nameOf: (n: T) => string = (n) => (n as NodeInsight).name,
): Buffer {
  const parts: Uint8Array[] = new Array(nodes.length);
  let total = 0;
  for (let i = 0; i < nodes.length; i++) {
    const n = nodes[i]!;
    let f = cache.get(nameOf(n));
    if (!f) f = encode(n);
    parts[i] = f;
    total += f.length;
  }
  const out = Buffer.allocUnsafeSlow(total);
  let at = 0;
  for (let i = 0; i < nodes.length; i++) {
    const f = parts[i]!;
    out.set(f, at);
    cache.set(nameOf(nodes[i]!), out.subarray(at, at + f.length));
    at += f.length;
  }
  return out;
}

/** UpdateStatusService with the splicing serializer for GetUpdateStatus. */
export const updateStatusServiceDefinition = {
  ...UpdateStatusServiceService,
  getUpdateStatus: { ...UpdateStatusServiceService.getUpdateStatus, responseSerialize: encodeGetUpdateStatusResponse },
} as const;
