const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * Parses a Go-style duration ("250ms", "30s", "5m", "1h30m", "1.5s") into milliseconds.
 * A bare "0" is accepted. Returns undefined for anything else (no unit, negative, empty).
 */
export function parseDuration(text: string): number | undefined {
  const s = text.trim();
  if (s === "0") return 0;
  if (!/^(\d+(\.\d+)?(ms|s|m|h|d))+$/.test(s)) return undefined;
  let total = 0;
  for (const [, num, , unit] of s.matchAll(/(\d+(\.\d+)?)(ms|s|m|h|d)/g)) {
    total += Number(num) * UNIT_MS[unit!]!;
  }
  return Math.round(total);
}

/** Formats milliseconds compactly for logs and messages ("1500ms" → "1.5s", "90000" → "1m30s"). */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [["h", 3_600_000], ["m", 60_000]] as const) {
    if (rest >= size) {
      parts.push(`${Math.floor(rest / size)}${unit}`);
      rest %= size;
    }
  }
  if (rest > 0) parts.push(`${Number((rest / 1000).toFixed(3))}s`);
  return parts.join("");
}
