// Public surface of @lockstep/contracts.
export * from "./gen/lockstep/bootimage/v1/bootimage.js";
export * from "./gen/lockstep/common/v1/common.js";
export * from "./gen/lockstep/disruption/v1/disruption.js";
export * from "./gen/lockstep/events/v1/events.js";
export * from "./gen/lockstep/lease/v1/lease.js";
export * from "./gen/lockstep/skew/v1/skew.js";
export * from "./gen/lockstep/state/v1/cluster.js";
export * from "./gen/lockstep/state/v1/lease.js";
export * from "./gen/lockstep/state/v1/machine_config.js";
export * from "./gen/lockstep/state/v1/heartbeat.js";
export * from "./gen/lockstep/state/v1/machine_set.js";
export * from "./gen/lockstep/state/v1/meta.js";
export * from "./gen/lockstep/state/v1/node.js";
export * from "./gen/lockstep/state/v1/node_signal.js";
export * from "./gen/lockstep/state/v1/policy.js";
export * from "./gen/lockstep/state/v1/pool.js";
export * from "./gen/lockstep/status/v1/status.js";

export * from "./codec.js";
export * from "./events.js";
export * from "./headers.js";
export * from "./names.js";
export * from "./state.js";
export * from "./grpc-call.js";
export * from "./lean-client.js";
export * from "./lean-reader.js";
export * from "./label-selector.js";
