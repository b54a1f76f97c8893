// What every actor's I/O loop shares: the view, the writer, one timer wheel, the clock, settings.
import type { SimClock } from "./clock.js";
import type { KubeWriter } from "./kube.js";
import type { NodeLeaser } from "./leaser.js";
import type { ClusterSpec } from "./spec.js";
import type { TimerWheel } from "./timers.js";
import type { Stage, Timing } from "./timing.js";
import { stageSeconds } from "./timing.js";
import type { World } from "./world.js";

export interface SimLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export const silentSimLogger: SimLogger = { info: () => undefined, warn: () => undefined };

export interface Failures {
  /** Nodes whose daemon fails to apply their next config. */
  degrade: Set<string>;
  /** Nodes that never come back from their next reboot. */
  neverReturns: Set<string>;
  /** Random failure probabilities, drawn per node and target config. */
  random: { drainBlocked: number; neverReturns: number; degrade: number };
}

/** Whether the MCO asks Lockstep for a lease before an update ("cooperate") or, as the real one, never does ("enforced"). */
export type LeaseMode = "cooperate" | "enforced";

export interface SimContext {
  world: World;
  writer: KubeWriter;
  /** The MCO's writes: as its ServiceAccounts in the enforced mode, else the simulator's writer. */
  mco: { controller: KubeWriter; daemon: KubeWriter };
  leases: LeaseMode;
  wheel: TimerWheel;
  clock: SimClock;
  timing: Timing;
  seed: number;
  spec: ClusterSpec;
  leaser: NodeLeaser;
  failures: Failures;
  log: SimLogger;
  rebootingState: boolean;
  poolRoles: Record<string, string[]>;
  /** Nodes whose update lease was preempted: their daemon stays stopped until the lease is held again. */
  halted: Set<string>;
  /** Lets a halted node's daemon go on (the update lease is held again). */
  resume(node: string): void;
}

/** Real milliseconds until a stage fires, from its simulated duration + jitter. */
export function stageDelayMs(ctx: SimContext, s: Stage, key: string): number {
  return ctx.clock.realMs(stageSeconds(s, ctx.seed, key) * 1000);
}

export { apiMessage, errText } from "./errors.js";
