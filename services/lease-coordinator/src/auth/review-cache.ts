// A small time-bounded cache of review answers (TokenReview, SubjectAccessReview). Only definite
// answers are cached; a failed review is never remembered, so the next call asks again. Pure apart
// from the injected clock.

export interface ReviewCacheOptions {
  ttlMs: number;
  /** Entries kept at most; the oldest go first. */
  maxEntries?: number;
  clock?: () => number;
}

export class ReviewCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly clock: () => number;
  private readonly maxEntries: number;

  constructor(private readonly o: ReviewCacheOptions) {
    this.clock = o.clock ?? Date.now;
    this.maxEntries = o.maxEntries ?? 10_000;
  }

  get(key: string): V | undefined {
    const e = this.entries.get(key);
    if (e === undefined) return undefined;
    if (e.until <= this.clock()) {
      this.entries.delete(key);
      return undefined;
    }
    return e.value;
  }

  set(key: string, value: V): void {
    if (this.o.ttlMs <= 0) return;
    this.entries.delete(key); // re-inserted last, so Map order stays oldest-first
    this.entries.set(key, { value, until: this.clock() + this.o.ttlMs });
    while (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
  }

  get size(): number {
    return this.entries.size;
  }
}
