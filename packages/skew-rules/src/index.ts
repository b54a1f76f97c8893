// Pure skew rules of the skew-enforcer (mco-behaviors.md §4, §5): no I/O here.
export * from "./settings.js";
export * from "./messages.js";
export * from "./pools.js";
export * from "./node-tally.js";
export * from "./selector.js";
export * from "./pool-lag.js";
export * from "./docs-minor.js";
export * from "./boot-image-skew.js";
export * from "./upgradeable.js";
export * from "./completion.js";
export * from "./evaluate.js";
export * from "./check-upgrade.js";
export * from "./machine-set-image.js";
export * from "./scale-up.js";
export * from "./cluster-operator.js";
export * from "./stale.js";
export * from "./rule-inputs.js";
export type { NodeOf, MachineConfigOf, McoFieldOf, MachineConfigFieldOf } from "./reads.js";
