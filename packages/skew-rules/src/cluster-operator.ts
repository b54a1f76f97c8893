import type { Condition } from "@lockstep/contracts";
import type { Completion } from "./completion.js";
import type { UpgradeableVerdict } from "./upgradeable.js";

export const CLUSTER_OPERATOR_NAME = "lockstep";

export interface RelatedObject {
  readonly group: string;
  readonly resource: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface OperandVersion {
  readonly name: string;
  readonly version: string;
}

/** The status of ClusterOperator `lockstep` as the skew-enforcer wants it. */
export interface ClusterOperatorStatus {
  readonly conditions: readonly Condition[];
  readonly versions: readonly OperandVersion[];
  readonly relatedObjects: readonly RelatedObject[];
}

export interface ClusterOperatorInputs {
  readonly upgradeable: UpgradeableVerdict;
  readonly completion: Completion;
  /** Lockstep's own version, reported as operand `operator`. */
  readonly operatorVersion: string;
  /** Namespace Lockstep runs in (a related object, so must-gather collects it). */
  readonly namespace: string;
  readonly pools: readonly string[];
  /** A problem of the service itself (hot loop, unreadable input); never skew (§4.7). */
  readonly degraded?: { readonly reason: string; readonly message: string } | undefined;
  /** Current conditions: a lastTransitionTime is kept while its status is unchanged. */
  readonly previous?: readonly Condition[] | undefined;
  readonly now: Date;
}

const TYPES = ["Available", "Progressing", "Degraded", "Upgradeable"] as const;

export function desiredClusterOperatorStatus(inputs: ClusterOperatorInputs): ClusterOperatorStatus {
  const { completion, upgradeable } = inputs;
  const bare: Record<(typeof TYPES)[number], Omit<Condition, "lastTransitionTime">> = {
    Available: {
      type: "Available",
      status: "True",
      reason: "AsExpected",
      message: `Lockstep ${inputs.operatorVersion} is evaluating update skew`,
    },
    Progressing: completion.complete
      ? { type: "Progressing", status: "False", reason: "AsExpected", message: completion.message }
      : { type: "Progressing", status: "True", reason: "UpdateIncomplete", message: completion.message },
    Degraded: inputs.degraded
      ? { type: "Degraded", status: "True", reason: inputs.degraded.reason, message: inputs.degraded.message }
      : { type: "Degraded", status: "False", reason: "AsExpected", message: "" },
    Upgradeable: { type: "Upgradeable", status: upgradeable.status, reason: upgradeable.reason, message: upgradeable.message },
  };
  const conditions = TYPES.map((type): Condition => {
    const previous = inputs.previous?.find((c) => c.type === type);
    const keep = previous && previous.status === bare[type].status && previous.lastTransitionTime;
    return { ...bare[type], lastTransitionTime: keep ? previous.lastTransitionTime : inputs.now };
  });
  const relatedObjects: RelatedObject[] = [
    { group: "", resource: "namespaces", name: inputs.namespace },
    { group: "lockstep.io", resource: "bootimagepolicies", name: "cluster" },
    ...[...inputs.pools].sort().map((name) => ({ group: "machineconfiguration.openshift.io", resource: "machineconfigpools", name })),
  ];
  return { conditions, versions: [{ name: "operator", version: inputs.operatorVersion }], relatedObjects };
}

function key(c: Condition): string {
  return JSON.stringify([c.type, c.status, c.reason, c.message]);
}

/**
 * Whether writing `next` would change anything a reader cares about: lastTransitionTime alone
 * never counts, and order does not matter. Used so conditions are written only on change.
 */
export function conditionsChanged(previous: readonly Condition[], next: readonly Condition[]): boolean {
  if (previous.length !== next.length) return true;
  const before = new Set(previous.map(key));
  return next.some((c) => !before.has(key(c)));
}

/** Same for the whole status (conditions, versions and related objects). */
export function clusterOperatorStatusChanged(
  previous: { conditions: readonly Condition[]; versions: readonly OperandVersion[]; relatedObjects: readonly RelatedObject[] },
  next: ClusterOperatorStatus,
): boolean {
  const norm = (r: readonly RelatedObject[]) => JSON.stringify(r.map((o) => [o.group, o.resource, o.namespace ?? "", o.name]).sort());
  const vers = (v: readonly OperandVersion[]) => JSON.stringify(v.map((o) => [o.name, o.version]).sort());
  return (
    conditionsChanged(previous.conditions, next.conditions) ||
    vers(previous.versions) !== vers(next.versions) ||
    norm(previous.relatedObjects) !== norm(next.relatedObjects)
  );
}
