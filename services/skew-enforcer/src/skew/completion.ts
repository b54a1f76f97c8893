import type { ClusterVersionState, NodeState, PoolState } from "@lockstep/contracts";
import { isConditionTrue } from "./conditions.js";
import { type MachineConfigLookup, nodesByPool, releaseOf, sortPools } from "./pools.js";

export type IncompleteCause = "Degraded" | "Paused" | "InProgress";

export interface PoolCompletion {
  readonly pool: string;
  readonly complete: boolean;
  /** Set when incomplete; Degraded wins over Paused, Paused over InProgress. */
  readonly cause?: IncompleteCause;
  readonly nodes: number;
  readonly nodesAtTarget: number;
  /** Nodes not yet on the target, by name (for the status message). */
  readonly behind: readonly string[];
  readonly message: string;
}

export interface Completion {
  /** The update's target: ClusterVersion status.desired.version. */
  readonly targetVersion: string;
  /** ClusterVersion's newest history entry is the target and `Completed`. */
  readonly controlPlaneComplete: boolean;
  /** Every node in every pool (paused included) runs the target, and the control plane is done. */
  readonly complete: boolean;
  readonly nodes: number;
  readonly pools: readonly PoolCompletion[];
  readonly incompletePools: readonly PoolCompletion[];
  readonly message: string;
}

export interface CompletionInputs {
  readonly clusterVersion: ClusterVersionState | undefined;
  readonly pools: readonly PoolState[];
  readonly nodes: readonly NodeState[];
  readonly machineConfigs: MachineConfigLookup;
}

const DEGRADED_STATES = new Set(["Degraded", "Unreconcilable"]);

/**
 * A node runs the target when it has fully applied (state Done, current = desired) its pool's
 * target rendered config and that config belongs to the target release.
 */
function nodeAtTarget(node: NodeState, pool: PoolState, targetRendersTarget: boolean): boolean {
  const mco = node.mco;
  return (
    targetRendersTarget &&
    !!mco &&
    mco.state === "Done" &&
    mco.currentConfig === pool.targetConfig &&
    mco.desiredConfig === mco.currentConfig
  );
}

function poolMessage(p: Omit<PoolCompletion, "message">, pool: PoolState, target: string, targetRelease: string): string {
  const progress = `${p.nodesAtTarget} of ${p.nodes} nodes at ${target}`;
  switch (p.cause) {
    case undefined:
      return `pool ${p.pool}: all ${p.nodes} nodes at ${target}`;
    case "Degraded":
      return `pool ${p.pool} is degraded: ${progress}; resolve the degraded nodes (oc get mcp ${p.pool})`;
    case "Paused":
      return `pool ${p.pool} is paused: ${progress}; unpause it to finish the update`;
    case "InProgress":
      return targetRelease !== target
        ? `pool ${p.pool} is in progress: its target config ${pool.targetConfig || "(none)"} is not yet rendered for ${target}`
        : `pool ${p.pool} is in progress: ${progress}`;
  }
}

/** Whether the update to ClusterVersion's desired version is complete on every node of every pool. */
export function evaluateCompletion(inputs: CompletionInputs): Completion {
  const target = inputs.clusterVersion?.desired?.version ?? "";
  const newest = inputs.clusterVersion?.history[0];
  const controlPlaneComplete = target !== "" && newest?.version === target && newest.state === "Completed";
  const members = nodesByPool(inputs.nodes, inputs.pools);
  const pools = sortPools(inputs.pools).map((pool): PoolCompletion => {
    const nodes = members.get(pool.name) ?? [];
    const targetRelease = releaseOf(pool.targetConfig, inputs.machineConfigs);
    const rendersTarget = target !== "" && targetRelease === target;
    const behind = nodes.filter((n) => !nodeAtTarget(n, pool, rendersTarget)).map((n) => n.name);
    const complete = behind.length === 0;
    const degraded = isConditionTrue(pool.conditions, "Degraded") || nodes.some((n) => DEGRADED_STATES.has(n.mco?.state ?? ""));
    const cause: IncompleteCause | undefined = complete ? undefined : degraded ? "Degraded" : pool.paused ? "Paused" : "InProgress";
    const partial = { pool: pool.name, complete, ...(cause ? { cause } : {}), nodes: nodes.length, nodesAtTarget: nodes.length - behind.length, behind };
    return { ...partial, message: poolMessage(partial, pool, target, targetRelease) };
  });
  const incompletePools = pools.filter((p) => !p.complete);
  const complete = target !== "" && controlPlaneComplete && pools.length > 0 && incompletePools.length === 0;
  const nodeCount = pools.reduce((n, p) => n + p.nodes, 0);
  let message: string;
  if (target === "") message = "ClusterVersion has no desired version";
  else if (pools.length === 0) message = `no machine config pools: completion of ${target} cannot be judged`;
  else if (complete) message = `all ${nodeCount} nodes in ${pools.length} pools run ${target}`;
  else {
    const parts = [
      ...(controlPlaneComplete ? [] : [`the cluster version operator has not completed ${target}`]),
      ...incompletePools.map((p) => p.message),
    ];
    message = `update to ${target} is not complete: ${parts.join("; ")}`;
  }
  return { targetVersion: target, controlPlaneComplete, complete, nodes: nodeCount, pools, incompletePools, message };
}
