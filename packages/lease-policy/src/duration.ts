const UNIT_SECONDS: Record<string, number> = { h: 3600, m: 60, s: 1 };

/**
 * Parses a Go-style duration as Kubernetes objects write them ("8h", "1h30m", "90s"), into whole
 * seconds. Returns an error message instead of throwing; zero and negative durations are invalid.
 */
export function parseDuration(text: string): { seconds: number } | { error: string } {
  const trimmed = text.trim();
  if (trimmed === "") return { error: "duration is empty" };
  const re = /(\d+(?:\.\d+)?)(h|m|s)/gy;
  let total = 0;
  let consumed = 0;
  for (let match = re.exec(trimmed); match !== null; match = re.exec(trimmed)) {
    total += Number(match[1]) * (UNIT_SECONDS[match[2] as string] as number);
    consumed = re.lastIndex;
  }
  if (consumed !== trimmed.length) return { error: `invalid duration "${text}" (expected e.g. 8h, 1h30m, 90s)` };
  if (!(total > 0)) return { error: `duration "${text}" must be positive` };
  return { seconds: Math.round(total) };
}
