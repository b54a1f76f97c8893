// The feed: state-plane changes into the status view (nodes, pools, configs, the ClusterVersion and
// operators), and the objects read beside it kept here: leases and Lockstep's own objects (its
// insights), MachineConfigs (previews), NodeDisruptionPolicies (effective rules). Pure.
import type { StateChange } from "@lockstep/bus";
import type {
  BootImagePolicyState,
  ClusterOperatorState,
  ClusterVersionState,
  LeaseState,
  MachineConfigState,
  NodeDisruptionPolicyState,
  NodeState,
  PoolState,
} from "@lockstep/contracts";
import type { ResolvedPolicies } from "@lockstep/disruption";
import { effectivePolicies } from "../preview/policies.js";
import type { StatusView } from "../view/status-view.js";

/** ClusterOperator written by the skew-enforcer; its Upgradeable=False blocks the next minor update. */
export const LOCKSTEP_OPERATOR = "lockstep";
const BOOT_IMAGE_POLICY = "cluster";

export class StateFeed {
  /** By state key (a lease's namespace is part of its identity). */
  readonly leases = new Map<string, LeaseState>();
  readonly machineConfigs = new Map<string, MachineConfigState>();
  private readonly policies = new Map<string, NodeDisruptionPolicyState>();
  private bootImagePolicyState: BootImagePolicyState | undefined;
  private lockstepOperatorState: ClusterOperatorState | undefined;

  /** `shippedPolicies`: the default NodeDisruptionPolicy manifests, used when the cluster has none. */
  constructor(
    private readonly view: StatusView,
    private readonly shippedPolicies: readonly unknown[] = [],
  ) {}

  get bootImagePolicy(): BootImagePolicyState | undefined {
    return this.bootImagePolicyState;
  }

  get lockstepOperator(): ClusterOperatorState | undefined {
    return this.lockstepOperatorState;
  }

  /** Applies one change; false when it is of a kind the aggregator does not read. */
  apply(change: StateChange): boolean {
    const { kind, name } = change.parsed;
    const rev = change.revision;
    switch (kind) {
      case "node":
        this.view.setNode(name, change.op === "put" ? (change.value as NodeState) : undefined, rev);
        return true;
      case "pool":
        this.view.setPool(name, change.op === "put" ? (change.value as PoolState) : undefined, rev);
        return true;
      case "machineConfig": {
        const s = change.op === "put" ? (change.value as MachineConfigState) : undefined;
        if (s) this.machineConfigs.set(name, s);
        else this.machineConfigs.delete(name);
        this.view.setMachineConfig(name, s, rev);
        return true;
      }
      case "clusterVersion":
        this.view.setClusterVersion(change.op === "put" ? (change.value as ClusterVersionState) : undefined, rev);
        return true;
      case "clusterOperator": {
        const s = change.op === "put" ? (change.value as ClusterOperatorState) : undefined;
        this.view.setClusterOperator(name, s);
        if (name === LOCKSTEP_OPERATOR) this.lockstepOperatorState = s;
        return true;
      }
      case "lease":
        if (change.op === "put") this.leases.set(change.key, change.value as LeaseState);
        else this.leases.delete(change.key);
        return true;
      case "bootImagePolicy":
        if (name === BOOT_IMAGE_POLICY) this.bootImagePolicyState = change.op === "put" ? (change.value as BootImagePolicyState) : undefined;
        return true;
      case "nodeDisruptionPolicy":
        if (change.op === "put") this.policies.set(name, change.value as NodeDisruptionPolicyState);
        else this.policies.delete(name);
        return true;
      default:
        return false;
    }
  }

  /** The effective NodeDisruptionPolicy rules: the cluster's objects, or the shipped defaults. */
  resolvedPolicies(): ResolvedPolicies {
    return effectivePolicies([...this.policies.values()], this.shippedPolicies);
  }
}
