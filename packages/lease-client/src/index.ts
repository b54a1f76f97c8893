// @lockstep/lease-client: hold node leases through the lease-coordinator with automatic renewal.
export {
  acquireLease,
  LeaseDeniedError,
  LeasePreemptedError,
  preemptorOf,
  type AcquireLeaseOptions,
  type LeaseHolderState,
  type LeaseHandle,
  type PreemptionInfo,
} from "./client.js";
export { CoordinatorNodeLeaser, type CoordinatorLeaserOptions, type DisruptionKind, type NodeLeaser } from "./node-leaser.js";
export { afterRenew, defaultTimings, validateHolderTimings, type HolderTimings, type HolderVerdict, type RenewResult } from "./health.js";
export { toOperationType, type OperationName } from "./operation.js";
