/**
 * @lockstep/runtime: what every Lockstep service process needs around its domain logic — config
 * validation, logger, readiness, metrics, the health/metrics HTTP server, the gRPC server, run().
 *
 * Services do not assemble these by hand: `@lockstep/skeleton` (runService, stateConsumer) puts them
 * together once in the one shape every service has. This package knows nothing of the bus.
 */
export {
  env,
  LOG_LEVELS,
  baseConfigShape,
  baseConfigSchema,
  serviceConfigSchema,
  parseConfig,
  loadConfig,
  loadConfigOrExit,
  ConfigError,
} from "./config.js";
export type { LogLevel, BaseConfig, ConfigResult } from "./config.js";
export { parseDuration, formatDuration } from "./duration.js";
export { optimizeHeapForSize } from "./heap-tuning.js";
export { createLogger, silentLogger, REDACT_PATHS } from "./logger.js";
export type { Logger, LoggerOptions } from "./logger.js";
export { run, runMain, stopOnAbort, abortedPromise, installSignalHandlers, RunError } from "./run.js";
export type { Runnable, RunOptions } from "./run.js";
export { watchParent, PARENT_WATCH_ENV } from "./parent-watch.js";
export { Readiness } from "./readiness.js";
export type { ReadinessCheck, ReadinessFlag, CheckOutcome } from "./readiness.js";
export { createMetricsRegistry, observeWorkQueue } from "./metrics.js";
export type { MetricsOptions, ObservableQueue } from "./metrics.js";
export { StateFreshness, freshnessOf, describeStaleness, describeStaleSince, STATE_FRESH_CHECK } from "./state-freshness.js";
export type { Freshness, StateAgeSource, StateFreshnessOptions } from "./state-freshness.js";
export { startHttpServer } from "./http-server.js";
export type { HttpServerHandle, HttpServerOptions } from "./http-server.js";
export { startGrpcServer, grpcServiceName, serverCredentials, readTlsFiles } from "./grpc-server.js";
export type { GrpcServerHandle, GrpcServerOptions, GrpcServiceEntry, GrpcTlsOptions } from "./grpc-server.js";
