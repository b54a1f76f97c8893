// GetUpdateStatus's node insights as encoded `UpdateStatus.nodes` fields (fast-encode.ts), all of
// them in one buffer in name order. A node's bytes are re-encoded only after its insight changed;
// the others are copied from the previous buffer by offset, run by run. No per-node objects are
// kept: at 10,000 nodes a Map of per-node views into the buffer was ~1 MiB of heap, and rebuilding
// it made 10,000 new views per answer after a change.

export class NodeFieldCache {
  /** The names the buffer holds, in order, and where each one's field starts (one more: the end). */
  private names: readonly string[] = [];
  private starts = new Uint32Array(1);
  private blob: Buffer = Buffer.alloc(0);
  private readonly stale = new Set<string>();

  /**
   * A node's insight changed (or it is new): its bytes are encoded again when next asked for. Only a
   * name the buffer holds is remembered (one not held is encoded anyway), so names of nodes that
   * come and go while nobody asks for the bytes do not pile up.
   */
  changed(name: string): void {
    if (this.holds(name)) this.stale.add(name);
  }

  /** Binary search of the held names (sorted as `bytes` requires). */
  private holds(name: string): boolean {
    let lo = 0;
    let hi = this.names.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.names[mid]! < name) lo = mid + 1;
      else hi = mid;
    }
    return lo < this.names.length && this.names[lo] === name;
  }

  /**
   * The fields of `names` (sorted by UTF-16 code units, as the view sorts them) in one buffer;
   * `encode` is called only for nodes not held or changed since. The same array as last time with
   * nothing changed returns the same buffer.
   */
  bytes(names: readonly string[], encode: (name: string) => Uint8Array): Buffer {
    if (names === this.names && this.stale.size === 0) return this.blob;
    const old = this.names;
    const oldStarts = this.starts;
    // from[i] >= 0: index in the old buffer; < 0: -1 - index in `fresh`.
    const from = new Int32Array(names.length);
    const fresh: Uint8Array[] = [];
    let total = 0;
    let j = 0;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      while (j < old.length && old[j]! < name) j++;
      if (j < old.length && old[j] === name && !this.stale.has(name)) {
        from[i] = j;
        total += oldStarts[j + 1]! - oldStarts[j]!;
      } else {
        const f = encode(name);
        from[i] = -1 - fresh.length;
        fresh.push(f);
        total += f.length;
      }
    }
    const out = Buffer.allocUnsafeSlow(total);
    const starts = new Uint32Array(names.length + 1);
    let at = 0;
    for (let i = 0; i < names.length; ) {
      starts[i] = at;
      const k = from[i]!;
      if (k < 0) {
        const f = fresh[-1 - k]!;
        out.set(f, at);
        at += f.length;
        i++;
        continue;
      }
      // A run of nodes that were consecutive in the old buffer too: one copy.
      let end = i + 1;
      while (end < names.length && from[end] === from[end - 1]! + 1) {
        starts[end] = at + oldStarts[from[end]!]! - oldStarts[k]!;
        end++;
      }
      const last = from[end - 1]!;
      this.blob.copy(out, at, oldStarts[k]!, oldStarts[last + 1]!);
      at += oldStarts[last + 1]! - oldStarts[k]!;
      i = end;
    }
    starts[names.length] = at;
    this.names = names;
    this.starts = starts;
    this.blob = out;
    this.stale.clear();
    return out;
  }
}
