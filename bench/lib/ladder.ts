// The system bench's rate ladder, pure: how long each step of the time scale is measured, which
// steps run, and the capacity the steps show.

export interface LadderStep {
  /** The simulator's time scale (1 = a real update's pace). */
  scale: number;
  /** Node changes per second carried while the step was measured. */
  rate: number;
  /** API write → gRPC-visible insight p99, ms. */
  p99: number;
}

export interface WindowOptions {
  /** Real seconds measured at 1x. */
  oneX: number;
  /** Simulated seconds measured at higher scales (the window shrinks as the scale grows)... */
  simulated: number;
  /** ...but never below this many real seconds. */
  min: number;
}

/** Real seconds to measure a step at `scale`. */
export function windowSeconds(scale: number, o: WindowOptions): number {
  if (scale <= 1) return o.oneX;
  return Math.max(o.min, Math.min(o.oneX, o.simulated / scale));
}

/**
 * Whether to run the step at `scale`: every step until one misses the target; after a miss only the
 * scales always reported (1x and 10x carry targets, 60x is the stress figure), since the others
 * would miss too.
 */
export function runsStep(scale: number, missedBefore: boolean, alwaysReported: readonly number[]): boolean {
  return !missedBefore || alwaysReported.includes(scale);
}

/**
 * The highest rate sustained within the target: the best rate among the steps that met it, counting
 * only the steps below the first that missed (a rate above a miss is not sustained by the system).
 * undefined when the first step already missed.
 */
export function capacityOf(steps: LadderStep[], targetMs: number): LadderStep | undefined {
  let best: LadderStep | undefined;
  for (const s of [...steps].sort((a, b) => a.scale - b.scale)) {
    if (!(s.p99 <= targetMs)) break;
    if (!best || s.rate > best.rate) best = s;
  }
  return best;
}
