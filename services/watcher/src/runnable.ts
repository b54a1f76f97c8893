// The watcher as a Runnable: on the skeleton's connection with both planes ensured, load what the
// bucket holds, then keep it equal to the API server's objects until stopped. The state plane's
// only writer, so it is not a stateConsumer: it writes meta.synced rather than waiting for it.
import { hostname } from "node:os";
import { JetStreamPublisher, StateCache, type BusConnectionOptions } from "@lockstep/bus";
import type { KubeConfigLike } from "@lockstep/kube";
import type { Registry } from "prom-client";
import type { Logger } from "pino";
import { abortedPromise, type Readiness, type Runnable } from "@lockstep/runtime";
import { withPlanes } from "@lockstep/skeleton";
import { watcherMetrics } from "./metrics.js";
import { HeartbeatWriter } from "./sync/heartbeat.js";
import { servedResources } from "./sync/served.js";
import { StateSync } from "./sync/state-sync.js";
import type { WatchSettings } from "./sync/watched.js";

export interface WatcherOptions extends WatchSettings {
  kc: KubeConfigLike;
  bus: BusConnectionOptions;
  logger: Logger;
  registry?: Registry;
  readiness?: Readiness;
  identity?: string;
  /** How often the heartbeat is written (sync/heartbeat.ts). Default 5 s. */
  heartbeatIntervalMs?: number;
  informer?: ConstructorParameters<typeof StateSync>[0]["informer"];
  /** Called with the running sync (tests and benchmarks observe it). */
  onStarted?(sync: StateSync): void;
}

export function watcherRunnable(o: WatcherOptions): Runnable {
  return {
    name: "watcher",
    async start(signal) {
      const ready = o.readiness?.flag("state-synced", false, "initial lists not yet in");
      await withPlanes(o.bus, async ({ nc, kv }) => {
        // Read what the bucket holds so unchanged objects are not rewritten and vanished ones deleted.
        const cache = new StateCache(kv, { logger: o.logger });
        await cache.start();
        // The watcher's cache projects nothing, so every entry has its bytes.
        // With each key's revision: the writer's first compare-and-set of a key expects it.
        const existing: Array<[string, Uint8Array, number]> = [];
        for (const k of cache.keys()) {
          const entry = cache.getByKey(k);
          if (entry?.bytes) existing.push([k, entry.bytes, entry.revision]);
        }
        cache.stop();
        // Kinds an older API server serves in an older version (policy/v1beta1 PDBs before 1.21).
        const podDisruptionBudget = o.podDisruptionBudget ?? (await servedResources(o.kc, o.logger, signal)).podDisruptionBudget;
        const identity = o.identity ?? hostname();
        const metrics = o.registry ? watcherMetrics(o.registry) : undefined;
        const sync = new StateSync({
          ...o,
          podDisruptionBudget,
          kv,
          existing,
          publisher: new JetStreamPublisher(nc),
          identity,
          metrics,
        });
        sync.start(signal);
        o.onStarted?.(sync);
        const heartbeat = new HeartbeatWriter({
          kv,
          identity,
          intervalMs: o.heartbeatIntervalMs ?? 5_000,
          currentAsOf: (now) => sync.currentAsOf(now),
          behind: (since, now) => sync.behind(since, now),
          flushed: () => sync.writer.flushed(),
          logger: o.logger,
          onResult: (result) => metrics?.heartbeats.inc({ result }),
        });
        // Heartbeats begin with meta.synced: before it, consumers do not act anyway.
        let beating: Promise<void> | undefined;
        void sync.synced.then(() => {
          ready?.set(true);
          if (!signal.aborted) beating = heartbeat.start(signal);
        });
        await abortedPromise(signal);
        await beating;
        await Promise.race([sync.writer.flushed(), new Promise((r) => setTimeout(r, 2_000))]);
      });
    },
  };
}
