#!/usr/bin/env node
// Wiring only: config, logger, health/metrics endpoint, gRPC LeaseService, the coordinator.
import { busOptionsFromConfig } from "@lockstep/bus";
import { LeaseServiceService } from "@lockstep/contracts";
import { loadKubeAccess } from "@lockstep/kube/lite";
import { createLogger, createMetricsRegistry, loadConfigOrExit, readTlsFiles, Readiness, runMain, startGrpcServer, startHttpServer, stopOnAbort } from "@lockstep/runtime";
import { coordinatorId, leaseCoordinatorConfigSchema, policyFromSettings } from "./config.js";
import { createLeaseCoordinator } from "./runnable.js";

const config = loadConfigOrExit(leaseCoordinatorConfigSchema);
const logger = createLogger({ service: config.SERVICE_NAME ?? "lease-coordinator", level: config.LOG_LEVEL }).child({ replica: coordinatorId(config) });
const registry = createMetricsRegistry({ service: "lease-coordinator" });
const readiness = new Readiness();
const lc = createLeaseCoordinator({
  // Without client-node's module graph (~70 MiB) unless the kubeconfig needs it (YAML, exec plugins).
  kc: await loadKubeAccess(config.KUBECONFIG),
  bus: busOptionsFromConfig(config, "lockstep-lease-coordinator"),
  policy: policyFromSettings(config).policy,
  logger,
  readiness,
  registry,
  stateMaxAgeMs: config.STATE_MAX_AGE,
  sweepIntervalMs: config.SWEEP_INTERVAL,
  budgetResyncMs: config.BUDGET_RESYNC,
});
const http = await startHttpServer({ port: config.HTTP_PORT, readiness, registry, logger });
const grpc = await startGrpcServer({
  port: config.GRPC_PORT,
  tls: readTlsFiles(config),
  services: [[LeaseServiceService, lc.service]],
  logger,
});
logger.info({ http: http.port, grpc: grpc.port }, "lease-coordinator listening");

await runMain([lc.runnable, stopOnAbort("grpc", () => grpc.stop(2_000)), stopOnAbort("http", () => http.stop())], {
  logger,
  stopTimeoutMs: config.SHUTDOWN_TIMEOUT,
});
