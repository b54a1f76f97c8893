// The set-up the status-aggregator's integration tests share: the watcher and the test's aggregator
// in-process on its stack, the aggregator's two gRPC services on a real server; the stack's close()
// stops them all (the gRPC server after the runnables).
import type { KubeConfigLike } from "@lockstep/kube";
import { silentLogger, startGrpcServer, type GrpcServerHandle } from "@lockstep/runtime";
import { TEST_WATCHER_OPTIONS, type TestStack } from "@lockstep/testing";
import { watcherRunnable, type WatcherOptions } from "@lockstep/watcher";
import { DisruptionServiceService } from "@lockstep/contracts";
import type { Aggregator } from "./aggregator/aggregator.js";
import { disruptionService } from "./api/disruption-service.js";
import { updateStatusService } from "./api/update-status-service.js";
import { updateStatusServiceDefinition } from "./proto/fast-encode.js";
import { aggregatorRunnable } from "./runnable.js";

/** Starts the watcher on `kc`, `aggregator` on the state plane it fills, and serves the aggregator's gRPC. */
export async function serveAggregator(
  stack: TestStack,
  o: { kc: KubeConfigLike; natsUrl: string; aggregator: Aggregator; watcher?: Pick<WatcherOptions, "informer" | "heartbeatIntervalMs">; stateMaxAgeMs?: number },
): Promise<GrpcServerHandle> {
  stack.run(watcherRunnable({ kc: o.kc, bus: { servers: o.natsUrl }, logger: silentLogger(), ...TEST_WATCHER_OPTIONS, ...o.watcher, informer: { ...TEST_WATCHER_OPTIONS.informer, ...o.watcher?.informer } }));
  const grpcServer = await startGrpcServer({
    port: 0,
    host: "127.0.0.1",
    services: [
      [updateStatusServiceDefinition, updateStatusService(o.aggregator, silentLogger())],
      [DisruptionServiceService, disruptionService(o.aggregator, silentLogger())],
    ],
  });
  stack.defer(() => grpcServer.stop(500));
  stack.run(aggregatorRunnable({ aggregator: o.aggregator, bus: { servers: o.natsUrl }, logger: silentLogger(), watchRefreshMs: 60_000, stateMaxAgeMs: o.stateMaxAgeMs }));
  return grpcServer;
}
