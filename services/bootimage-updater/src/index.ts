// For in-process integration tests and the demo: the runnable, its gRPC service and the pure core.
export { bootImageUpdater, publishPlanned, type BootImageUpdaterHandle, type BootImageUpdaterOptions } from "./updater/runnable.js";
export { bootImageService } from "./updater/grpc.js";
export { BootImageUpdater, PASS_KEY, type UpdaterSettings } from "./updater/updater.js";
export { bootImageUpdaterConfigSchema } from "./config.js";
