/** Options for {@link ExponentialBackoff}. */
export interface BackoffOptions {
  /** Delay after the first failure, in ms. Default 5. */
  baseMs?: number;
  /** Upper bound for any delay, in ms. Default 30 000. */
  maxMs?: number;
}

/**
 * Per-key exponential backoff: base, 2·base, 4·base, … capped at maxMs.
 * The count is per key and only reset by {@link forget} (on success, requeue-after or terminal error).
 */
export class ExponentialBackoff {
  readonly baseMs: number;
  readonly maxMs: number;
  private readonly counts = new Map<string, number>();

  constructor(options: BackoffOptions = {}) {
    this.baseMs = options.baseMs ?? 5;
    this.maxMs = options.maxMs ?? 30_000;
    if (!(this.baseMs > 0) || !(this.maxMs >= this.baseMs)) {
      throw new RangeError(`backoff needs 0 < baseMs <= maxMs (got baseMs=${this.baseMs}, maxMs=${this.maxMs})`);
    }
  }

  /** Records one more failure of `key` and returns how long to wait before retrying it. */
  next(key: string): number {
    const n = this.counts.get(key) ?? 0;
    this.counts.set(key, n + 1);
    // 2^n overflows to Infinity long after it passes any sane cap; Math.min handles that.
    return Math.min(this.maxMs, this.baseMs * 2 ** n);
  }

  /** Consecutive failures recorded for `key`. */
  failures(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  /** Clears the failure count of `key`. */
  forget(key: string): void {
    this.counts.delete(key);
  }
}
