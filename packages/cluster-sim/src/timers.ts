// One timer heap for the whole simulation (kube-api.md §17.2): jobs are keyed, at most one pending job
// per key (a newer schedule replaces the old one), and a single setTimeout tracks the earliest due job.
interface Job {
  key: string;
  due: number;
  seq: number;
  run: () => void;
}

export class TimerWheel {
  private heap: Job[] = [];
  private readonly live = new Map<string, Job>();
  private timer: NodeJS.Timeout | undefined;
  private armedFor = Infinity;
  private seq = 0;
  private stopped = false;

  constructor(private readonly realNow: () => number = Date.now) {}

  get size(): number {
    return this.live.size;
  }

  has(key: string): boolean {
    return this.live.has(key);
  }

  /** Runs `run` after `delayMs` real milliseconds, replacing any job pending under `key`. */
  schedule(key: string, delayMs: number, run: () => void): void {
    if (this.stopped) return;
    const job: Job = { key, due: this.realNow() + Math.max(0, delayMs), seq: this.seq++, run };
    this.live.set(key, job);
    this.push(job);
    this.arm();
  }

  cancel(key: string): void {
    this.live.delete(key);
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.heap = [];
    this.live.clear();
  }

  private arm(): void {
    const top = this.peekLive();
    if (!top) return;
    if (top.due >= this.armedFor && this.timer) return;
    clearTimeout(this.timer);
    this.armedFor = top.due;
    this.timer = setTimeout(() => this.fire(), Math.max(0, top.due - this.realNow()));
  }

  private fire(): void {
    this.timer = undefined;
    this.armedFor = Infinity;
    const now = this.realNow();
    // Bounded batch per tick so a burst of due jobs cannot starve I/O callbacks.
    for (let i = 0; i < 2000; i++) {
      const top = this.peekLive();
      if (!top || top.due > now) break;
      this.pop();
      this.live.delete(top.key);
      try {
        top.run();
      } catch {
        // Jobs handle their own errors; a throwing job must not stop the wheel.
      }
    }
    if (!this.stopped) this.arm();
  }

  /** The earliest job that has not been replaced or cancelled (stale heap entries are dropped). */
  private peekLive(): Job | undefined {
    while (this.heap.length) {
      const top = this.heap[0]!;
      if (this.live.get(top.key) === top) return top;
      this.pop();
    }
    return undefined;
  }

  private push(j: Job): void {
    const h = this.heap;
    h.push(j);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!less(h[i]!, h[p]!)) break;
      [h[i], h[p]] = [h[p]!, h[i]!];
      i = p;
    }
  }

  private pop(): void {
    const h = this.heap;
    const last = h.pop()!;
    if (!h.length) return;
    h[0] = last;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < h.length && less(h[l]!, h[m]!)) m = l;
      if (r < h.length && less(h[r]!, h[m]!)) m = r;
      if (m === i) break;
      [h[i], h[m]] = [h[m]!, h[i]!];
      i = m;
    }
  }
}

const less = (a: Job, b: Job) => a.due < b.due || (a.due === b.due && a.seq < b.seq);
