// Counts events into fixed time buckets so a benchmark can ask, afterwards, for the best rate any
// window of a given length reached within a phase (a mean over a phase hides a saturated burst).

export class RateMeter {
  private readonly buckets: number[] = [];
  private events = 0;

  constructor(
    private readonly bucketMs = 100,
    private readonly now: () => number = () => performance.now(),
    private readonly t0 = now(),
  ) {}

  /** Records n events at the current time. */
  count(n = 1): void {
    const i = Math.floor((this.now() - this.t0) / this.bucketMs);
    while (this.buckets.length <= i) this.buckets.push(0);
    this.buckets[i]! += n;
    this.events += n;
  }

  /** Events recorded so far. */
  get total(): number {
    return this.events;
  }

  /** The current time, for marking a phase's start or end. */
  mark(): number {
    return this.now();
  }

  /**
   * The highest rate (events/s) over any window of windowMs whose buckets lie within [from, to).
   * A phase shorter than the window gives its mean rate over its whole length.
   */
  best(windowMs: number, from: number, to: number): number {
    const first = Math.max(0, Math.ceil((from - this.t0) / this.bucketMs));
    const end = Math.max(first, Math.floor((to - this.t0) / this.bucketMs));
    const len = Math.max(1, Math.round(windowMs / this.bucketMs));
    const at = (i: number) => this.buckets[i] ?? 0;
    if (end - first <= len) {
      let sum = 0;
      for (let i = first; i < end; i++) sum += at(i);
      return end > first ? sum / (((end - first) * this.bucketMs) / 1000) : 0;
    }
    let sum = 0;
    for (let i = first; i < first + len; i++) sum += at(i);
    let max = sum;
    for (let i = first + len; i < end; i++) {
      sum += at(i) - at(i - len);
      if (sum > max) max = sum;
    }
    return max / ((len * this.bucketMs) / 1000);
  }
}
