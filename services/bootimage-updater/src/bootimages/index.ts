// Pure core of the bootimage-updater: no I/O below this folder.
export * from "./architecture.js";
export * from "./aws.js";
export * from "./azure.js";
export * from "./conditions.js";
export * from "./gating.js";
export * from "./gcp.js";
export * from "./hot-loop.js";
export * from "./merge-patch.js";
export type { PatchResult, VSphereTemplateUpdate } from "./patch-result.js";
export * from "./planner.js";
export * from "./platform.js";
export * from "./provider-spec.js";
export * from "./selection.js";
export * from "./skew-record.js";
export * from "./stream.js";
export * from "./vsphere.js";
