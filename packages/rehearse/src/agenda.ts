// The rehearsal's virtual clock: keyed jobs (one pending per key, a newer one replaces it, as
// cluster-sim's TimerWheel) taken in order of due time, then of scheduling. Nothing waits on the wall
// clock: the caller jumps time to the next job's due instant.
export interface Job {
  key: string;
  due: number;
  run: () => void;
}

export class Agenda {
  private readonly jobs = new Map<string, { due: number; seq: number; run: () => void }>();
  private seq = 0;

  /** `atMs` is rounded up to a whole millisecond: a Date truncates, and a job due at x.4 ms must find itself due. */
  schedule(key: string, atMs: number, run: () => void): void {
    this.jobs.set(key, { due: Math.ceil(atMs), seq: this.seq++, run });
  }

  cancel(key: string): void {
    this.jobs.delete(key);
  }

  get size(): number {
    return this.jobs.size;
  }

  has(key: string): boolean {
    return this.jobs.has(key);
  }

  /** Removes and returns the earliest job (ties: the one scheduled first). */
  take(): Job | undefined {
    let best: [string, { due: number; seq: number; run: () => void }] | undefined;
    for (const e of this.jobs) if (!best || e[1].due < best[1].due || (e[1].due === best[1].due && e[1].seq < best[1].seq)) best = e;
    if (!best) return undefined;
    this.jobs.delete(best[0]);
    return { key: best[0], due: best[1].due, run: best[1].run };
  }

  /** Due time of the earliest job, without taking it. */
  peek(): number | undefined {
    let due: number | undefined;
    for (const j of this.jobs.values()) if (due === undefined || j.due < due) due = j.due;
    return due;
  }
}
