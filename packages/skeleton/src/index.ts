/**
 * @lockstep/skeleton: the one shape of every Lockstep service.
 *
 * - `main.ts` calls {@link runService} with the service's validated config schema and a `wire`
 *   function that builds its parts: config, logger, metrics, readiness, health/metrics endpoint,
 *   gRPC server, other servers ({@link ServerPart}: webhooks) and an orderly stop are written here once.
 * - A state-plane consumer's `runnable.ts` is a {@link stateConsumer}: connect NATS, load the state
 *   cache, wait for meta.synced, then `serve` until stopped. Its `wire` may return the core, handed
 *   to `serve` and `drain`. Its {@link Controller}s (status writers, passes) share its cache and
 *   freshness gate, one queue each, given up front or returned by `wire` with the core.
 * - Everything else in a service is its own: pure domain folders, I/O in runnables and writers,
 *   gRPC handlers in `api/`.
 */
export { runService, startService, type ServerPart, type ServiceContext, type ServiceParts, type ServiceSpec, type StartedService } from "./run-service.js";
export { stateConsumer, withPlanes, type BusConnection, type Planes, type StateBucket, type StateConsumerOptions, type StatePlane, type Wired } from "./state-plane.js";
export { CONTROLLER_RECONCILE_METRIC, type Controller, type ControllerContext } from "./controller.js";
export { electionIdentity, electionNamespace, electionTimings, leaderElection, whenLeading, type LeaderElection, type LeaderGate, type LeaderWork } from "./leader.js";
export { freshnessToProto } from "./freshness-proto.js";
export { CLUSTER_VERSION, kubeEventsFor, webhookRefusal } from "./kube-events.js";
export { factObserver, KUBE_EVENT_WRITES_METRIC, serviceEventRecorder, type ServiceEvents } from "./service-events.js";
