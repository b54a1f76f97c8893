// Public surface of @lockstep/disruption: the pure node disruption policy engine.
export * from "./types.js";
export * from "./validate.js";
export * from "./status.js";
export * from "./merge.js";
export * from "./defaults.js";
export * from "./toml.js";
export * from "./registries.js";
export * from "./machine-config.js";
export * from "./match.js";
export * from "./diff.js";
export * from "./engine.js";
export * from "./proto.js";
export * from "./reconcilable.js";
