#!/usr/bin/env node
// Wiring only: config, logger, health/metrics endpoint, the watcher.
import { busOptionsFromConfig } from "@lockstep/bus";
import { loadKubeAccess } from "@lockstep/kube";
import { createLogger, createMetricsRegistry, loadConfigOrExit, Readiness, runMain, startGrpcServer, startHttpServer, stopOnAbort } from "@lockstep/runtime";
import { signalSettings, watcherConfigSchema } from "./config.js";
import { watcherRunnable } from "./watcher.js";

const config = loadConfigOrExit(watcherConfigSchema);
const logger = createLogger({ service: config.SERVICE_NAME ?? "watcher", level: config.LOG_LEVEL });
const registry = createMetricsRegistry({ service: "watcher" });
const readiness = new Readiness();
const http = await startHttpServer({ port: config.HTTP_PORT, readiness, registry, logger });
const grpc = await startGrpcServer({ port: config.GRPC_PORT, services: [] });
logger.info({ http: http.port, grpc: grpc.port }, "watcher listening");

await runMain(
  [
    watcherRunnable({
      kc: await loadKubeAccess(config.KUBECONFIG),
      bus: busOptionsFromConfig(config, "lockstep-watcher"),
      logger,
      registry,
      readiness,
      identity: config.WATCHER_ID,
      heartbeatIntervalMs: config.HEARTBEAT_INTERVAL,
      leaseNamespaces: config.LEASE_NAMESPACES,
      bootImagesNamespace: config.BOOTIMAGES_NAMESPACE,
      bootImagesName: config.BOOTIMAGES_CONFIGMAP,
      ...signalSettings(config),
    }),
    stopOnAbort("grpc", () => grpc.stop(2_000)),
    stopOnAbort("http", () => http.stop()),
  ],
  { logger, stopTimeoutMs: config.SHUTDOWN_TIMEOUT },
);
