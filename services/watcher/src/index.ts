// In-process use (integration tests, benchmarks): the watcher's runnable.
export { watcherRunnable, type WatcherOptions } from "./runnable.js";
export { watcherConfigSchema } from "./config.js";
