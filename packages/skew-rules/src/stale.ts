// What the skew-enforcer says while its view of the cluster is stale (the watcher's heartbeat is
// overdue). Fail closed: a minor upgrade is blocked, because "every pool is on the current minor"
// can no longer be known, and the CVO already honours Upgradeable=False on ClusterOperator
// `lockstep`. Holding the last written Upgradeable=True instead would let an upgrade start on a
// judgement nobody can vouch for. Everything else is held as last written: a stale view must not
// move Progressing or say the update is complete (no update.completed either, see services/skew-enforcer/src/enforcer/enforcer.ts).
import type { Condition } from "@lockstep/contracts";
import type { ClusterOperatorStatus } from "./cluster-operator.js";
import type { SkewEvaluation } from "./evaluate.js";
import type { UpgradeableVerdict } from "./upgradeable.js";

export const REASON_STATE_STALE = "StateStale";

/** Upgradeable=False with reason StateStale; `why` e.g. "the watcher has not been heard from for 41 s". */
export function staleUpgradeable(why: string): UpgradeableVerdict {
  return {
    status: "False",
    reason: REASON_STATE_STALE,
    message: `Lockstep cannot tell whether every pool is on the current minor version: ${why}. Minor upgrades are blocked until it is heard from again; check the watcher (lockstep-watcher pods, their logs and the API server).`,
    blockingReasons: [REASON_STATE_STALE],
    blockingPools: [],
    allowedPausedPools: [],
    judgedTarget: "",
  };
}

/** The evaluation with its Upgradeable verdict replaced while the view is stale. */
export function staleEvaluation(e: SkewEvaluation, why: string): SkewEvaluation {
  return { ...e, upgradeable: staleUpgradeable(why) };
}

/** The desired status with every condition but Upgradeable held as it was (where there was one). */
export function holdAllButUpgradeable(desired: ClusterOperatorStatus, previous: readonly Condition[]): ClusterOperatorStatus {
  const conditions = desired.conditions.map((c) => (c.type === "Upgradeable" ? c : (previous.find((p) => p.type === c.type) ?? c)));
  return { ...desired, conditions };
}
