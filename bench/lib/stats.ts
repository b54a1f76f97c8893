// Small helpers shared by the benchmarks: percentiles, process usage, result records.
export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function summary(samples: number[]): { n: number; p50: number; p99: number; max: number } {
  const s = [...samples].sort((a, b) => a - b);
  return { n: s.length, p50: percentile(s, 50), p99: percentile(s, 99), max: s[s.length - 1] ?? NaN };
}

export interface BenchResult {
  bench: string;
  metric: string;
  value: number;
  unit: string;
  target?: string;
  ok?: boolean;
}

export function printResults(results: BenchResult[]): void {
  const rows = results.map((r) => [r.bench, r.metric, fmt(r.value), r.unit, r.target ?? "", r.ok === undefined ? "" : r.ok ? "MET" : "MISSED"]);
  const head = ["bench", "metric", "value", "unit", "target", ""];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 2 ? c.padStart(widths[i]!) : c.padEnd(widths[i]!))).join("  ").trimEnd();
  console.log(line(head));
  for (const r of rows) console.log(line(r));
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (Math.abs(v) >= 100) return v.toFixed(0);
  if (Math.abs(v) >= 1) return v.toFixed(2);
  return v.toFixed(4);
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` n times one after another; the latency of each run in ms. */
export async function timed(n: number, fn: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await fn();
    out.push(performance.now() - t);
  }
  return out;
}
