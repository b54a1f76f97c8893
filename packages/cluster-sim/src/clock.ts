// The simulation clock. Simulated time runs `timeScale` times faster than the wall clock (a 2-hour
// upgrade at 60x takes 2 real minutes), but only as durations: every instant the simulator writes to
// the API server or reads back from it is a wall-clock one. Lockstep's services measure stamps
// against their own wall clock, so a stamp in the future would show as a negative duration.
// The rule (README "Time"): simulated instant s maps to wall time t0 + (s - t0) / timeScale, t0 being
// the simulation's start; a stamp written "now" is the wall-clock now, and the generated past
// (history, settled conditions) is compressed by the same map.
export interface SimClock {
  readonly timeScale: number;
  /** Wall-clock now: the instant to stamp on a write, and to compare read-back stamps with. */
  now(): Date;
  /** Real milliseconds that `virtualMs` of simulated time take. */
  realMs(virtualMs: number): number;
  /** Simulated milliseconds that `realMs` of wall-clock time stand for. */
  virtualMs(realMs: number): number;
}

export function scaledClock(timeScale: number, realNow: () => number = Date.now): SimClock {
  if (!(timeScale > 0) || !Number.isFinite(timeScale)) throw new Error(`time scale must be a positive number, got ${timeScale}`);
  return {
    timeScale,
    now: () => new Date(realNow()),
    realMs: (virtualMs) => Math.max(0, virtualMs / timeScale),
    virtualMs: (realMs) => Math.max(0, realMs * timeScale),
  };
}

/** RFC 3339 with whole seconds, as the API server writes metav1.Time. */
export function rfc3339(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, "Z");
}
