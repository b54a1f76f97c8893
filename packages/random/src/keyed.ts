// Draws that depend on a key rather than on call order: a restarted simulator, or one whose events
// interleave differently, still takes the same decision for the same (seed, key).
import { createHash } from "node:crypto";

/** A deterministic number in [0, 1) for (seed, key). */
export function keyedRandom(seed: number, key: string): number {
  const h = createHash("sha256").update(`${seed}\0${key}`).digest();
  return h.readUInt32BE(0) / 4294967296;
}

/** Hex digest of the inputs, for stable names (rendered configs, image digests, uids). */
export function stableHex(len: number, ...parts: Array<string | number>): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, len);
}
