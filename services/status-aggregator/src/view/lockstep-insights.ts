// Health insights only Lockstep can give (status-insights.md leaves room for them in §11): a node
// held by a maintenance or fencing lease, a degraded boot image update, a blocked next minor update.
// Each is produced only when its condition holds, so clusters where none applies render exactly as
// `oc adm upgrade status`. Pure.
import type { BootImagePolicyState, ClusterOperatorState } from "@lockstep/contracts";
import { type HealthInsight, type NodeRecord, ZERO_TIME } from "@lockstep/insights";
import type { NodeHold } from "./lease-holds.js";

export const R_LEASES = "https://kubernetes.io/docs/concepts/architecture/leases/";
export const R_BOOT_IMAGES = "https://docs.openshift.com/container-platform/latest/machine_configuration/mco-update-boot-images.html";
export const R_UPGRADEABLE = "https://docs.openshift.com/container-platform/latest/updating/understanding_updates/intro-to-updates.html";

const MS_TO_NS = 1_000_000n;
const at = (ms: number | undefined): bigint => (ms === undefined ? ZERO_TIME : BigInt(ms) * MS_TO_NS);

export interface LockstepInputs {
  holds: ReadonlyMap<string, NodeHold>;
  /** Looks up the aggregator's record of a node (undefined: not shown in any pool). */
  record: (node: string) => NodeRecord | undefined;
  bootImagePolicy: BootImagePolicyState | undefined;
  /** ClusterOperator `lockstep`, written by the skew-enforcer. */
  lockstepOperator: ClusterOperatorState | undefined;
}

/** A hold on a node that still has to update slows the update; on an updated node it is information. */
export function holdInsight(hold: NodeHold, record: NodeRecord | undefined): HealthInsight {
  const blocking = record !== undefined && !record.isUpdated;
  const what = hold.operation === "Fence" ? "fencing" : "maintenance";
  const scopeType = record?.scopeType ?? "WorkerPool";
  const reason = hold.reason ? ` Reason: ${hold.reason}.` : "";
  return {
    startedAt: at(hold.acquiredAtMs),
    scopeType,
    resources: [{ kind: "Node", name: hold.node }],
    level: blocking ? "Warning" : "Info",
    impact: blocking ? "Update Speed" : "None",
    summary: `Node ${hold.node} is held by a ${what} lease (${hold.holder})`,
    description:
      `Lease ${hold.namespace}/${hold.lease} gives ${hold.holder} exclusive use of the node for ${hold.operation}.` +
      (blocking ? " The node will not be updated until the lease is released or expires." : " The node is already updated.") +
      reason,
    reference: R_LEASES,
  };
}

export function bootImageInsight(policy: BootImagePolicyState | undefined): HealthInsight | undefined {
  const degraded = policy?.conditions.find((c) => c.type === "BootImageUpdateDegraded");
  if (!degraded || degraded.status !== "True") return undefined;
  return {
    startedAt: degraded.lastTransitionTime ? at(degraded.lastTransitionTime.getTime()) : ZERO_TIME,
    scopeType: "WorkerPool",
    resources: [{ kind: "BootImagePolicy", group: "lockstep.io", name: policy!.name }],
    level: "Warning",
    impact: "Cluster Capacity",
    summary: `Boot images are not up to date (${degraded.reason})`,
    description: `${degraded.message || "The boot image update is degraded."} New nodes may fail to join the cluster until this is resolved.`,
    reference: R_BOOT_IMAGES,
  };
}

export function upgradeableInsight(operator: ClusterOperatorState | undefined): HealthInsight | undefined {
  const c = operator?.conditions.find((x) => x.type === "Upgradeable");
  if (!c || c.status !== "False") return undefined;
  return {
    startedAt: c.lastTransitionTime ? at(c.lastTransitionTime.getTime()) : ZERO_TIME,
    scopeType: "ControlPlane",
    resources: [{ kind: "ClusterOperator", group: "config.openshift.io", name: operator!.name }],
    level: "Info",
    impact: "None",
    summary: `The next minor update is blocked (${c.reason})`,
    description: c.message || "ClusterOperator lockstep reports Upgradeable=False.",
    reference: R_UPGRADEABLE,
  };
}

/** Lockstep's insights in a fixed order: holds by node name, then boot images, then upgradeability. */
export function lockstepInsights(inputs: LockstepInputs): HealthInsight[] {
  const out: HealthInsight[] = [];
  const nodes = [...inputs.holds.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  for (const n of nodes) out.push(holdInsight(inputs.holds.get(n)!, inputs.record(n)));
  const boot = bootImageInsight(inputs.bootImagePolicy);
  if (boot) out.push(boot);
  const upgradeable = upgradeableInsight(inputs.lockstepOperator);
  if (upgradeable) out.push(upgradeable);
  return out;
}
