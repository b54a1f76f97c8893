// The aggregator as a Runnable: connect to NATS, make sure the planes exist, feed the state plane
// into the aggregator, act (flush, publish) only after the watcher's meta.synced marker, refresh
// watchers periodically, and drain on stop.
import { closeBus, connectBus, ensureEventStream, ensureStateBucket, EventPublisher, StateCache, type BusConnectionOptions, type StateProjections } from "@lockstep/bus";
import { Events, type StateKindName } from "@lockstep/contracts";
import { StateFreshness, type Readiness, type Runnable, type StateFreshnessOptions } from "@lockstep/runtime";
import type { Logger } from "pino";
import type { Aggregator } from "./aggregator.js";
import { projectNode } from "./node-projection.js";

/** The state kinds the aggregator reads. */
export const AGGREGATOR_KINDS: StateKindName[] = [
  "node",
  "pool",
  "machineConfig",
  "clusterVersion",
  "clusterOperator",
  "lease",
  "bootImagePolicy",
  "nodeDisruptionPolicy",
];

/** What the cache keeps of the kinds the aggregator reads only a part of (see node-projection.ts). */
export const AGGREGATOR_PROJECTIONS = { node: projectNode } satisfies StateProjections;

export interface AggregatorRunnableOptions {
  aggregator: Aggregator;
  bus: BusConnectionOptions;
  logger: Logger;
  readiness?: Readiness;
  registry?: StateFreshnessOptions["registry"];
  /** Beyond this age the view is reported stale in the answers (STATE_MAX_AGE). Default 15 s. */
  stateMaxAgeMs?: number;
  /** Event source name in EventMeta. */
  source?: string;
  watchRefreshMs: number;
}

export function aggregatorRunnable(o: AggregatorRunnableOptions): Runnable {
  return {
    name: "status-aggregator",
    async start(signal) {
      const ready = o.readiness?.flag("state-synced", false, "waiting for the state plane and meta.synced");
      const nc = await connectBus(o.bus);
      let cache: StateCache<typeof AGGREGATOR_PROJECTIONS> | undefined;
      let refresh: NodeJS.Timeout | undefined;
      try {
        await ensureEventStream(nc);
        const publisher = new EventPublisher(nc, o.source ?? "status-aggregator");
        o.aggregator.attachPublisher(async (event, id) => {
          await publisher.publish(Events.insightChanged, event, { id });
        });
        const kv = await ensureStateBucket(nc);
        cache = new StateCache(kv, { logger: o.logger, kinds: AGGREGATOR_KINDS, project: AGGREGATOR_PROJECTIONS });
        cache.onChange((c) => o.aggregator.apply(c));
        // The age goes out in every answer and the gauge. Deliberately not a readiness check here:
        // a not-ready aggregator drops out of its Service, and `lockstep status` could then not say
        // that the view is stale, the one thing a user most needs to hear while the watcher is away.
        const freshness = new StateFreshness({ source: cache, maxAgeMs: o.stateMaxAgeMs ?? 15_000, registry: o.registry, logger: o.logger });
        cache.onHeartbeat(() => freshness.check());
        freshness.start(signal);
        o.aggregator.attachFreshness(() => freshness.current());
        await cache.start();
        await cache.whenSynced(signal);
        o.aggregator.markSynced();
        ready?.set(true);
        o.logger.info({ nodes: o.aggregator.view.nodeCount }, "status view synced");
        refresh = setInterval(() => o.aggregator.refreshWatchers(), o.watchRefreshMs);
        await new Promise<void>((r) => (signal.aborted ? r() : signal.addEventListener("abort", () => r(), { once: true })));
      } catch (err) {
        if (!signal.aborted) throw err;
      } finally {
        if (refresh) clearInterval(refresh);
        cache?.stop();
        o.aggregator.stop();
        await Promise.race([o.aggregator.drain(), new Promise((r) => setTimeout(r, 2_000))]);
        o.aggregator.stopPublishing();
        await closeBus(nc);
      }
    },
  };
}
