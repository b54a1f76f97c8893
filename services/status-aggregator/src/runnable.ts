// The aggregator as a Runnable (the skeleton's state-plane consumer): the state plane feeds the
// aggregator; it acts (flushes, publishes) only after the watcher's meta.synced marker; watchers
// are refreshed periodically; on stop, facts in flight get a bounded drain. Its writers that read
// the state plane (the NodeDisruptionPolicy status) are controllers of this consumer.
import { EventPublisher, type BusConnectionOptions, type StateProjections } from "@lockstep/bus";
import { Events, type StateKindName } from "@lockstep/contracts";
import { abortedPromise, type Readiness, type Runnable, type StateFreshnessOptions } from "@lockstep/runtime";
import { stateConsumer, type Controller, type LeaderGate } from "@lockstep/skeleton";
import type { Logger } from "pino";
import type { Aggregator } from "./aggregator/aggregator.js";
import { projectNode } from "./view/node-projection.js";

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

/** What the cache keeps of the kinds the aggregator reads only a part of (see view/node-projection.ts). */
export const AGGREGATOR_PROJECTIONS = { node: projectNode } satisfies StateProjections;

/** A writer riding on the aggregator's consumer (see the skeleton's controller.ts). */
export type AggregatorController = Controller<typeof AGGREGATOR_PROJECTIONS>;

/** The most an answer's "now" (and the view's age in it) lags the clock when nothing changes. */
const SNAPSHOT_TICK_MS = 1_000;

/** How long facts still in flight at stop may take to be acknowledged. */
const DRAIN_MS = 2_000;

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
  /** Writers converging from the same view (its cache, its freshness gate). */
  controllers?: readonly AggregatorController[];
  /** Which replica runs the leader-only controllers; none: this one. */
  leader?: LeaderGate;
}

export function aggregatorRunnable(o: AggregatorRunnableOptions): Runnable {
  const { aggregator } = o;
  return stateConsumer({
    name: "status-aggregator",
    bus: o.bus,
    logger: o.logger,
    kinds: AGGREGATOR_KINDS,
    project: AGGREGATOR_PROJECTIONS,
    readiness: o.readiness,
    notSyncedReason: "waiting for the state plane and meta.synced",
    registry: o.registry,
    stateMaxAgeMs: o.stateMaxAgeMs,
    // The age goes out in every answer and the gauge. Deliberately not a readiness check here: a
    // not-ready aggregator drops out of its Service, and `lockstep status` could then not say that
    // the view is stale, the one thing a user most needs to hear while the watcher is away.
    staleIsNotReady: false,
    controllers: o.controllers,
    leader: o.leader,
    wire({ nc, cache, freshness }) {
      const publisher = new EventPublisher(nc, o.source ?? "status-aggregator");
      // Not an async function: its frame would keep the event until the ack (publish.ts).
      aggregator.attachPublisher((event, id) => publisher.publish(Events.insightChanged, event, { id }).then(() => undefined));
      cache.onChange((c) => aggregator.apply(c));
      aggregator.attachFreshness(() => freshness.current());
      freshness.onChange(() => aggregator.freshnessChanged());
    },
    async serve(_plane, signal) {
      aggregator.markSynced();
      o.logger.info({ nodes: aggregator.view.nodeCount }, "status view synced");
      // Durations, lease holds and the view's age move with time: answers every second, watchers
      // at their own pace.
      const tick = setInterval(() => aggregator.tick(), SNAPSHOT_TICK_MS);
      const refresh = setInterval(() => aggregator.refresh(), o.watchRefreshMs);
      try {
        await abortedPromise(signal);
      } finally {
        clearInterval(tick);
        clearInterval(refresh);
      }
    },
    async drain() {
      aggregator.stop();
      await Promise.race([aggregator.drain(), new Promise((r) => setTimeout(r, DRAIN_MS))]);
      aggregator.stopPublishing();
    },
  });
}
