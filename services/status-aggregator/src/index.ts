// In-process use (integration tests, the demo): the aggregator, its runnable and gRPC handlers.
export { Aggregator, StatusSnapshot, insightChangedId, LOCKSTEP_OPERATOR, type AggregatorOptions, type AggregatorHooks } from "./aggregator/aggregator.js";
export { aggregatorRunnable, AGGREGATOR_KINDS, AGGREGATOR_PROJECTIONS, type AggregatorRunnableOptions } from "./runnable.js";
export { updateStatusService } from "./api/update-status-service.js";
export { disruptionService } from "./api/disruption-service.js";
export { aggregatorConfigSchema } from "./config.js";
export { updateStatusServiceDefinition } from "./proto/fast-encode.js";
export { UpdateApiWriter, type WriterStats, type WriterSource, type WriterSnapshot, type UpdateApiWriterOptions } from "./update-api/writer.js";
export { updateApiRunnable, type UpdateApiRunnableOptions } from "./update-api/runnable.js";
export { insightApi } from "./update-api/client.js";
