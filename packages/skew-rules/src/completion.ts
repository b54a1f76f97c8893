import type { ClusterVersionState, PoolState } from "@lockstep/contracts";
import { isConditionTrue } from "./conditions.js";
import { type PoolTally, tallyNodes, type TallyNode } from "./node-tally.js";
import { type MachineConfigLookup, releaseOf, sortPools } from "./pools.js";

// evaluateCompletion reads pools and the ClusterVersion whole, its nodes only through the tally
// (NODE_TALLY_INPUTS), its MachineConfigs only through releaseOf (RELEASE_INPUTS).

export type IncompleteCause = "Degraded" | "Paused" | "InProgress";

export interface PoolCompletion {
  readonly pool: string;
  readonly complete: boolean;
  /** Set when incomplete; Degraded wins over Paused, Paused over InProgress. */
  readonly cause?: IncompleteCause;
  readonly nodes: number;
  readonly nodesAtTarget: number;
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
  /** The nodes, or their tally by pool as a NodeTally keeps it current (the same pools). */
  readonly nodes: readonly TallyNode[] | PoolTally;
  readonly machineConfigs: MachineConfigLookup;
}

const DEGRADED_STATES = new Set(["Degraded", "Unreconcilable"]);

/**
 * A node runs the target when it has fully applied (state Done, current = desired) its pool's
 * target rendered config and that config belongs to the target release.
 */
function atTarget(mco: TallyNode["mco"], pool: PoolState, targetRendersTarget: boolean): boolean {
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
  const tally = Array.isArray(inputs.nodes) ? tallyNodes(inputs.nodes as readonly TallyNode[], inputs.pools) : (inputs.nodes as PoolTally);
  const pools = sortPools(inputs.pools).map((pool): PoolCompletion => {
    const targetRelease = releaseOf(pool.targetConfig, inputs.machineConfigs);
    const rendersTarget = target !== "" && targetRelease === target;
    let nodes = 0;
    let nodesAtTarget = 0;
    let degraded = isConditionTrue(pool.conditions, "Degraded");
    for (const c of tally.get(pool.name)?.values() ?? []) {
      nodes += c.count;
      if (atTarget(c.mco, pool, rendersTarget)) nodesAtTarget += c.count;
      if (DEGRADED_STATES.has(c.mco?.state ?? "")) degraded = true;
    }
    const complete = nodesAtTarget === nodes;
    const cause: IncompleteCause | undefined = complete ? undefined : degraded ? "Degraded" : pool.paused ? "Paused" : "InProgress";
    const partial = { pool: pool.name, complete, ...(cause ? { cause } : {}), nodes, nodesAtTarget };
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
