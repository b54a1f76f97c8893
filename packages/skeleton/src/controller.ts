// A controller: a side part of a state consumer that converges something (usually a Kubernetes
// status) from the consumer's view. It shares the consumer's connection, cache and freshness gate
// instead of keeping its own, so it never acts on a view older than STATE_MAX_AGE. The skeleton
// gives each controller one work queue: changes of its kinds enqueue keys, every key is enqueued
// after meta.synced, and reconcile runs only while the view is fresh (and, if `leaderOnly`, only on
// the leader); what was held is reconciled again once fresh (or on becoming leader).
import type { StateCache, StateChange, StateProjections } from "@lockstep/bus";
import type { StateKindName } from "@lockstep/contracts";
import { WorkQueue, type ReconcileResult } from "@lockstep/reconcile";
import type { Logger } from "@lockstep/runtime";
import type { LeaderGate } from "./leader.js";
import type { StatePlane } from "./state-plane.js";

/** What a reconcile is handed. `signal` aborts when the consumer stops. */
export interface ControllerContext<P extends StateProjections = never> {
  cache: StateCache<P>;
  signal: AbortSignal;
}

export interface Controller<P extends StateProjections = never> {
  /** Names its queue in logs. */
  name: string;
  /** The state kinds it reads; the consumer's cache loads them too. */
  kinds: readonly StateKindName[];
  /** The keys a change of one of its kinds makes due. Default: the one key `name` (a whole pass). */
  keysFor?(change: StateChange): Iterable<string>;
  /** Every key, reconciled after meta.synced, once fresh again and on becoming leader. Default: `name`. */
  allKeys?(cache: StateCache<P>): Iterable<string>;
  /** Only the leader reconciles (a writer). Without a leader gate this replica is the leader. */
  leaderOnly?: boolean;
  /** Converges one key; throw to retry with backoff. */
  reconcile(key: string, ctx: ControllerContext<P>): Promise<ReconcileResult> | ReconcileResult;
}

/** The kinds a cache must load for a consumer and its controllers. */
export function unionKinds(kinds: readonly StateKindName[], controllers: readonly Controller<any>[]): StateKindName[] {
  return [...new Set([...kinds, ...controllers.flatMap((c) => c.kinds)])];
}

/** One controller's queue and gates, wired to a plane before its cache loads. */
export class ControllerRunner<P extends StateProjections = never> {
  private readonly queue: WorkQueue;
  /** Keys refused while stale, made due again once fresh. */
  private readonly held = new Set<string>();
  private readonly kinds: ReadonlySet<StateKindName>;
  private readonly logger: Logger;
  private synced = false;

  constructor(
    private readonly c: Controller<P>,
    private readonly plane: StatePlane<P>,
    private readonly o: { logger: Logger; leader?: LeaderGate },
  ) {
    this.kinds = new Set(c.kinds);
    const logger = (this.logger = o.logger.child({ controller: c.name }));
    this.queue = new WorkQueue((key, signal) => this.reconcile(key, signal), {
      name: c.name,
      onError: (key, err, failures, retryInMs) => logger.warn({ key, err, failures, retryInMs }, "controller reconcile failed; retrying"),
      onTerminalError: (key, err) => logger.error({ key, err }, "controller reconcile failed terminally"),
    });
    plane.cache.onChange((change) => {
      if (!this.kinds.has(change.parsed.kind)) return;
      for (const key of c.keysFor ? c.keysFor(change) : [c.name]) this.queue.add(key);
    });
    plane.freshness.onChange((f) => f.fresh && this.release());
    if (c.leaderOnly) o.leader?.onChange((leading) => leading && this.release());
  }

  /** After meta.synced: reconcile every key, then keep converging until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    this.synced = true;
    this.addAll();
    await this.queue.run(signal);
  }

  private release(): void {
    if (!this.synced) return;
    for (const key of this.held) this.queue.add(key);
    this.held.clear();
    this.addAll();
  }

  private addAll(): void {
    for (const key of this.c.allKeys ? this.c.allKeys(this.plane.cache) : [this.c.name]) this.queue.add(key);
  }

  private reconcile(key: string, signal: AbortSignal): Promise<ReconcileResult> | ReconcileResult {
    // Not held: a new leader reconciles every key when its term begins.
    if (this.c.leaderOnly && this.o.leader && !this.o.leader.isLeader()) return;
    if (!this.plane.freshness.fresh) {
      this.held.add(key);
      // Makes sure the turn to stale is recorded, so the turn back to fresh is told and releases it.
      this.plane.freshness.check();
      this.logger.debug({ key }, "controller holds a key while the view is stale");
      return;
    }
    return this.c.reconcile(key, { cache: this.plane.cache, signal });
  }
}
