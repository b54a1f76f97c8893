// The watcher's heartbeat on the state plane: every interval, also when nothing changed, it rewrites
// `heartbeat.watcher`, so consumers can tell a live state plane from one whose writer died (every
// other key still looks valid then). It vouches only for what is true: it is withheld while any
// informer's watch has been down for longer than one interval (an API outage, a watch that keeps
// failing) and until this replica's earlier writes have landed, so a consumer's "time since the
// last heartbeat" bounds how far behind the API server its view can be (plus one interval).
import { encode, Heartbeat, HEARTBEAT_KEY } from "@lockstep/contracts";
import type { KV } from "@nats-io/kv";
import type { Logger } from "pino";

export type HeartbeatResult = "written" | "withheld" | "failed";

/** How soon a heartbeat withheld before the first one was written is tried again. */
const STARTUP_RETRY_MS = 100;
/** How soon a heartbeat whose write failed is tried again. */
const FAILED_RETRY_MS = 500;
/** How often heartbeats follow for a while after one that ended an outage (nextBeatIn). */
const RECOVERY_BEAT_MS = 1_000;

/**
 * Pure: how long to wait before the next beat. A beat that failed (NATS electing a stream leader)
 * is tried again soon: consumers count from the last beat they received, and waiting a whole
 * interval more would eat their margin. Right after the initial lists some watches are still being
 * opened: look again soon rather than leave consumers without a first heartbeat for a whole
 * interval. And for a while after an outage, beats come every second: consumers whose watches died
 * with a server resume a moment after this writer's first write, which reaches them as a replay
 * (stored before their watch began, so it vouches for nothing); the next one is the first they
 * count, and it must not be a whole interval away.
 */
export function nextBeatIn(result: HeartbeatResult, o: { intervalMs: number; everWritten: boolean; recovering: boolean }): number {
  if (result === "failed") return Math.min(FAILED_RETRY_MS, o.intervalMs);
  if (result === "withheld" && !o.everWritten) return Math.min(STARTUP_RETRY_MS, o.intervalMs);
  if (result === "written" && o.recovering) return Math.min(RECOVERY_BEAT_MS, o.intervalMs);
  return o.intervalMs;
}

/** Pure: the oldest time up to which every informer is current; undefined if one never was. */
export function viewCurrentAsOf(informers: ReadonlyArray<number | undefined>): number | undefined {
  let oldest = Infinity;
  for (const t of informers) {
    if (t === undefined) return undefined;
    if (t < oldest) oldest = t;
  }
  return Number.isFinite(oldest) ? oldest : undefined;
}

/**
 * Pure: whether a heartbeat may vouch for the view at `now`. A watch re-opened within one interval
 * (a server-side timeout, a dropped connection) is not an outage; one down for longer is.
 */
export function mayVouch(currentAsOf: number | undefined, now: number, intervalMs: number): boolean {
  return currentAsOf !== undefined && now - currentAsOf <= intervalMs;
}

export interface HeartbeatOptions {
  kv: Pick<KV, "put">;
  identity: string;
  intervalMs: number;
  /** The oldest time up to which every informer is current (StateSync.currentAsOf). */
  currentAsOf(now: number): number | undefined;
  /** Which watched resources are behind `since` (named in the log when the heartbeat is withheld). */
  behind?(since: number, now: number): string[];
  /** Resolves once the replica's pending state writes have landed. */
  flushed(): Promise<void>;
  logger: Logger;
  onResult?(result: HeartbeatResult): void;
  clock?: () => number;
}

export class HeartbeatWriter {
  private generation = 0;
  private vouching = true;
  private written = false;
  private readonly startedAt: Date;
  private readonly clock: () => number;

  constructor(private readonly o: HeartbeatOptions) {
    this.clock = o.clock ?? Date.now;
    this.startedAt = new Date(this.clock());
  }

  /** Beats at once, then every interval, one at a time, until the signal aborts. */
  start(signal: AbortSignal): Promise<void> {
    return (async () => {
      // Until when beats follow every second: two intervals after a write that ended an outage
      // (beats failed or withheld after one was written), time enough for consumers to resume.
      let recoveringUntil = -Infinity;
      let outageSince: number | undefined;
      while (!signal.aborted) {
        const result = await this.beat();
        if (result !== "written" && this.written) outageSince ??= this.clock();
        else if (result === "written" && outageSince !== undefined) {
          this.o.logger.info({ outageMs: this.clock() - outageSince }, "heartbeat written again after an outage");
          outageSince = undefined;
          recoveringUntil = this.clock() + 2 * this.o.intervalMs;
        }
        const wait = nextBeatIn(result, { intervalMs: this.o.intervalMs, everWritten: this.written, recovering: this.clock() < recoveringUntil });
        // The abort listener goes with its timer: one left per beat would pile up on the signal.
        await new Promise<void>((r) => {
          const done = () => {
            clearTimeout(t);
            signal.removeEventListener("abort", done);
            r();
          };
          const t = setTimeout(done, wait);
          signal.addEventListener("abort", done, { once: true });
        });
      }
    })();
  }

  /** One heartbeat, or the reason it was withheld. */
  async beat(): Promise<HeartbeatResult> {
    const result = await this.attempt();
    this.o.onResult?.(result);
    return result;
  }

  private async attempt(): Promise<HeartbeatResult> {
    const now = this.clock();
    const asOf = this.o.currentAsOf(now);
    if (!mayVouch(asOf, now, this.o.intervalMs)) {
      const starting = !this.written && now - this.startedAt.getTime() <= this.o.intervalMs;
      if (this.vouching && !starting) {
        const behind = this.o.behind?.(now - this.o.intervalMs, now);
        this.o.logger.warn({ currentAsOf: asOf === undefined ? undefined : new Date(asOf).toISOString(), intervalMs: this.o.intervalMs, behind }, "watches not current; heartbeat withheld");
        this.vouching = false;
      }
      return "withheld";
    }
    // Vouch only for writes that landed: a backlog that does not drain within an interval withholds it.
    let timer: NodeJS.Timeout | undefined;
    const drained = await Promise.race([
      this.o.flushed().then(() => true),
      new Promise<boolean>((r) => (timer = setTimeout(() => r(false), this.o.intervalMs))),
    ]);
    clearTimeout(timer);
    if (!drained) {
      if (this.vouching) this.o.logger.warn({ intervalMs: this.o.intervalMs }, "state writes not landing; heartbeat withheld");
      this.vouching = false;
      return "withheld";
    }
    const value = Heartbeat.fromPartial({
      generation: String(++this.generation),
      time: new Date(this.clock()),
      writer: this.o.identity,
      currentAsOf: new Date(asOf!),
      startedAt: this.startedAt,
    });
    try {
      await this.o.kv.put(HEARTBEAT_KEY, encode(Heartbeat, value));
    } catch (err) {
      this.o.logger.warn({ err: (err as Error).message }, "heartbeat write failed");
      return "failed";
    }
    if (!this.vouching) this.o.logger.info({ generation: value.generation }, "watches current; heartbeat resumed");
    this.vouching = true;
    this.written = true;
    return "written";
  }
}
