// V8's optimize-for-size mode for a running service (V8_OPTIMIZE_FOR_SIZE). With it, every full
// collection compacts old-space pages that are a fifth or more free and gives them back; by default
// V8 keeps fragmented pages for later allocation, so a service whose old space churns (the
// status-aggregator at a fast rollout) holds more memory than it uses. Set after start on purpose: on
// node's command line the flag also caps the young generation at 1 MiB semi-spaces, whatever
// --max-semi-space-size says (several times the scavenges), and NODE_OPTIONS refuses it. V8 reads it
// at each collection (heap-tuning.test.ts shows the effect).
import { setFlagsFromString } from "node:v8";

export const OPTIMIZE_FOR_SIZE_FLAG = "--optimize-for-size";

/** Turns V8's optimize-for-size mode on for the rest of the process. */
export function optimizeHeapForSize(): void {
  setFlagsFromString(OPTIMIZE_FOR_SIZE_FLAG);
}
