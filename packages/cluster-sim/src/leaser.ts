// Lease integration point: every actor that disrupts a node asks a NodeLeaser first. The default
// grants everything (upstream behaviour: nothing coordinates); LocalLeaser is an in-process exclusive
// lease for scenarios; a gRPC lease-coordinator client can implement the same interface.
export type DisruptionKind = "Update" | "Remediation" | "Maintenance";

/** Resolves once the actor has stopped disrupting `node` (its safe point); the leaser releases then. */
export type PreemptionHandler = (node: string, kind: DisruptionKind, preemptedBy: string) => Promise<void>;

export interface NodeLeaser {
  /** True when `kind` may disrupt `node` now; the caller must release it when done. */
  acquire(node: string, kind: DisruptionKind): Promise<boolean>;
  release(node: string, kind: DisruptionKind): Promise<void>;
  /** A leaser whose holds can be preempted (a forced request) reports it here. */
  setPreemptionHandler?(handler: PreemptionHandler): void;
}

export const noopLeaser: NodeLeaser = {
  acquire: async () => true,
  release: async () => undefined,
};

/** One holder per node; re-acquiring by the same kind succeeds. */
export class LocalLeaser implements NodeLeaser {
  readonly holders = new Map<string, DisruptionKind>();
  private handler: PreemptionHandler | undefined;

  setPreemptionHandler(handler: PreemptionHandler): void {
    this.handler = handler;
  }

  /**
   * A forced request by `by` (in scenarios): the holder stops at its safe point, its hold is
   * released, and only then does `by` hold the node, as the lease-coordinator's preemption does.
   */
  async preempt(node: string, by: DisruptionKind, preemptor: string = by): Promise<void> {
    const held = this.holders.get(node);
    if (held !== undefined && held !== by) await this.handler?.(node, held, preemptor);
    this.holders.set(node, by);
  }
  async acquire(node: string, kind: DisruptionKind): Promise<boolean> {
    const h = this.holders.get(node);
    if (h && h !== kind) return false;
    this.holders.set(node, kind);
    return true;
  }
  async release(node: string, kind: DisruptionKind): Promise<void> {
    if (this.holders.get(node) === kind) this.holders.delete(node);
  }
}
