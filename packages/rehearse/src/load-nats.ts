// `--nats URL`: the snapshot read from the live state plane (the watcher's JetStream KV bucket),
// read-only: the bucket is opened, never created, and nothing is written. Fails when the watcher has
// not marked the state synced within the wait.
import { closeBus, connectBus, StateCache, type BusConnectionOptions } from "@lockstep/bus";
import { STATE_BUCKET } from "@lockstep/contracts";
import { Kvm } from "@nats-io/kv";
import { objectsFromState } from "./from-state.js";
import { SnapshotError, snapshotOf, type RehearsalSnapshot } from "./snapshot.js";

const KINDS = ["clusterVersion", "clusterOperator", "machineConfig", "pool", "node", "lease", "disruptionBudget", "nodeDisruptionPolicy", "infrastructure"] as const;

export async function loadSnapshotNats(bus: BusConnectionOptions, o: { syncTimeoutMs?: number } = {}): Promise<RehearsalSnapshot> {
  const nc = await connectBus({ name: "lockstep-rehearse", ...bus });
  const cache = new StateCache(await new Kvm(nc).open(STATE_BUCKET), { kinds: [...KINDS] });
  const wait = o.syncTimeoutMs ?? 10_000;
  let timer: NodeJS.Timeout | undefined;
  try {
    // Neither the first read of a bucket still being filled nor the sync marker has its own deadline.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new SnapshotError(`the state plane at ${String(bus.servers)} is not synced after ${wait} ms (is the watcher running?)`)), wait);
    });
    await Promise.race([cache.start().then(() => cache.whenSynced()), late]);
    const objects = objectsFromState({
      clusterVersion: cache.get("clusterVersion", "version") ?? cache.list("clusterVersion")[0],
      clusterOperators: cache.list("clusterOperator"),
      machineConfigs: cache.list("machineConfig"),
      pools: cache.list("pool"),
      nodes: cache.list("node"),
      leases: cache.list("lease"),
      disruptionBudgets: cache.list("disruptionBudget"),
      nodeDisruptionPolicies: cache.list("nodeDisruptionPolicy"),
      infrastructure: cache.get("infrastructure", "cluster"),
    });
    return snapshotOf(objects);
  } finally {
    clearTimeout(timer);
    cache.stop();
    await closeBus(nc);
  }
}
