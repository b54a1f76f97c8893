#!/usr/bin/env node
// Wiring only (the skeleton runs it): the aggregator fed from the state plane, UpdateStatusService
// and DisruptionService on one gRPC server, and the two optional writers (on the leader only): the
// policy status as a controller of the aggregator's consumer, the Update Status API beside it.
import { DisruptionServiceService } from "@lockstep/contracts";
import { loadPolicyManifests } from "@lockstep/disruption";
import { runService } from "@lockstep/skeleton";
import { Aggregator } from "./aggregator/aggregator.js";
import { disruptionService } from "./api/disruption-service.js";
import { updateStatusService } from "./api/update-status-service.js";
import { aggregatorConfigSchema } from "./config.js";
import { aggregatorMetrics, metricsHooks, poolMetrics } from "./metrics.js";
import { updateStatusServiceDefinition } from "./proto/fast-encode.js";
import { aggregatorRunnable, type AggregatorController } from "./runnable.js";

await runService({
  name: "status-aggregator",
  config: aggregatorConfigSchema,
  async wire({ config, logger, registry, readiness, bus, leader }) {
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
    poolMetrics(registry, aggregator.view);

    // The alert source (alerts/): the cluster's firing alerts for "Alert is firing" insights.
    const alerts = config.ALERTS_URL
      ? [
          await (await import("./alerts/wire.js")).alertsRunnable(aggregator, logger, {
            url: config.ALERTS_URL,
            tokenFile: config.ALERTS_TOKEN_FILE,
            caFile: config.ALERTS_CA_FILE,
            intervalMs: config.ALERTS_INTERVAL,
            maxAgeMs: config.ALERTS_MAX_AGE ?? 3 * config.ALERTS_INTERVAL,
          }),
        ]
      : [];

    // The NodeDisruptionPolicy status writer is the only part that talks to Kubernetes; loaded only when
    // enabled, so a read-only deployment does not carry the Kubernetes client at all. A controller of
    // the aggregator's consumer: it writes from the same view, only while fresh, only on the leader.
    const controllers: AggregatorController[] = config.WRITE_POLICY_STATUS
      ? [
          (await import("./policy-status/writer.js")).policyStatusController({
            kc: await (await import("@lockstep/kube")).loadKubeAccess(config.KUBECONFIG),
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
            leader,
            registry,
            writesPerSecond: config.UPDATE_API_WRITES_PER_SECOND,
            writeBurst: config.UPDATE_API_WRITE_BURST,
            refreshMs: config.UPDATE_API_REFRESH_MS,
            resyncMs: config.UPDATE_API_RESYNC_MS,
          }),
        ]
      : [];

    return {
      grpc: [
        [updateStatusServiceDefinition, updateStatusService(aggregator, logger)],
        [DisruptionServiceService, disruptionService(aggregator, logger)],
      ],
      runnables: [
        aggregatorRunnable({
          aggregator,
          bus: bus(),
          logger,
          readiness,
          registry,
          stateMaxAgeMs: config.STATE_MAX_AGE,
          watchRefreshMs: config.WATCH_REFRESH_MS,
          controllers,
          leader,
        }),
        ...updateApi,
        ...alerts,
      ],
    };
  },
});
