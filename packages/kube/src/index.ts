export * from "./config.js";
export * from "./errors.js";
export * from "./informer.js";
export * from "./resources.js";
