// Seeded randomness (kube-api.md §17.2): every random choice in the simulator comes from here, so a
// scenario run with the same seed takes the same decisions.
import { createHash } from "node:crypto";

export type Rng = () => number;

/** mulberry32: a small, fast, seedable PRNG returning floats in [0, 1). */
export function seededRng(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A deterministic number in [0, 1) for (seed, key): independent of call order, so restarts agree. */
export function keyedRandom(seed: number, key: string): number {
  const h = createHash("sha256").update(`${seed}\0${key}`).digest();
  return h.readUInt32BE(0) / 4294967296;
}

/** Hex digest of the inputs, for stable names (rendered configs, image digests, uids). */
export function stableHex(len: number, ...parts: Array<string | number>): string {
  return createHash("sha256").update(parts.join("\0")).digest("hex").slice(0, len);
}
