// The cluster's own pace: per pool, how long one node's update took in its last rollout, read from
// the snapshot (nodes of the pool that came back Ready since the newest update started, at their
// pace). Pure; without enough evidence the simulator's defaults stand.
import { DEFAULT_TIMING, type KubeObject, type Timing } from "@lockstep/cluster-sim";

export interface PoolPace {
  /** Seconds per node update, as observed; undefined when the snapshot cannot tell. */
  nodeSeconds?: number;
  source: "history" | "simulator";
  /** How many nodes the figure is read from. */
  samples: number;
}

const mean = (s: { duration: number; jitter: number }) => s.duration + s.jitter / 2;

/** Mean seconds of one node's update with `t` (drain of a node with no blocked pods). */
export function defaultNodeSeconds(t: Timing = DEFAULT_TIMING): number {
  return mean(t.mcdStart) + mean(t.mcdRequestDrain) + mean(t.drainAttempt) + mean(t.mcdReboot) + mean(t.boot) + mean(t.mcdComplete) + mean(t.uncordon);
}

function readyTransition(n: KubeObject): number | undefined {
  const c = (n.status?.conditions ?? []).find((x: { type?: string }) => x.type === "Ready");
  const t = c?.status === "True" ? Date.parse(c.lastTransitionTime ?? "") : NaN;
  return Number.isFinite(t) ? t : undefined;
}

/**
 * Consecutive Ready transitions of a pool's nodes since `since` are spaced one node update apart
 * per unit of maxUnavailable; the median gap times the concurrency is the node's update time.
 * Needs three nodes (two gaps) to say anything.
 */
export function poolPace(members: readonly KubeObject[], since: number | undefined, concurrency: number, until = Infinity): PoolPace {
  if (since === undefined) return { source: "simulator", samples: 0 };
  // Transitions after `until` (a suspect clock, clock.ts) say nothing about the pace.
  const times = members.map(readyTransition).filter((t): t is number => t !== undefined && t >= since && t <= until).sort((a, b) => a - b);
  if (times.length < 3) return { source: "simulator", samples: times.length };
  const gaps = times.slice(1).map((t, i) => (t - times[i]!) / 1000).sort((a, b) => a - b);
  const median = gaps[Math.floor(gaps.length / 2)]!;
  if (!(median > 0)) return { source: "simulator", samples: times.length };
  return { nodeSeconds: median * Math.max(1, concurrency), source: "history", samples: times.length };
}

/** Timing whose mean node update takes `nodeSeconds`: the boot stage (the long, variable one) absorbs the difference. */
export function timingForPace(base: Timing, pace: PoolPace): Timing {
  if (pace.nodeSeconds === undefined) return base;
  const others = defaultNodeSeconds(base) - mean(base.boot);
  const bootMean = Math.max(1, pace.nodeSeconds - others);
  const jitter = Math.min(base.boot.jitter, bootMean);
  return { ...base, boot: { duration: bootMean - jitter / 2, jitter } };
}
