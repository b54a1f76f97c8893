// DisruptionBudget status: valid or not (and why), what it allows now and how many of its nodes
// are disrupted. Written only when it differs from what the object already says.
import type { DisruptionBudgetState, PoolState } from "@lockstep/contracts";
import { CustomObjectsApi, isConflict, isNotFound, makeJsonApiClient, type JsonCustomObjectsApi, type KubeConfigLike } from "@lockstep/kube";
import { evaluateBudget, indexCluster, scopeOccupancy, type ClusterIndex, type LeaseNode, type PolicyConfig, type SlotView } from "@lockstep/lease-policy";

export interface BudgetStatus {
  observedGeneration: number;
  valid: boolean;
  message: string;
  /** Whether the budget bounds anything right now (schedules). */
  active: boolean;
  /** Nodes it may have disrupted now; absent while it does not bound anything. */
  allowed?: number;
  members: number;
  /** What a grant is measured against (the slot rule, scopeOccupancy): a grant fits while disrupted < allowed. */
  disrupted: number;
  disruptedNodes: string[];
}

/**
 * Pure: the status a budget should show, given which nodes hold a valid lease now and the budget's
 * slot leases (view.slots(budgetScopeKey(name))). Disruption is counted by the same rule the grants
 * are decided by (scopeOccupancy), so the status never says there is room a grant would not find.
 */
export function budgetStatus(
  budget: DisruptionBudgetState,
  nodes: readonly LeaseNode[],
  pools: readonly PoolState[],
  heldNodes: ReadonlySet<string>,
  slots: readonly SlotView[],
  now: Date,
  policy: PolicyConfig,
  cluster: ClusterIndex = indexCluster(nodes, pools, [budget]),
): BudgetStatus {
  const ev = evaluateBudget(budget, nodes, pools, now, policy, cluster);
  const membership = cluster.budgetMembers(budget);
  const members = ev.members === membership.members ? membership.set : new Set(ev.members);
  const used = scopeOccupancy(members, slots, cluster, heldNodes);
  const status: BudgetStatus = {
    observedGeneration: Number(budget.generation) || 0,
    valid: ev.valid,
    message: ev.message,
    active: ev.active,
    members: ev.members.length,
    disrupted: used.used,
    disruptedNodes: used.nodes,
  };
  if (ev.active && Number.isFinite(ev.limit)) status.allowed = ev.limit;
  return status;
}

/** Whether `current` (the object's status as read) already says everything `desired` does. */
export function statusEqual(current: unknown, desired: BudgetStatus): boolean {
  if (current === null || typeof current !== "object") return false;
  const c = current as Record<string, unknown>;
  return (Object.keys(desired) as (keyof BudgetStatus)[]).every((k) => JSON.stringify(c[k]) === JSON.stringify(desired[k])) && (desired.allowed !== undefined || c.allowed === undefined);
}

const GROUP = { group: "lockstep.io", version: "v1alpha1", plural: "disruptionbudgets" } as const;

export type StatusWriteResult = "unchanged" | "written" | "gone";

/** Reads the object and replaces its status (compare-and-swap on its resourceVersion) when it differs. */
export class BudgetStatusWriter {
  private readonly custom: JsonCustomObjectsApi;

  constructor(kc: KubeConfigLike) {
    this.custom = makeJsonApiClient(kc, CustomObjectsApi);
  }

  async write(name: string, desired: BudgetStatus): Promise<StatusWriteResult> {
    let obj: Record<string, any>;
    try {
      obj = await this.custom.getClusterCustomObject({ ...GROUP, name });
    } catch (err) {
      if (isNotFound(err)) return "gone";
      throw err;
    }
    if (statusEqual(obj.status, desired)) return "unchanged";
    try {
      await this.custom.replaceClusterCustomObjectStatus({ ...GROUP, name, body: { ...obj, status: desired } });
      return "written";
    } catch (err) {
      if (isNotFound(err)) return "gone";
      if (isConflict(err)) throw new Error(`DisruptionBudget ${name} changed while its status was written; retrying`);
      throw err;
    }
  }
}
