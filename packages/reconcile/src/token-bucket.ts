import type { Clock } from "./clock.js";

/** Options for {@link TokenBucket}. */
export interface TokenBucketOptions {
  /** Sustained rate, tokens per second. Default 10. */
  qps?: number;
  /** Bucket size: how many can pass at once after a quiet period. Default 100. */
  burst?: number;
}

/**
 * Overall rate limit shared by every key (a reservation-style token bucket, like Go's
 * `rate.Limiter.Reserve`): each call takes one token now and returns how long the caller must
 * wait for it. Tokens may go negative, so reservations queue up fairly behind each other.
 */
export class TokenBucket {
  readonly qps: number;
  readonly burst: number;
  private tokens: number;
  private last: number;

  constructor(
    private readonly clock: Clock,
    options: TokenBucketOptions = {},
  ) {
    this.qps = options.qps ?? 10;
    this.burst = options.burst ?? 100;
    if (!(this.qps > 0) || !(this.burst >= 1)) {
      throw new RangeError(`token bucket needs qps > 0 and burst >= 1 (got qps=${this.qps}, burst=${this.burst})`);
    }
    this.tokens = this.burst;
    this.last = clock.now();
  }

  /** Takes one token; returns the delay in ms until it is actually available (0 = now). */
  reserve(): number {
    const now = this.clock.now();
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.last) * this.qps) / 1000);
    this.last = now;
    this.tokens -= 1;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens * 1000) / this.qps);
  }
}
