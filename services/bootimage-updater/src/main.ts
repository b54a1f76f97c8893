#!/usr/bin/env node
// Wiring only (the skeleton runs it): the updater's runnable and BootImageService on gRPC.
import { BootImageServiceService } from "@lockstep/contracts";
import { loadKubeAccess } from "@lockstep/kube";
import { runService, serviceEventRecorder } from "@lockstep/skeleton";
import { bootImageService } from "./api/boot-image-service.js";
import { bootImageUpdaterConfigSchema, processArch } from "./config.js";
import { bootImageUpdater } from "./runnable.js";

await runService({
  name: "bootimage-updater",
  config: bootImageUpdaterConfigSchema,
  async wire({ config, logger, registry, readiness, bus, leader }) {
    const kc = await loadKubeAccess(config.KUBECONFIG);
    // Kubernetes Events on the MachineSets (boot image patched/skipped/failed), by the leader.
    const kubeEvents = serviceEventRecorder({ service: "bootimage-updater", config, kc, leader, logger, registry });
    const { runnable, updater, freshness } = bootImageUpdater({
      kc,
      kubeEvents: kubeEvents.recorder,
      bus: bus(),
      logger,
      registry,
      readiness,
      leader,
      stateMaxAgeMs: config.STATE_MAX_AGE,
      settings: {
        bootImagesNamespace: config.BOOTIMAGES_NAMESPACE,
        bootImagesName: config.BOOTIMAGES_CONFIGMAP,
        awsAllowedAmis: config.AWS_ALLOWED_AMIS ?? [],
        controllerArch: config.CONTROLLER_ARCH ?? processArch(),
        errorRetryMs: config.ERROR_RETRY_PERIOD,
        staleRecheckMs: config.STALE_RECHECK,
        staleTimeoutMs: 30_000,
      },
    });
    return { grpc: [[BootImageServiceService, bootImageService(updater, logger, freshness)]], runnables: [kubeEvents.runnable, runnable] };
  },
});
