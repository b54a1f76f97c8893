#!/usr/bin/env node
// Wiring only: config, logger, health/metrics, BootImageService on gRPC, the updater.
import { busOptionsFromConfig } from "@lockstep/bus";
import { BootImageServiceService } from "@lockstep/contracts";
import { loadKubeAccess } from "@lockstep/kube";
import { createLogger, createMetricsRegistry, loadConfigOrExit, Readiness, readTlsFiles, runMain, startGrpcServer, startHttpServer, stopOnAbort } from "@lockstep/runtime";
import { bootImageUpdaterConfigSchema, processArch } from "./config.js";
import { bootImageService } from "./updater/grpc.js";
import { bootImageUpdater } from "./updater/runnable.js";

const config = loadConfigOrExit(bootImageUpdaterConfigSchema);
const logger = createLogger({ service: config.SERVICE_NAME ?? "bootimage-updater", level: config.LOG_LEVEL });
const registry = createMetricsRegistry({ service: "bootimage-updater" });
const readiness = new Readiness();
const { runnable, updater } = bootImageUpdater({
  kc: await loadKubeAccess(config.KUBECONFIG),
  bus: busOptionsFromConfig(config, "lockstep-bootimage-updater"),
  logger,
  registry,
  readiness,
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
const http = await startHttpServer({ port: config.HTTP_PORT, readiness, registry, logger });
const grpc = await startGrpcServer({ port: config.GRPC_PORT, tls: readTlsFiles(config), services: [[BootImageServiceService, bootImageService(updater, logger)]], logger });
logger.info({ http: http.port, grpc: grpc.port }, "bootimage-updater listening");

await runMain([runnable, stopOnAbort("grpc", () => grpc.stop(2_000)), stopOnAbort("http", () => http.stop())], { logger, stopTimeoutMs: config.SHUTDOWN_TIMEOUT });
