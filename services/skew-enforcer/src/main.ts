#!/usr/bin/env node
// Wiring only (the skeleton runs it): the enforcer's runnable and SkewService on gRPC.
import { SkewServiceService } from "@lockstep/contracts";
import { loadKubeAccess } from "@lockstep/kube";
import { runService, serviceEventRecorder } from "@lockstep/skeleton";
import { skewServiceImpl } from "./api/skew-service.js";
import { skewEnforcerConfigSchema, skewSettingsFromConfig } from "./config.js";
import { skewEnforcer } from "./runnable.js";

await runService({
  name: "skew-enforcer",
  config: skewEnforcerConfigSchema,
  async wire({ config, logger, registry, readiness, bus, leader }) {
    const kc = await loadKubeAccess(config.KUBECONFIG);
    // Kubernetes Events on the ClusterVersion (upgrade blocked/allowed) and lagging pools, by the leader.
    const kubeEvents = serviceEventRecorder({ service: "skew-enforcer", config, kc, leader, logger, registry });
    const { runnable, enforcer } = skewEnforcer({
      kc,
      kubeEvents: kubeEvents.recorder,
      bus: bus(),
      logger,
      registry,
      readiness,
      leader,
      settings: skewSettingsFromConfig(config),
      namespace: config.LOCKSTEP_NAMESPACE,
      operatorVersion: config.OPERATOR_VERSION,
      resyncMs: config.RESYNC_PERIOD,
      evaluateDelayMs: config.EVALUATE_DELAY,
      stateMaxAgeMs: config.STATE_MAX_AGE,
      bootImagesNamespace: config.BOOTIMAGES_NAMESPACE,
      bootImagesName: config.BOOTIMAGES_CONFIGMAP,
    });
    return { grpc: [[SkewServiceService, skewServiceImpl(enforcer, logger)]], runnables: [kubeEvents.runnable, runnable] };
  },
});
