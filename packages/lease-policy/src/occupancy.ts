// The slot rule: which members of a scope (a pool or a DisruptionBudget) count as disrupted now.
// Decisions (planSlot) and the DisruptionBudget status counter both read it from here, so what a
// budget's status says is used is exactly what a grant is refused on.
import type { ClusterIndex } from "./cluster.js";
import type { Validity } from "./expiry.js";
import type { LeaseRecord } from "./lease-record.js";

export interface SlotView {
  rec: LeaseRecord;
  validity: Validity;
}

/** A scope's slot lease key for a DisruptionBudget (the pool's is `pool.<name>`). */
export function budgetScopeKey(name: string): string {
  return `budget.${name}`;
}

export interface ScopeOccupancy {
  /** Slots that count: held ones, and expired or released ones whose node is still disrupted. */
  slotted: SlotView[];
  /** Members disrupted without a counted slot (NotReady, cordoned, or held by a lease that took none). */
  withoutSlot: string[];
  /** What the scope's limit is measured against: slotted + withoutSlot. */
  used: number;
  /** The nodes behind `used`, sorted, each once. */
  nodes: string[];
}

/**
 * The slot rule. `forNode` is the node a grant is being decided for: its own disruption and its own
 * lapsed slot are not counted against it (it is asking for exactly that room); the status counter
 * passes none.
 */
export function scopeOccupancy(
  members: ReadonlySet<string>,
  slots: readonly SlotView[],
  cluster: Pick<ClusterIndex, "disruptedWithoutLease">,
  heldNodes: ReadonlySet<string>,
  forNode = "",
): ScopeOccupancy {
  // A slot whose lease expired or was released while its node is still disrupted (NotReady,
  // cordoned, deleting) keeps counting that node: a replica that still sees the slot held (expiry is
  // judged on each replica's clock, a release may land after it decided) counts the node there, and
  // moving the node to the slot-less count would shift the usable indices under it, so two grants
  // could land on different slots without any CAS colliding.
  const slotted = slots.filter((s) => slotCounts(s, cluster, forNode));
  const slottedNodes = new Set(slotted.map((s) => s.rec.node));
  // Found from the disrupted side (held or unavailable nodes), which is small, instead of walking
  // every member of a 10,000-node pool.
  const withoutSlot: string[] = [];
  for (const from of [heldNodes, cluster.disruptedWithoutLease]) {
    for (const m of from) {
      if (m === forNode || slottedNodes.has(m) || !members.has(m) || (from !== heldNodes && heldNodes.has(m))) continue;
      withoutSlot.push(m);
    }
  }
  const nodes = [...new Set([...slottedNodes, ...withoutSlot])].filter((n) => n !== "").sort();
  return { slotted, withoutSlot, used: slotted.length + withoutSlot.length, nodes };
}

/** Whether one slot counts against its scope (see scopeOccupancy). */
export function slotCounts(s: SlotView, cluster: Pick<ClusterIndex, "disruptedWithoutLease">, forNode = ""): boolean {
  return s.validity.status === "held" || (s.rec.node !== "" && s.rec.node !== forNode && cluster.disruptedWithoutLease.has(s.rec.node));
}
