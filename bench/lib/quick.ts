// BENCH_QUICK=1 runs every benchmark small: the figures mean nothing, but each bench runs end to end
// and prints every line it prints at full size (bench/run-all.test.ts checks that, cheaply, in CI).
export const QUICK = process.env.BENCH_QUICK === "1";

/** A size from the environment variable `name`, else the full or the quick default. */
export function sized(name: string, full: number, quick: number): number {
  const v = process.env[name];
  if (v === undefined || v === "") return QUICK ? quick : full;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name}: expected a number >= 0, got ${JSON.stringify(v)}`);
  return n;
}
