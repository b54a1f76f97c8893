// The simulation clock: virtual time runs `timeScale` times faster than the wall clock, so a 2-hour
// upgrade at 60x takes 2 real minutes, while timestamps written to objects read like a real cluster's.
export interface SimClock {
  readonly timeScale: number;
  /** Virtual now. */
  now(): Date;
  /** Real milliseconds that `virtualMs` of simulated time take. */
  realMs(virtualMs: number): number;
}

export function scaledClock(timeScale: number, start: Date = new Date(), realNow: () => number = Date.now): SimClock {
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error(`time scale must be a positive number, got ${timeScale}`);
  const realStart = realNow();
  const virtualStart = start.getTime();
  return {
    timeScale,
    now: () => new Date(virtualStart + (realNow() - realStart) * timeScale),
    realMs: (virtualMs) => Math.max(0, virtualMs / timeScale),
  };
}

/** RFC 3339 with whole seconds, as the API server writes metav1.Time. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
