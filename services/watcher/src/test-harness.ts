// The set-up the watcher's integration tests share: the watcher in-process on the test's stack, and
// a StateCache reading the state plane it writes; the stack's close() stops both.
import { closeBus, connectBus, ensureStateBucket, StateCache } from "@lockstep/bus";
import type { KubeConfigLike } from "@lockstep/kube";
import { silentLogger } from "@lockstep/runtime";
import { TEST_WATCHER_OPTIONS, type TestStack } from "@lockstep/testing";
import { watcherRunnable, type WatcherOptions } from "./runnable.js";

export interface WatchedStateOptions {
  kc: KubeConfigLike;
  natsUrl: string;
  /** Over TEST_WATCHER_OPTIONS' informer retries (a test that waits on a missing kind wants them shorter). */
  informer?: WatcherOptions["informer"];
}

/** Starts the watcher (heartbeat every 200 ms) and returns a started StateCache on its state plane. */
export async function startWatchedState(stack: TestStack, o: WatchedStateOptions): Promise<StateCache> {
  stack.run(watcherRunnable({
    kc: o.kc,
    bus: { servers: o.natsUrl },
    logger: silentLogger(),
    ...TEST_WATCHER_OPTIONS,
    informer: { ...TEST_WATCHER_OPTIONS.informer, ...o.informer },
    heartbeatIntervalMs: 200,
  }));
  const nc = await connectBus({ servers: o.natsUrl });
  stack.defer(() => closeBus(nc));
  const cache = new StateCache(await ensureStateBucket(nc));
  stack.defer(() => cache.stop());
  await cache.start();
  return cache;
}
