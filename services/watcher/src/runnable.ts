// The watcher as a Runnable: on the skeleton's connection with both planes ensured, watch the API
// server on every replica; while this replica leads, load what the bucket holds and keep it equal to
// the API server's objects. The state plane's only writer, so it is not a stateConsumer: it writes
// meta.synced rather than waiting for it.
import { hostname } from "node:os";
import { JetStreamPublisher, type BusConnectionOptions } from "@lockstep/bus";
import type { KubeConfigLike } from "@lockstep/kube";
import type { Registry } from "prom-client";
import type { Logger } from "pino";
import type { Readiness, Runnable } from "@lockstep/runtime";
import { whenLeading, withPlanes, type LeaderGate } from "@lockstep/skeleton";
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
  /** Which replica writes the state plane; none: this one always does (one replica). */
  leader?: LeaderGate;
  /** Called with the running sync (tests and benchmarks observe it). */
  onStarted?(sync: StateSync): void;
}

export function watcherRunnable(o: WatcherOptions): Runnable {
  return {
    name: "watcher",
    async start(signal) {
      const ready = o.readiness?.flag("state-synced", false, "initial lists not yet in");
      await withPlanes(o.bus, async ({ nc, kv }) => {
        // Kinds an older API server serves in an older version (policy/v1beta1 PDBs before 1.21).
        const podDisruptionBudget = o.podDisruptionBudget ?? (await servedResources(o.kc, o.logger, signal)).podDisruptionBudget;
        const identity = o.identity ?? hostname();
        const metrics = o.registry ? watcherMetrics(o.registry) : undefined;
        const sync = new StateSync({ ...o, podDisruptionBudget, kv, publisher: new JetStreamPublisher(nc), identity, metrics });
        // Informers run on every replica: a follower's view is whole when it wins the election.
        sync.start(signal);
        o.onStarted?.(sync);
        // A follower is ready once its lists are in: it serves health and metrics, and can take over.
        void sync.listedAll.then(() => ready?.set(true));
        await whenLeading(o.leader, "state-plane writes", signal, async (term) => {
          const heartbeat = new HeartbeatWriter({
            kv,
            identity,
            intervalMs: o.heartbeatIntervalMs ?? 5_000,
            currentAsOf: (now) => sync.currentAsOf(now),
            behind: (since, now) => sync.behind(since, now),
            flushed: () => sync.flushed(),
            logger: o.logger,
            onResult: (result) => metrics?.heartbeats.inc({ result }),
          });
          // Heartbeats begin with this term's meta.synced: the bucket is then this replica's view.
          let beating: Promise<void> | undefined;
          await sync.lead(term, () => {
            beating = heartbeat.start(term);
          });
          await beating;
          await Promise.race([sync.flushed(), new Promise((r) => setTimeout(r, 2_000))]);
        });
      });
    },
  };
}
