// The coordinator's index of nodes, pools and budgets (ClusterTracker), fed change by change from
// the cache. It remembers which budgets the last change touched, so the budget status controller
// re-evaluates those only; asked about another change it answers every budget (never too few).
import type { StateChange } from "@lockstep/bus";
import { ClusterTracker, type ClusterChange } from "@lockstep/lease-policy";

const CLUSTER_KINDS: ReadonlySet<string> = new Set(["node", "pool", "disruptionBudget"]);

export class ClusterFeed {
  readonly tracker = new ClusterTracker();
  private last: { change: StateChange; touched: ReadonlySet<string> } | undefined;

  /** Applies a node, pool or budget change; false for any other kind. */
  apply(change: StateChange): boolean {
    if (!CLUSTER_KINDS.has(change.parsed.kind)) return false;
    const touched = this.tracker.apply({ kind: change.parsed.kind, name: change.parsed.name, value: change.op === "put" ? change.value : undefined } as ClusterChange);
    this.last = { change, touched };
    return true;
  }

  /** The budgets whose status `change` (already applied) may have changed. */
  touchedBy(change: StateChange): Iterable<string> {
    if (this.last?.change === change) return this.last.touched;
    return this.tracker.budgets.map((b) => b.name);
  }
}
