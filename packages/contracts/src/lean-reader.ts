// A BinaryReader for ts-proto's generated decoders that allocates less. Lockstep's messages repeat
// the same short strings thousands of times (pool names, versions, condition types, reasons), and a
// 10,000-node GetUpdateStatus answer or a state plane of 10,000 NodeStates decoded one by one made a
// fresh string (plus a scratch array) for each of them, and a BigInt plus a string for every
// timestamp's seconds. Garbage collection, not decoding, was most of the client's time.
import { BinaryReader } from "@bufbuild/protobuf/wire";

/** Strings up to this many bytes are looked up in the intern table (longer ones rarely repeat). */
const INTERN_MAX_BYTES = 48;
const SLOTS = 4096; // power of two; direct-mapped, so memory stays bounded whatever is decoded
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
    if (len > INTERN_MAX_BYTES || end > this.len) {
      this.pos = start;
      return super.string(strict);
    }
    const buf = this.bytesView;
    let hash = 0x811c9dc5 ^ len;
    for (let i = at; i < end; i++) {
      const b = buf[i]!;
      if (b > 0x7f) {
        this.pos = start;
        return super.string(strict);
      }
      hash = Math.imul(hash ^ b, 0x01000193);
    }
    this.pos = end;
    const slot = (hash >>> 0) & (SLOTS - 1);
    const cached = slotText[slot];
    if (cached !== undefined && cached.length === len && sameAscii(cached, buf, at)) return cached;
    const text = len === 0 ? "" : asciiText(buf, at, end);
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
