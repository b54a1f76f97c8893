// In-process use (integration tests, a combined process): the runnable, its gRPC service, the pure core.
export { skewEnforcer, type SkewEnforcerHandle, type SkewEnforcerRunnableOptions } from "./runnable.js";
export { skewServiceImpl, type SkewQueries } from "./api/skew-service.js";
export { CLUSTER_KEY, NotSyncedError, REASON_HOT_LOOP, SkewEnforcer } from "./enforcer/enforcer.js";
export { skewEnforcerConfigSchema, skewSettingsFromConfig, type SkewEnforcerConfig } from "./config.js";
