/**
 * @lockstep/runtime: what every Lockstep service process needs around its domain logic.
 *
 * A service's main.ts, in outline:
 *
 *     const config = loadConfigOrExit(serviceConfigSchema({ RESYNC_PERIOD: env.duration().default(600_000) }));
 *     const logger = createLogger({ service: config.SERVICE_NAME ?? "skew-enforcer", level: config.LOG_LEVEL });
 *     const registry = createMetricsRegistry({ service: "skew-enforcer" });
 *     const readiness = new Readiness();
 *     const synced = readiness.flag("state-synced");
 *     const http = await startHttpServer({ port: config.HTTP_PORT, readiness, registry, logger });
 *     const grpc = await startGrpcServer({ port: config.GRPC_PORT, tls: readTlsFiles(config),
 *                                          services: [[SkewServiceService, impl]], logger });
 *     await runMain([
 *       stopOnAbort("http", () => http.stop()),
 *       stopOnAbort("grpc", () => grpc.stop(5000)),
 *       { name: "nats", start: (signal) => ... },       // resolves after draining
 *       { name: "queue", start: (signal) => queue.run(signal) },
 *     ], { logger, stopTimeoutMs: config.SHUTDOWN_TIMEOUT });   // SIGTERM stops these bottom-up
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
