/**
 * Time source and timers used by the queue, injected so tests can drive time by hand
 * (ManualClock) or with vitest fake timers (systemClock reads the global timers at call time).
 */
export interface Clock {
  /** Milliseconds since an arbitrary epoch; only differences matter. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

/** Opaque timer handle returned by {@link Clock.setTimeout}. */
export type TimerHandle = unknown;

/** The real clock. Calls the globals lazily so vitest fake timers also apply to it. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    // A pending retry must never keep a stopping process alive.
    t.unref?.();
    return t;
  },
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

interface ManualTimer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A clock that only moves when told to. Timers fire synchronously inside {@link advance},
 * in due-time order (ties in creation order).
 */
export class ManualClock implements Clock {
  private current: number;
  private nextId = 1;
  private timers: ManualTimer[] = [];

  constructor(start = 0) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer: ManualTimer = { id: this.nextId++, at: this.current + Math.max(0, ms), fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimeout(handle: TimerHandle): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Number of timers not yet fired. */
  get pending(): number {
    return this.timers.length;
  }

  /** Due time of the earliest pending timer, if any. */
  nextDue(): number | undefined {
    return this.timers.reduce<number | undefined>((min, t) => (min === undefined || t.at < min ? t.at : min), undefined);
  }

  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers
        .filter((t) => t.at <= target)
        .sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = due.at;
      due.fn();
    }
    this.current = target;
  }
}
