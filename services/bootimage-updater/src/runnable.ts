// The bootimage-updater as a Runnable (the skeleton's state-plane consumer): once the watcher's
// meta.synced is seen, one full pass per (coalesced) relevant change until stopped, run as the
// consumer's controller. Every replica keeps the view and answers previews; only the leader passes.
import { EventPublisher, type BusConnectionOptions, type StateCache } from "@lockstep/bus";
import { Events, type StateKindName } from "@lockstep/contracts";
import type { EventSink, KubeConfigLike } from "@lockstep/kube";
import { abortedPromise, type createMetricsRegistry, type Freshness, type Readiness, type Runnable, type StateFreshness } from "@lockstep/runtime";
import { factObserver, stateConsumer, type Controller, type LeaderGate } from "@lockstep/skeleton";
import type { Logger } from "pino";
import type { PlannedEvent } from "./updater/events.js";
import { kubeWriter, type BootImageWriter } from "./updater/kube-writer.js";
import { patchFailures } from "./updater/patch-metrics.js";
import { BootImageUpdater, PASS_KEY, type UpdaterOptions, type UpdaterSettings } from "./updater/updater.js";

export const SOURCE = "bootimage-updater";
const KINDS: StateKindName[] = ["machineSet", "bootImages", "bootImagePolicy", "infrastructure", "clusterVersion"];

export interface BootImageUpdaterOptions {
  kc: KubeConfigLike;
  /** Kubernetes Events on the MachineSets for the published facts; none: no Events. */
  kubeEvents?: EventSink;
  bus: BusConnectionOptions;
  logger: Logger;
  settings: UpdaterSettings;
  registry?: ReturnType<typeof createMetricsRegistry>;
  readiness?: Readiness;
  /** How old the state plane may be before passes are held (STATE_MAX_AGE). Default 15 s. */
  stateMaxAgeMs?: number;
  /** Which replica patches MachineSets and writes status; none: this one (one replica). */
  leader?: LeaderGate;
  /** Replaces the Kubernetes writer (benchmarks). */
  writer?: BootImageWriter;
  onPass?: UpdaterOptions["onPass"];
}

export interface BootImageUpdaterHandle {
  runnable: Runnable;
  /** Answers Preview / GetStatus once the view is synced (wire it into the gRPC server). */
  updater: BootImageUpdater;
  /** How old the view is (undefined before the state plane is connected), for GetStatus. */
  freshness: () => Freshness | undefined;
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
    leading: () => o.leader?.isLeader() ?? true,
    ...(o.registry ? { onPatchFailed: patchFailures(o.registry) } : {}),
  });
  // The pass as the consumer's one controller: leader only, held while the view is stale (reported
  // as a stateStale pass) and run once fresh again or when a term begins, when the view is warm and
  // the previous leader may have stopped mid-pass.
  const passes: Controller = {
    name: "bootimages",
    kinds: KINDS,
    leaderOnly: true,
    keysFor: (c) => (updater.noteChange({ kind: c.parsed.kind, namespace: c.parsed.namespace, name: c.parsed.name, op: c.op, value: c.value, previous: c.previous }) ? [PASS_KEY] : []),
    allKeys: () => [PASS_KEY],
    held: (_key, why) => updater.held(why),
    reconcile: () => updater.reconcile(),
  };
  const runnable = stateConsumer({
    name: "bootimage-updater",
    bus: o.bus,
    logger: o.logger,
    kinds: KINDS,
    readiness: o.readiness,
    notSyncedReason: "waiting for the state plane",
    registry: o.registry,
    stateMaxAgeMs: o.stateMaxAgeMs,
    leader: o.leader,
    controllers: [passes],
    wire(plane) {
      publisher = new EventPublisher(plane.nc, SOURCE, factObserver(o.kubeEvents));
      cache = plane.cache;
      freshness = plane.freshness;
    },
    async serve(_plane, signal) {
      updater.markSynced();
      o.logger.info({ kinds: KINDS }, "state plane synced; boot image passes start");
      await abortedPromise(signal);
    },
  });
  return { runnable, updater, freshness: () => freshness?.current() };
}
