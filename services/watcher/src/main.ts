#!/usr/bin/env node
// Wiring only (the skeleton runs it): the watcher's runnable. Its gRPC server serves health only.
import { loadKubeAccess } from "@lockstep/kube";
import { runService } from "@lockstep/skeleton";
import { signalSettings, watchSettings, watcherConfigSchema } from "./config.js";
import { watcherRunnable } from "./runnable.js";

await runService({
  name: "watcher",
  config: watcherConfigSchema,
  // Health only, as before the skeleton: GRPC_TLS_* are not read here.
  grpcTls: false,
  async wire({ config, logger, registry, readiness, bus, leader }) {
    return {
      runnables: [
        watcherRunnable({
          kc: await loadKubeAccess(config.KUBECONFIG),
          bus: bus(),
          logger,
          registry,
          readiness,
          leader,
          // Replicas on one host (lockstep up --replicas) share a hostname: the pod name tells them apart.
          identity: config.WATCHER_ID ?? config.POD_NAME,
          heartbeatIntervalMs: config.HEARTBEAT_INTERVAL,
          informer: watchSettings(config),
          leaseNamespaces: config.LEASE_NAMESPACES,
          bootImagesNamespace: config.BOOTIMAGES_NAMESPACE,
          bootImagesName: config.BOOTIMAGES_CONFIGMAP,
          ...signalSettings(config),
        }),
      ],
    };
  },
});
