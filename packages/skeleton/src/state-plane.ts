// The start-up every state-plane consumer shares, written once: connect to NATS, make sure both
// planes exist, load the state cache, watch its freshness, wait for the watcher's meta.synced, then
// hand over to the service until stopped; on the way out stop the cache, drain, close. Controllers
// (controller.ts) ride along: they share the connection, the cache and its freshness gate.
import { closeBus, connectBus, ensureEventStream, ensureStateBucket, StateCache, type BusConnectionOptions, type StateProjections } from "@lockstep/bus";
import type { StateKindName } from "@lockstep/contracts";
import { abortedPromise, StateFreshness, type Logger, type Readiness, type Runnable, type StateFreshnessOptions } from "@lockstep/runtime";
import { ControllerRunner, unionKinds, type Controller } from "./controller.js";
import type { LeaderGate } from "./leader.js";
import type { Planes, StatePlane } from "./plane.js";

export type { BusConnection, Planes, StateBucket, StatePlane } from "./plane.js";

/** Connects, ensures the event stream and the state bucket, runs `use`, and always closes. */
export async function withPlanes<T>(bus: BusConnectionOptions, use: (planes: Planes) => Promise<T>): Promise<T> {
  const nc = await connectBus(bus);
  try {
    await ensureEventStream(nc, { replicas: bus.replicas });
    const kv = await ensureStateBucket(nc, { replicas: bus.replicas });
    return await use({ nc, kv });
  } finally {
    await closeBus(nc);
  }
}

/**
 * What `wire` may return: the service's core (what serve, drain and the service's handlers use),
 * with the controllers that need parts of it. Those read only kinds the consumer lists in `kinds`.
 */
export interface Wired<P extends StateProjections = never> {
  controllers?: readonly Controller<P>[];
}

export interface StateConsumerOptions<P extends StateProjections = never, W extends Wired<P> | void = void> {
  /** The Runnable's name (the service's name). */
  name: string;
  bus: BusConnectionOptions;
  logger: Logger;
  /** The state kinds the service reads (meta and heartbeat are always watched). */
  kinds: readonly StateKindName[];
  /** What the cache keeps of the large kinds (only what the rules read). */
  project?: P;
  readiness?: Readiness;
  /** Why the service is not ready before meta.synced (the `state-synced` readiness flag). */
  notSyncedReason: string;
  registry?: StateFreshnessOptions["registry"];
  /** How old the view may be before it is stale (STATE_MAX_AGE). Default 15 s. */
  stateMaxAgeMs?: number;
  /**
   * Whether a stale view makes the service not ready (default true). The status-aggregator says no:
   * it must stay reachable to tell users that its view is stale.
   */
  staleIsNotReady?: boolean;
  /** Before the cache loads: subscribe to its changes, build what reads it and return it (the core). */
  wire?(plane: StatePlane<P>, signal: AbortSignal): W | Promise<W>;
  /**
   * After the cache is loaded and meta.synced seen (the service is ready): act until `signal`
   * aborts, then stop what it started. Default: wait for the abort.
   */
  serve?(plane: StatePlane<P>, signal: AbortSignal, wired: W): Promise<void>;
  /** After the cache stopped, before the connection closes: let in-flight publishes finish. Not wired: wire failed. */
  drain?(wired: W | undefined): Promise<void>;
  /** Side parts converging from this view, each on its own queue, served beside `serve`. */
  controllers?: readonly Controller<P>[];
  /** Which replica may run `leaderOnly` controllers; none: this one. */
  leader?: LeaderGate;
}

/**
 * A state-plane consumer as a Runnable. Nothing is acted on before the watcher's meta.synced
 * (DESIGN.md, state plane); a failure before or while serving fails the Runnable unless it was
 * being stopped.
 */
export function stateConsumer<P extends StateProjections = never, W extends Wired<P> | void = void>(o: StateConsumerOptions<P, W>): Runnable {
  return {
    name: o.name,
    async start(signal) {
      const ready = o.readiness?.flag("state-synced", false, o.notSyncedReason);
      let cache: StateCache<P> | undefined;
      let freshness: StateFreshness | undefined;
      let wired: W | undefined;
      try {
        await withPlanes(o.bus, async ({ nc, kv }) => {
          try {
            const controllers = o.controllers ?? [];
            const kinds = unionKinds(o.kinds, controllers);
            cache = new StateCache<P>(kv, { kinds, logger: o.logger, ...(o.project ? { project: o.project } : {}) });
            const readiness = o.staleIsNotReady === false ? undefined : o.readiness;
            freshness = new StateFreshness({ source: cache, maxAgeMs: o.stateMaxAgeMs ?? 15_000, readiness, registry: o.registry, logger: o.logger });
            cache.onHeartbeat(() => freshness!.check());
            freshness.start(signal);
            const plane: StatePlane<P> = { nc, kv, cache, freshness };
            const runnerOptions = { logger: o.logger, leader: o.leader, registry: o.registry };
            const runners = controllers.map((c) => new ControllerRunner(c, plane, runnerOptions));
            wired = (await o.wire?.(plane, signal)) as W;
            const loaded = new Set(kinds);
            for (const c of (wired as Wired<P> | undefined)?.controllers ?? []) {
              const missing = c.kinds.filter((k) => !loaded.has(k));
              if (missing.length > 0) throw new Error(`controller ${c.name} reads ${missing.join(", ")}, which the consumer does not load: list them in its kinds`);
              runners.push(new ControllerRunner(c, plane, runnerOptions));
            }
            await cache.start();
            await cache.whenSynced(signal);
            ready?.set(true);
            // The controllers stop with the service, or when `serve` fails (then nothing aborts `signal`).
            const serving = new AbortController();
            const stop = () => serving.abort();
            signal.addEventListener("abort", stop, { once: true });
            const controlling = runners.map((r) => r.run(serving.signal));
            try {
              await (o.serve ? o.serve(plane, signal, wired as W) : abortedPromise(signal));
            } finally {
              stop();
              signal.removeEventListener("abort", stop);
              await Promise.all(controlling);
            }
          } finally {
            freshness?.stop();
            cache?.stop();
            await o.drain?.(wired);
          }
        });
      } catch (err) {
        if (!signal.aborted) throw err;
      }
    },
  };
}
