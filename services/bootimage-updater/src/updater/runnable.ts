// The bootimage-updater as a Runnable: connect to NATS, load the state plane, wait for the
// watcher's meta.synced, then run one full pass per (coalesced) relevant change until stopped.
import { closeBus, connectBus, ensureEventStream, ensureStateBucket, EventPublisher, StateCache, type BusConnectionOptions } from "@lockstep/bus";
import { Events, type StateKindName } from "@lockstep/contracts";
import type { KubeConfigLike } from "@lockstep/kube";
import { WorkQueue } from "@lockstep/reconcile";
import { describeStaleness, observeWorkQueue, StateFreshness, type createMetricsRegistry, type Readiness, type Runnable } from "@lockstep/runtime";
import type { Logger } from "pino";
import type { PlannedEvent } from "./events.js";
import { kubeWriter, type BootImageWriter } from "./kube-writer.js";
import { BootImageUpdater, PASS_KEY, type UpdaterOptions, type UpdaterSettings } from "./updater.js";

export const SOURCE = "bootimage-updater";
const KINDS: StateKindName[] = ["machineSet", "bootImages", "bootImagePolicy", "infrastructure", "clusterVersion"];

export interface BootImageUpdaterOptions {
  kc: KubeConfigLike;
  bus: BusConnectionOptions;
  logger: Logger;
  settings: UpdaterSettings;
  registry?: ReturnType<typeof createMetricsRegistry>;
  readiness?: Readiness;
  /** How old the state plane may be before passes are held (STATE_MAX_AGE). Default 15 s. */
  stateMaxAgeMs?: number;
  /** Replaces the Kubernetes writer (benchmarks). */
  writer?: BootImageWriter;
  onPass?: UpdaterOptions["onPass"];
}

export interface BootImageUpdaterHandle {
  runnable: Runnable;
  /** Answers Preview / GetStatus once the view is synced (wire it into the gRPC server). */
  updater: BootImageUpdater;
}

/** Publishes a planned event as its typed bootimage.* message. */
export async function publishPlanned(publisher: EventPublisher, e: PlannedEvent): Promise<void> {
  const meta = { id: e.id, occurredAt: new Date(), source: SOURCE, object: e.object, correlationId: "" };
  switch (e.kind) {
    case "updated":
      await publisher.publish(Events.bootImageUpdated, { meta, machineSet: e.machineSet, platform: e.platform, previousImage: e.previousImage, image: e.image }, { id: e.id });
      return;
    case "skipped":
      await publisher.publish(Events.bootImageSkipped, { meta, machineSet: e.machineSet, reason: e.text }, { id: e.id });
      return;
    case "failed":
      await publisher.publish(Events.bootImageUpdateFailed, { meta, machineSet: e.machineSet, error: e.text }, { id: e.id });
      return;
  }
}

export function bootImageUpdater(o: BootImageUpdaterOptions): BootImageUpdaterHandle {
  let publisher: EventPublisher | undefined;
  let cache: StateCache | undefined;
  let freshness: StateFreshness | undefined;
  const updater = new BootImageUpdater({
    view: {
      get: (kind, name, ns) => cache?.get(kind, name, ns),
      list: (kind) => cache?.list(kind) ?? [],
    },
    writer: o.writer ?? kubeWriter(o.kc),
    publish: async (e) => {
      if (!publisher) throw new Error("event publisher not connected");
      await publishPlanned(publisher, e);
    },
    logger: o.logger,
    settings: o.settings,
    ...(o.onPass ? { onPass: o.onPass } : {}),
    staleness: () => {
      const f = freshness?.current();
      return f && !f.fresh ? describeStaleness(f) : undefined;
    },
  });
  const runnable: Runnable = {
    name: "bootimage-updater",
    async start(signal) {
      const ready = o.readiness?.flag("state-synced", false, "waiting for the state plane");
      const nc = await connectBus(o.bus);
      try {
        await ensureEventStream(nc);
        publisher = new EventPublisher(nc, SOURCE);
        cache = new StateCache(await ensureStateBucket(nc), { kinds: KINDS, logger: o.logger });
        const queue = new WorkQueue(() => updater.reconcile(), {
          name: "bootimages",
          onError: (key, err, failures, retryInMs) => o.logger.warn({ key, err, failures, retryInMs }, "boot image pass failed; retrying"),
          onTerminalError: (key, err) => o.logger.error({ key, err }, "boot image pass failed terminally"),
        });
        if (o.registry) observeWorkQueue(o.registry, queue);
        const fresh = (freshness = new StateFreshness({ source: cache, maxAgeMs: o.stateMaxAgeMs ?? 15_000, readiness: o.readiness, registry: o.registry, logger: o.logger }));
        // A pass held while stale runs as soon as the view is fresh again.
        fresh.onChange((f) => f.fresh && updater.isSynced && queue.add(PASS_KEY));
        cache.onHeartbeat(() => fresh.check());
        fresh.start(signal);
        cache.onChange((c) => {
          if (updater.noteChange({ kind: c.parsed.kind, namespace: c.parsed.namespace, name: c.parsed.name, op: c.op, value: c.value, previous: c.previous })) queue.add(PASS_KEY);
        });
        await cache.start();
        try {
          await cache.whenSynced(signal);
        } catch {
          return; // stopped before the watcher ever synced
        }
        updater.markSynced();
        ready?.set(true);
        o.logger.info({ kinds: KINDS }, "state plane synced; boot image passes start");
        queue.add(PASS_KEY);
        await queue.run(signal);
      } finally {
        freshness?.stop();
        cache?.stop();
        await closeBus(nc);
      }
    },
  };
  return { runnable, updater };
}
