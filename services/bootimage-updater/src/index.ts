// For in-process integration tests and the demo: the runnable, its gRPC service and the pure core.
export { bootImageUpdater, publishPlanned, type BootImageUpdaterHandle, type BootImageUpdaterOptions } from "./runnable.js";
export { bootImageService } from "./api/boot-image-service.js";
export { BootImageUpdater, PASS_KEY, type UpdaterSettings } from "./updater/updater.js";
export { bootImageUpdaterConfigSchema } from "./config.js";
