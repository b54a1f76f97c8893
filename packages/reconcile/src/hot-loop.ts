import { HotLoopError } from "./errors.js";

/** Options for {@link HotLoopGuard}. */
export interface HotLoopGuardOptions {
  /** The n-th identical write in a row is refused. Default 3. */
  threshold?: number;
  /** Called for every refused write, e.g. to log it or set a Degraded condition. */
  onHotLoop?: (error: HotLoopError) => void;
}

/**
 * Detects fighting writers. A reconciler records every write it is about to make as
 * (key, fingerprint); if the same fingerprint comes up `threshold` times in a row for one key,
 * our previous writes did not stick, so the write is refused instead of made again.
 * A different write resets the count; so does {@link reset}, which a reconciler should call when it
 * finds observed == desired (nothing to write), because that means the last write stuck.
 */
export class HotLoopGuard {
  readonly threshold: number;
  private readonly onHotLoop: ((error: HotLoopError) => void) | undefined;
  private readonly last = new Map<string, { fingerprint: string; count: number }>();

  constructor(options: HotLoopGuardOptions = {}) {
    this.threshold = options.threshold ?? 3;
    if (!Number.isInteger(this.threshold) || this.threshold < 2) {
      throw new RangeError(`hot-loop threshold must be an integer >= 2 (got ${this.threshold})`);
    }
    this.onHotLoop = options.onHotLoop;
  }

  /**
   * Records an intended write and says whether to make it. Returns false (and reports) when this is
   * the threshold-th or later identical write in a row for `key`.
   */
  check(key: string, fingerprint: string): boolean {
    return this.record(key, fingerprint) === undefined;
  }

  /** Like {@link check}, but throws the {@link HotLoopError} instead of returning false. */
  assert(key: string, fingerprint: string): void {
    const error = this.record(key, fingerprint);
    if (error) throw error;
  }

  /** How many times in a row the last recorded write for `key` was attempted. */
  count(key: string): number {
    return this.last.get(key)?.count ?? 0;
  }

  /** Forgets `key`: call when observed matches desired, or when the object is deleted. */
  reset(key: string): void {
    this.last.delete(key);
  }

  private record(key: string, fingerprint: string): HotLoopError | undefined {
    const prev = this.last.get(key);
    const count = prev && prev.fingerprint === fingerprint ? prev.count + 1 : 1;
    this.last.set(key, { fingerprint, count });
    if (count < this.threshold) return undefined;
    const error = new HotLoopError(key, fingerprint, count);
    try {
      this.onHotLoop?.(error);
    } catch {
      // A faulty reporting hook must not turn a refused write into a crash.
    }
    return error;
  }
}

/**
 * A stable fingerprint of a write body: JSON with object keys sorted, so two equal patches built
 * in a different key order compare equal.
 */
export function writeFingerprint(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v === "bigint") return `${v}n`;
    if (v && typeof v === "object" && !Array.isArray(v)) {
      const sorted: Record<string, unknown> = {};
      for (const k of Object.keys(v).sort()) sorted[k] = (v as Record<string, unknown>)[k];
      return sorted;
    }
    return v;
  }) ?? "undefined";
}
