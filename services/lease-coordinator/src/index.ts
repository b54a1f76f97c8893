// Public surface (for in-process tests and benchmarks): the runnable, its config and the pure core.
export { createLeaseCoordinator, type LeaseCoordinator, type LeaseCoordinatorOptions } from "./runnable.js";
export { leaseCoordinatorConfigSchema, policyFromSettings, coordinatorId, type LeaseCoordinatorConfig } from "./config.js";
export { Coordinator, CoordinatorError } from "./coordinator/coordinator.js";
export { LeaseIndex } from "./store/lease-index.js";
export * as policy from "@lockstep/lease-policy";
export { makeJsonApiClient } from "./store/lease-json-client.js";
export { LeaseAuth, AuthError, parseAuthMode, type AuthMode, type LeaseVerb } from "./auth/lease-auth.js";
export { KubeReviewer, type Reviewer } from "./auth/kube-reviews.js";
export { startLeaseWebhook, type LeaseHolds, type LeaseWebhook, type LeaseWebhookOptions } from "./admission/webhook.js";
export { leaseWebhookPart } from "./admission/webhook-part.js";
export { DEFAULT_ACTS_FOR } from "./admission/verdict.js";
export { DEFAULT_TAINT_EXEMPT_KEYS } from "./admission/taints.js";
export { DESIRED_CONFIG } from "./admission/disruption.js";
