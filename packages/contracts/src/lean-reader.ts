// A BinaryReader for ts-proto's generated decoders that allocates less. Lockstep's messages repeat
// the same short strings thousands of times (pool names, versions, condition types, reasons), and a
// 10,000-node GetUpdateStatus answer or a state plane of 10,000 NodeStates decoded one by one made a
// fresh string (plus a scratch array) for each of them, and a BigInt plus a string for every
// timestamp's seconds. Garbage collection, not decoding, was most of the client's time.
import { BinaryReader } from "@bufbuild/protobuf/wire";
import { Timestamp } from "./gen/google/protobuf/timestamp.js";

/**
 * Strings up to this many bytes are looked up in the intern table (longer ones rarely repeat). Not
 * less than 80: the MCO's drain request names on every node ("uncordon-rendered-<pool>-<32 hex>",
 * 57 bytes for worker) were 18,000 separate copies in a 10,000-node aggregator's heap at 48.
 */
const INTERN_MAX_BYTES = 80;
const SLOT_BITS = 12; // 4,096 slots, direct-mapped: memory stays bounded whatever is decoded
const SLOTS = 1 << SLOT_BITS;
const SECONDS_CACHE_MAX = 1024;

/**
 * The texts a LeanReader shares between decodes: short ASCII strings and int64 values as text.
 * Sharing pays across many messages, so one table belongs to a long-lived decoding owner (a state
 * cache, a gRPC client class), which passes it to each reader; nothing in this module is global.
 */
export class InternTable {
  readonly slots: (string | undefined)[] = new Array(SLOTS).fill(undefined);
  private readonly numbers = new Map<number, string>();

  /** Timestamps in one answer mostly share a few seconds values. */
  numberText(value: number): string {
    let text = this.numbers.get(value);
    if (text === undefined) {
      text = String(value);
      if (this.numbers.size >= SECONDS_CACHE_MAX) this.numbers.clear();
      this.numbers.set(value, text);
    }
    return text;
  }
}

/**
 * Decodes like BinaryReader, with two changes that do not alter any decoded value: short ASCII
 * strings come from the owner's intern table (strings are immutable, so sharing one is safe), and
 * small non-negative int64 values skip the BigInt when the generated decoders turn int64() into text
 * anyway (INT64_AS_TEXT: checked on the generated code, not assumed from the generator's options).
 */
export class LeanReader extends BinaryReader {
  // BinaryReader keeps its buffer private; a second reference to the same bytes.
  private readonly bytesView: Uint8Array;

  constructor(
    bytes: Uint8Array,
    private readonly table: InternTable,
  ) {
    super(bytes);
    this.bytesView = bytes;
  }

  override string(strict?: boolean): string {
    const start = this.pos;
    const len = this.uint32();
    const at = this.pos;
    const end = at + len;
    if (len === 0 || len > INTERN_MAX_BYTES || end > this.len) {
      this.pos = start;
      return super.string(strict);
    }
    const buf = this.bytesView;
    // A few sampled bytes, not all of them: hashing every byte cost more than the strings it saved.
    // The comparison below is exact, so a poor spread only costs misses, never a wrong string.
    const hash = Math.imul(len ^ (buf[at]! << 8) ^ (buf[end - 1]! << 16) ^ (buf[at + (len >> 1)]! << 24) ^ buf[at + (len >> 2)]!, 0x9e3779b1);
    const slot = hash >>> (32 - SLOT_BITS);
    const slots = this.table.slots;
    const cached = slots[slot];
    if (cached !== undefined && cached.length === len && sameAscii(cached, buf, at)) {
      this.pos = end;
      return cached;
    }
    for (let i = at; i < end; i++) {
      if (buf[i]! > 0x7f) {
        this.pos = start;
        return super.string(strict);
      }
    }
    this.pos = end;
    const text = asciiText(buf, at, end);
    slots[slot] = text;
    return text;
  }

  override int64(): bigint | string {
    if (!INT64_AS_TEXT) return super.int64();
    const buf = this.bytesView;
    let pos = this.pos;
    let value = 0;
    let scale = 1;
    // Up to 7 varint bytes (49 bits) is exact in a double; anything else takes the BigInt path.
    for (let i = 0; i < 7 && pos < this.len; i++) {
      const b = buf[pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        this.pos = pos;
        return this.table.numberText(value);
      }
      scale *= 128;
    }
    return super.int64();
  }
}

/** A reader whose int64() gives the value's text, as LeanReader's fast path does. */
class TextInt64Reader extends BinaryReader {
  override int64(): bigint | string {
    return String(super.int64());
  }
}

/**
 * Whether a generated decoder given text for an int64 stores exactly what it stores given the
 * bigint (ts-proto's forceLong=string calls `int64().toString()`). If a regeneration with other
 * options breaks that, LeanReader returns BinaryReader's bigint and decodes as before, only slower.
 */
export const INT64_AS_TEXT: boolean = (() => {
  const bytes = Timestamp.encode({ seconds: "1700000000", nanos: 5 }).finish();
  return Timestamp.decode(new TextInt64Reader(bytes)).seconds === Timestamp.decode(bytes).seconds;
})();

function sameAscii(text: string, buf: Uint8Array, at: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== buf[at + i]) return false;
  return true;
}

function asciiText(buf: Uint8Array, start: number, end: number): string {
  return String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
}

/** Decodes bytes with a LeanReader: the same result as `codec.decode(bytes)`, with less garbage. */
export function leanDecode<T>(codec: { decode(input: BinaryReader | Uint8Array, length?: number): T }, bytes: Uint8Array, table: InternTable): T {
  return codec.decode(new LeanReader(bytes, table));
}
