// A BinaryReader for ts-proto's generated decoders that allocates less. Lockstep's messages repeat
// the same short strings thousands of times (pool names, versions, condition types, reasons), and a
// 10,000-node GetUpdateStatus answer or a state plane of 10,000 NodeStates decoded one by one made a
// fresh string (plus a scratch array) for each of them, and a BigInt plus a string for every
// timestamp's seconds. Garbage collection, not decoding, was most of the client's time.
import { BinaryReader } from "@bufbuild/protobuf/wire";

/** Strings up to this many bytes are looked up in the intern table (longer ones rarely repeat). */
const INTERN_MAX_BYTES = 48;
const SLOT_BITS = 12; // 4,096 slots, direct-mapped: memory stays bounded whatever is decoded
const SLOTS = 1 << SLOT_BITS;
const slotText: (string | undefined)[] = new Array(SLOTS).fill(undefined);
const secondsText = new Map<number, string>();
const SECONDS_CACHE_MAX = 1024;

/**
 * Decodes like BinaryReader, with two changes that do not alter any decoded value: short ASCII
 * strings come from a process-wide intern table (strings are immutable, so sharing one is safe), and
 * small non-negative int64 values skip the BigInt (ts-proto's forceLong=string calls
 * `int64().toString()`, and a string is a valid int64() result).
 */
export class LeanReader extends BinaryReader {
  // BinaryReader keeps its buffer private; a second reference to the same bytes.
  private readonly bytesView: Uint8Array;

  constructor(bytes: Uint8Array) {
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
    const cached = slotText[slot];
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
    slotText[slot] = text;
    return text;
  }

  override int64(): bigint | string {
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
        return numberText(value);
      }
      scale *= 128;
    }
    return super.int64();
  }
}

function sameAscii(text: string, buf: Uint8Array, at: number): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) !== buf[at + i]) return false;
  return true;
}

function asciiText(buf: Uint8Array, start: number, end: number): string {
  return String.fromCharCode.apply(null, buf.subarray(start, end) as unknown as number[]);
}

/** Timestamps in one answer mostly share a few seconds values. */
function numberText(value: number): string {
  let text = secondsText.get(value);
  if (text === undefined) {
    text = String(value);
    if (secondsText.size >= SECONDS_CACHE_MAX) secondsText.clear();
    secondsText.set(value, text);
  }
  return text;
}

/** Decodes bytes with a LeanReader: the same result as `codec.decode(bytes)`, with less garbage. */
export function leanDecode<T>(codec: { decode(input: BinaryReader | Uint8Array, length?: number): T }, bytes: Uint8Array): T {
  return codec.decode(new LeanReader(bytes));
}
