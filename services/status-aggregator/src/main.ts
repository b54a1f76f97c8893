#!/usr/bin/env node
// Wiring only: config, logger, health/metrics endpoint, gRPC (UpdateStatusService and
// DisruptionService on one server), the aggregator fed from the state plane.
import { busOptionsFromConfig } from "@lockstep/bus";
import { DisruptionServiceService } from "@lockstep/contracts";
import { loadPolicyManifests } from "@lockstep/disruption";
import { createLogger, createMetricsRegistry, loadConfigOrExit, Readiness, readTlsFiles, runMain, startGrpcServer, startHttpServer, stopOnAbort } from "@lockstep/runtime";
import { Aggregator } from "./aggregator.js";
import { disruptionService } from "./api/disruption-service.js";
import { updateStatusServiceDefinition } from "./api/fast-encode.js";
import { updateStatusService } from "./api/update-status-service.js";
import { aggregatorConfigSchema } from "./config.js";
import { aggregatorMetrics, metricsHooks } from "./metrics.js";
import { aggregatorRunnable } from "./runnable.js";

const config = loadConfigOrExit(aggregatorConfigSchema);
const logger = createLogger({ service: config.SERVICE_NAME ?? "status-aggregator", level: config.LOG_LEVEL });
const registry = createMetricsRegistry({ service: "status-aggregator" });
const readiness = new Readiness();
const aggregator = new Aggregator({
  logger,
  debounceMs: config.DEBOUNCE_MS,
  shippedPolicies: await loadPolicyManifests(),
  leaseSources: {
    lockstepNamespace: config.LEASE_NAMESPACE,
    nodeNamedNamespaces: config.FOREIGN_NODE_LEASE_NAMESPACES,
    medik8sNamespaces: config.MEDIK8S_LEASE_NAMESPACES,
    adminHolderPrefix: config.ADMIN_HOLDER_PREFIX,
    skewAllowanceSeconds: 3,
  },
  hooks: metricsHooks(aggregatorMetrics(registry)),
});
const http = await startHttpServer({ port: config.HTTP_PORT, readiness, registry, logger });
const grpc = await startGrpcServer({
  port: config.GRPC_PORT,
  tls: readTlsFiles(config),
  logger,
  services: [
    [updateStatusServiceDefinition, updateStatusService(aggregator, logger)],
    [DisruptionServiceService, disruptionService(aggregator, logger)],
  ],
});
logger.info({ http: http.port, grpc: grpc.port }, "status-aggregator listening");

// The NodeDisruptionPolicy status writer is the only part that talks to Kubernetes; loaded only when
// enabled, so a read-only deployment does not carry the Kubernetes client at all.
const policyStatus = config.WRITE_POLICY_STATUS
  ? [
      (await import("./policy-status/writer.js")).policyStatusRunnable({
        kc: await (await import("@lockstep/kube")).loadKubeAccess(config.KUBECONFIG),
        bus: busOptionsFromConfig(config, "lockstep-status-aggregator-policies"),
        logger,
      }),
    ]
  : [];

// The Update Status API writer (update-api/): beside the aggregator in its process, reading its view.
const updateApi = config.UPDATE_API_ENABLED
  ? [
      (await import("./update-api/runnable.js")).updateApiRunnable({
        aggregator,
        kc: await (await import("@lockstep/kube")).loadKubeAccess(config.KUBECONFIG),
        logger,
        registry,
        writesPerSecond: config.UPDATE_API_WRITES_PER_SECOND,
        writeBurst: config.UPDATE_API_WRITE_BURST,
        refreshMs: config.UPDATE_API_REFRESH_MS,
        resyncMs: config.UPDATE_API_RESYNC_MS,
      }),
    ]
  : [];

await runMain(
  [
    stopOnAbort("http", () => http.stop()),
    stopOnAbort("grpc", () => grpc.stop(2_000)),
    aggregatorRunnable({
      aggregator,
      bus: busOptionsFromConfig(config, "lockstep-status-aggregator"),
      logger,
      readiness,
      registry,
      stateMaxAgeMs: config.STATE_MAX_AGE,
      watchRefreshMs: config.WATCH_REFRESH_MS,
    }),
    ...policyStatus,
    ...updateApi,
  ],
  { logger, stopTimeoutMs: config.SHUTDOWN_TIMEOUT },
);
