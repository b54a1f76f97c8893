// @lockstep/normalize: API objects → the state plane's normalised snapshots (@lockstep/contracts).
// Pure. The watcher publishes them; the rehearsal feeds them to the policy and skew rules.
export * from "./cluster.js";
export * from "./common.js";
export * from "./lease.js";
export * from "./machine-config.js";
export * from "./machine-set.js";
export * from "./node.js";
export * from "./policy.js";
export * from "./pool.js";
export * from "./signals.js";
