#!/usr/bin/env node
// Wiring only (the skeleton runs it): the coordinator's runnable, LeaseService on gRPC, and the
// lease webhook (a server part, reading the coordinator's holds) when its certificate is configured.
import { LeaseServiceService } from "@lockstep/contracts";
import { loadKubeAccess } from "@lockstep/kube";
import { runService, serviceEventRecorder, webhookRefusal } from "@lockstep/skeleton";
import { readFileSync } from "node:fs";
import { KubeNodeLookups } from "./admission/node-lookups.js";
import { webhookRefusals } from "./admission/refusal-metrics.js";
import { leaseWebhookPart } from "./admission/webhook-part.js";
import { KubeReviewer } from "./auth/kube-reviews.js";
import { LeaseAuth } from "./auth/lease-auth.js";
import { actsForOf, adaptersOf, authModeOf, classifyOptionsOf, coordinatorId, leaseCoordinatorConfigSchema, policyFromSettings } from "./config.js";
import { createLeaseCoordinator } from "./runnable.js";

const MAX_REQUEST_BYTES = 64 * 1024;

await runService({
  name: "lease-coordinator",
  config: leaseCoordinatorConfigSchema,
  logFields: (config) => ({ replica: coordinatorId(config) }),
  async wire({ config, logger, registry, readiness, bus, leader }) {
    // Without client-node's module graph (~70 MiB) unless the kubeconfig needs it (YAML, exec plugins).
    const kc = await loadKubeAccess(config.KUBECONFIG);
    // Kubernetes Events on the nodes (leases, webhook refusals) and budgets, written by the leader.
    // Every replica grants and answers the webhook: each records its own decisions as Events.
    const kubeEvents = serviceEventRecorder({ service: "lease-coordinator", config, kc, leader, logger, registry, everyReplica: true });
    const authMode = authModeOf(config);
    if (authMode === "none") logger.warn({ LEASE_AUTH: "none" }, "LEASE_AUTH=none: callers are not authenticated and may act as any holder; for local and test runs only");
    else logger.info({ token: authMode.token, mtls: authMode.mtls }, "LeaseService callers are authenticated");
    const lc = createLeaseCoordinator({
      kc,
      auth: new LeaseAuth({ mode: authMode, reviewer: new KubeReviewer(kc, config.LEASE_AUTH_AUDIENCES), cacheTtlMs: config.LEASE_AUTH_CACHE_TTL, logger }),
      bus: bus(),
      policy: policyFromSettings(config).policy,
      logger,
      readiness,
      registry,
      leader,
      stateMaxAgeMs: config.STATE_MAX_AGE,
      sweepIntervalMs: config.SWEEP_INTERVAL,
      budgetResyncMs: config.BUDGET_RESYNC,
      adapters: adaptersOf(config),
      replica: coordinatorId(config),
      kubeEvents: kubeEvents.recorder,
      queue: { natsReplicas: config.NATS_REPLICAS, refreshMs: config.LEASE_QUEUE_REFRESH },
    });

    // At SIGTERM the gRPC server stops first and cuts waiting Acquires: their callers retry on
    // another replica, so their entries in the shared wait queue must stay (runnable.handOver).
    for (const sig of ["SIGTERM", "SIGINT"] as const) process.once(sig, () => lc.handOver());

    function readPem(variable: "ADMISSION_TLS_CERT" | "ADMISSION_TLS_KEY"): Buffer {
      try {
        return readFileSync(config[variable]!);
      } catch (err) {
        logger.fatal({ variable, err: (err as Error).message }, "cannot read the lease webhook's certificate");
        process.exit(2);
      }
    }

    const countRefusal = webhookRefusals(registry);
    // The lease webhook: refuses disruptive API requests on nodes another holder leases (admission/).
    const webhook =
      config.ADMISSION_TLS_CERT !== undefined
        ? leaseWebhookPart({
            tls: { cert: readPem("ADMISSION_TLS_CERT"), key: readPem("ADMISSION_TLS_KEY") },
            port: config.ADMISSION_PORT,
            policy: policyFromSettings(config).policy,
            holds: lc,
            lookups: new KubeNodeLookups(kc),
            actsFor: actsForOf(config),
            breakGlassGroups: config.ADMISSION_BREAK_GLASS_GROUPS,
            logger,
            classify: classifyOptionsOf(config),
            onRefused: (r) => {
              kubeEvents.recorder.record(webhookRefusal({ node: r.node, requester: r.requester, what: r.what, holder: r.hold?.lease.holder ?? "another holder", operation: r.hold?.lease.operation }));
              countRefusal(r.requester, r.operation);
            },
          })
        : undefined;

    return {
      grpc: [[LeaseServiceService, lc.service]],
      // Every LeaseService request is a few hundred bytes; far larger ones are refused by the transport.
      grpcChannelOptions: { "grpc.max_receive_message_length": MAX_REQUEST_BYTES },
      servers: webhook ? [webhook] : [],
      runnables: [kubeEvents.runnable, lc.runnable],
    };
  },
});
