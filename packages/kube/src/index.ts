// @lockstep/kube: everything that does not load client-node at run time (its module graph is the
// largest part of a service's resident memory). The helpers that build client-node's own KubeConfig
// (tests, tools, the simulator) are in `@lockstep/kube/client-node`, so light is the default.
export * from "./access.js";
export * from "./custom-objects.js";
export * from "./discovery.js";
export * from "./errors.js";
export * from "./event-fold.js";
export * from "./event-recorder.js";
export * from "./http.js";
export * from "./informer.js";
export * from "./resources.js";
export * from "./leader-election.js";
