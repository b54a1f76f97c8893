export * from "./fixtures.js";
export * from "./wait.js";
// The nats-server launcher lives in @lockstep/launcher (the demo needs it at run time).
export { freePort, startNatsCluster, startNatsServer, type NatsCluster, type NatsServer, type NatsServerOptions } from "@lockstep/launcher";
export * from "./pki.js";
export * from "./test-stack.js";
export * from "./field-changes.js";
export * from "./cluster-steps.js";
export * from "./rule-vocabulary.js";
export * from "./kubectl.js";
export * from "./bare-metal-host-crd.js";
export * from "./tcp-relay.js";
