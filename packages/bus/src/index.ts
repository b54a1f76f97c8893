export * from "./connection.js";
export * from "./consume.js";
export * from "./jetstream-publisher.js";
export * from "./publish.js";
export * from "./setup.js";
export * from "./state-age.js";
export * from "./state-cache.js";
export * from "./state-writer.js";
export { tendWatch, type WatchLivenessOptions } from "./watch-liveness.js";
