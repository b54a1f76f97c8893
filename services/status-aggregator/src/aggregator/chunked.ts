// A persistent array in fixed-size chunks: a copy with a few entries replaced copies only their
// chunks and the short list of chunks, and shares the rest. A snapshot per flush at 10,000 nodes
// then costs a few hundred pointers, not two 10,000-entry arrays (160 KB of garbage per flush).

const CHUNK = 256;

export class Chunked<T> {
  private constructor(
    readonly chunks: readonly (readonly T[])[],
    readonly length: number,
  ) {}

  static of<T>(items: readonly T[]): Chunked<T> {
    const chunks: T[][] = [];
    for (let i = 0; i < items.length; i += CHUNK) chunks.push(items.slice(i, i + CHUNK));
    return new Chunked(chunks, items.length);
  }

  at(i: number): T {
    return this.chunks[Math.floor(i / CHUNK)]![i % CHUNK]!;
  }

  /** A copy with the entries at the given indices replaced; chunks without one are shared. */
  with(updates: ReadonlyArray<readonly [number, T]>): Chunked<T> {
    if (updates.length === 0) return this;
    const chunks = this.chunks.slice();
    const copied = new Set<number>();
    for (const [i, value] of updates) {
      const c = Math.floor(i / CHUNK);
      if (!copied.has(c)) {
        chunks[c] = chunks[c]!.slice();
        copied.add(c);
      }
      (chunks[c] as T[])[i % CHUNK] = value;
    }
    return new Chunked(chunks, this.length);
  }

  toArray(): T[] {
    return this.chunks.flat() as T[];
  }
}
