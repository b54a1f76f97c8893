// @lockstep/kube/lite: everything of @lockstep/kube that does not load client-node at run time
// (its module graph costs each process about 70 MiB). Services import this entry point.
export * from "./access.js";
export * from "./custom-objects.js";
export * from "./discovery.js";
export * from "./errors.js";
export * from "./http.js";
export * from "./informer.js";
export * from "./resources.js";
