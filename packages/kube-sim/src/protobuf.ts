// Request bodies in Kubernetes' protobuf encoding (`application/vnd.kubernetes.protobuf`), for the
// few kinds clients send that way to kube-sim: client-go typed clients built by kubectl's factory
// (helm's release storage) write Secrets and ConfigMaps, and DeleteOptions, as protobuf. The
// envelope is "k8s\0" + runtime.Unknown{typeMeta, raw}; raw is the kind's message, decoded here by
// field number into the JSON shape. Responses stay JSON (those clients accept it).
import { badRequest, unsupportedMediaType } from "./errors.js";

type FieldType = "string" | "bytes" | "int" | "bool" | "time" | "stringMap" | "bytesMap" | Message;
interface Field {
  name: string;
  type: FieldType;
  repeated?: boolean;
}
type Message = { [num: number]: Field };

const time = "time" as const;
const ownerReference: Message = {
  1: { name: "kind", type: "string" },
  3: { name: "name", type: "string" },
  4: { name: "uid", type: "string" },
  5: { name: "apiVersion", type: "string" },
  6: { name: "controller", type: "bool" },
  7: { name: "blockOwnerDeletion", type: "bool" },
};
const objectMeta: Message = {
  1: { name: "name", type: "string" },
  2: { name: "generateName", type: "string" },
  3: { name: "namespace", type: "string" },
  5: { name: "uid", type: "string" },
  6: { name: "resourceVersion", type: "string" },
  7: { name: "generation", type: "int" },
  8: { name: "creationTimestamp", type: time },
  9: { name: "deletionTimestamp", type: time },
  10: { name: "deletionGracePeriodSeconds", type: "int" },
  11: { name: "labels", type: "stringMap" },
  12: { name: "annotations", type: "stringMap" },
  13: { name: "ownerReferences", type: ownerReference, repeated: true },
  14: { name: "finalizers", type: "string", repeated: true },
};
const MESSAGES: Record<string, Message> = {
  "v1/Secret": {
    1: { name: "metadata", type: objectMeta },
    2: { name: "data", type: "bytesMap" },
    3: { name: "type", type: "string" },
    4: { name: "stringData", type: "stringMap" },
    5: { name: "immutable", type: "bool" },
  },
  "v1/ConfigMap": {
    1: { name: "metadata", type: objectMeta },
    2: { name: "data", type: "stringMap" },
    3: { name: "binaryData", type: "bytesMap" },
    4: { name: "immutable", type: "bool" },
  },
  "v1/DeleteOptions": {
    1: { name: "gracePeriodSeconds", type: "int" },
    2: { name: "preconditions", type: { 1: { name: "uid", type: "string" }, 2: { name: "resourceVersion", type: "string" } } },
    3: { name: "orphanDependents", type: "bool" },
    4: { name: "propagationPolicy", type: "string" },
    5: { name: "dryRun", type: "string", repeated: true },
  },
};

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

class Reader {
  pos = 0;
  constructor(readonly buf: Buffer) {}
  done(): boolean {
    return this.pos >= this.buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.buf.length) throw badRequest("protobuf: truncated varint");
      const b = this.buf[this.pos++]!;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
      if (shift > 63n) throw badRequest("protobuf: varint too long");
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    if (this.pos + len > this.buf.length) throw badRequest("protobuf: truncated field");
    const b = this.buf.subarray(this.pos, this.pos + len);
    this.pos += len;
    return b;
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 1) this.pos += 8;
    else if (wire === 2) this.bytes();
    else if (wire === 5) this.pos += 4;
    else throw badRequest(`protobuf: unsupported wire type ${wire}`);
  }
}

/** Fields by number → [wire type, raw value] in order. */
function fields(buf: Buffer): Array<[number, number, bigint | Buffer]> {
  const r = new Reader(buf);
  const out: Array<[number, number, bigint | Buffer]> = [];
  while (!r.done()) {
    const key = Number(r.varint());
    const num = key >>> 3;
    const wire = key & 7;
    if (wire === 0) out.push([num, wire, r.varint()]);
    else if (wire === 2) out.push([num, wire, r.bytes()]);
    else r.skip(wire);
  }
  return out;
}

function decodeTime(buf: Buffer): string {
  let seconds = 0n;
  for (const [num, , v] of fields(buf)) if (num === 1 && typeof v === "bigint") seconds = v;
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

function decodeMap(buf: Buffer, bytes: boolean): [string, string] {
  let key = "";
  let value = "";
  for (const [num, , v] of fields(buf)) {
    if (!Buffer.isBuffer(v)) continue;
    if (num === 1) key = v.toString("utf8");
    if (num === 2) value = bytes ? v.toString("base64") : v.toString("utf8");
  }
  return [key, value];
}

function decodeMessage(buf: Buffer, m: Message): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [num, wire, v] of fields(buf)) {
    const f = m[num];
    if (!f) continue;
    let value: unknown;
    if (f.type === "int") value = wire === 0 ? Number(BigInt.asIntN(64, v as bigint)) : undefined;
    else if (f.type === "bool") value = wire === 0 ? v !== 0n : undefined;
    else if (!Buffer.isBuffer(v)) continue;
    else if (f.type === "string") value = v.toString("utf8");
    else if (f.type === "bytes") value = v.toString("base64");
    else if (f.type === "time") value = decodeTime(v);
    else if (f.type === "stringMap" || f.type === "bytesMap") {
      const [k, x] = decodeMap(v, f.type === "bytesMap");
      out[f.name] = { ...((out[f.name] as object) ?? {}), [k]: x };
      continue;
    } else value = decodeMessage(v, f.type);
    if (value === undefined) continue;
    if (f.repeated) out[f.name] = [...((out[f.name] as unknown[]) ?? []), value];
    else out[f.name] = value;
  }
  return out;
}

/** Decodes a Kubernetes protobuf body into its JSON form; 415 for kinds kube-sim does not decode. */
export function decodeProtobuf(buf: Buffer): Record<string, unknown> {
  if (buf.length < 4 || !buf.subarray(0, 4).equals(MAGIC)) throw badRequest("protobuf: missing the k8s\\0 prefix");
  let apiVersion = "";
  let kind = "";
  let raw: Buffer | undefined;
  for (const [num, , v] of fields(buf.subarray(4))) {
    if (!Buffer.isBuffer(v)) continue;
    if (num === 1) {
      for (const [n, , x] of fields(v)) {
        if (!Buffer.isBuffer(x)) continue;
        if (n === 1) apiVersion = x.toString("utf8");
        if (n === 2) kind = x.toString("utf8");
      }
    } else if (num === 2) raw = v;
  }
  // DeleteOptions travel as meta.k8s.io/v1 or as v1 (the group the request is for).
  const key = kind === "DeleteOptions" ? "v1/DeleteOptions" : `${apiVersion}/${kind}`;
  const m = MESSAGES[key];
  if (!m) throw unsupportedMediaType(`the protobuf encoding of ${apiVersion} ${kind} is not decoded by kube-sim; send JSON`);
  return { apiVersion, kind, ...decodeMessage(raw ?? Buffer.alloc(0), m) };
}
