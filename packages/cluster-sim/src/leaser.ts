// Lease integration point: every actor that disrupts a node asks a NodeLeaser first. The default
// grants everything (upstream behaviour: nothing coordinates); LocalLeaser is an in-process exclusive
// lease for scenarios; a gRPC lease-coordinator client can implement the same interface.
export type DisruptionKind = "Update" | "Remediation" | "Maintenance";

export interface NodeLeaser {
  /** True when `kind` may disrupt `node` now; the caller must release it when done. */
  acquire(node: string, kind: DisruptionKind): Promise<boolean>;
  release(node: string, kind: DisruptionKind): Promise<void>;
}

export const noopLeaser: NodeLeaser = {
  acquire: async () => true,
  release: async () => undefined,
};

/** One holder per node; re-acquiring by the same kind succeeds. */
export class LocalLeaser implements NodeLeaser {
  readonly holders = new Map<string, DisruptionKind>();
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
