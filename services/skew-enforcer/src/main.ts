#!/usr/bin/env node
// Wiring only: config, logger, health/metrics endpoint, SkewService, the enforcer.
import { busOptionsFromConfig } from "@lockstep/bus";
import { SkewServiceService } from "@lockstep/contracts";
import { loadKubeAccess } from "@lockstep/kube";
import {
  createLogger,
  createMetricsRegistry,
  loadConfigOrExit,
  Readiness,
  readTlsFiles,
  runMain,
  startGrpcServer,
  startHttpServer,
  stopOnAbort,
} from "@lockstep/runtime";
import { skewEnforcerConfigSchema, skewSettingsFromConfig } from "./config.js";
import { SkewEnforcer } from "./enforcer.js";
import { skewServiceImpl } from "./grpc.js";

const config = loadConfigOrExit(skewEnforcerConfigSchema);
const logger = createLogger({ service: config.SERVICE_NAME ?? "skew-enforcer", level: config.LOG_LEVEL });
const registry = createMetricsRegistry({ service: "skew-enforcer" });
const readiness = new Readiness();
const enforcer = new SkewEnforcer({
  kc: await loadKubeAccess(config.KUBECONFIG),
  bus: busOptionsFromConfig(config, "lockstep-skew-enforcer"),
  logger,
  registry,
  readiness,
  settings: skewSettingsFromConfig(config),
  namespace: config.LOCKSTEP_NAMESPACE,
  operatorVersion: config.OPERATOR_VERSION,
  resyncMs: config.RESYNC_PERIOD,
  evaluateDelayMs: config.EVALUATE_DELAY,
  stateMaxAgeMs: config.STATE_MAX_AGE,
  bootImagesNamespace: config.BOOTIMAGES_NAMESPACE,
  bootImagesName: config.BOOTIMAGES_CONFIGMAP,
});
const http = await startHttpServer({ port: config.HTTP_PORT, readiness, registry, logger });
const grpc = await startGrpcServer({
  port: config.GRPC_PORT,
  tls: readTlsFiles(config),
  services: [[SkewServiceService, skewServiceImpl(enforcer, logger)]],
  logger,
});
logger.info({ http: http.port, grpc: grpc.port }, "skew-enforcer listening");

await runMain([enforcer.runnable(), stopOnAbort("grpc", () => grpc.stop(2_000)), stopOnAbort("http", () => http.stop())], {
  logger,
  stopTimeoutMs: config.SHUTDOWN_TIMEOUT,
});
