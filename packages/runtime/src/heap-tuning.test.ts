// What V8_OPTIMIZE_FOR_SIZE rests on: the flag set after start still changes how full collections
// treat fragmented old-space pages (a node upgrade that stops honouring it fails here).
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { OPTIMIZE_FOR_SIZE_FLAG } from "./heap-tuning.js";

// Fills the old space, frees every other object, then collects twice: the committed old space left.
const FRAGMENT = `
const v8 = require("node:v8");
if (process.argv[1]) v8.setFlagsFromString(process.argv[1]);
let keep = [];
for (let i = 0; i < 400000; i++) keep.push({ a: i, b: [i, i + 1], c: "s" + i });
gc(); gc();
for (let i = 0; i < keep.length; i += 2) keep[i] = null;
keep = keep.filter((x) => x !== null);
gc(); gc();
const old = v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space");
process.stdout.write(JSON.stringify({ committed: old.space_size, used: old.space_used_size, kept: keep.length }));
`;

function fragmentedOldSpace(flag: string): { committed: number; used: number } {
  return JSON.parse(execFileSync(process.execPath, ["--expose-gc", "-e", FRAGMENT, flag], { encoding: "utf8" })) as { committed: number; used: number };
}

describe("optimizeHeapForSize", () => {
  it("makes full collections give back fragmented old-space pages when set after start", () => {
    const normal = fragmentedOldSpace("");
    const small = fragmentedOldSpace(OPTIMIZE_FOR_SIZE_FLAG);
    // Same live data either way; only what V8 keeps committed around it differs.
    expect(Math.abs(small.used - normal.used)).toBeLessThan(4 << 20);
    expect(small.committed).toBeLessThan(normal.committed - (4 << 20));
  }, 60_000);
});
