import type { PolicyConfig } from "./config.js";
import { leaseValidity, type Validity } from "./expiry.js";
import { decodeLease, type LeaseRecord } from "./lease-record.js";
import { leaseKey, observe, type ObservationLog } from "./observations.js";
import type { SlotView } from "./occupancy.js";
import type { ObservedState } from "./types.js";

/** The leases of one decision, decoded once and judged on this replica's clock. */
export interface LeaseView {
  records: LeaseRecord[];
  observations: ObservationLog;
  validity(rec: LeaseRecord): Validity;
  /** This replica's first sighting of the record's current version (local clock, ms). */
  firstSeenMs(rec: LeaseRecord): number;
  /** Lockstep's own Lease for the node, if it exists. */
  nodeLease(node: string): LeaseRecord | undefined;
  foreignLeases(node: string): LeaseRecord[];
  slots(scope: string): SlotView[];
  /** Nodes with a valid hold on any node lease (ours or foreign). */
  heldNodes: Set<string>;
}

export function buildView(observed: ObservedState, nowMs: number, policy: PolicyConfig): LeaseView {
  const records = (observed.records as LeaseRecord[] | undefined) ?? observed.leases.map((l) => decodeLease(l, policy)).filter((r): r is LeaseRecord => r !== undefined);
  // A log the caller keeps current is read as it is; otherwise this view's sightings are recorded.
  const observations = observed.observationsCurrent === true && observed.observations !== undefined ? observed.observations : observe(observed.observations ?? new Map(), records, nowMs);
  const cache = new Map<LeaseRecord, Validity>();
  const validity = (rec: LeaseRecord): Validity => {
    let v = cache.get(rec);
    if (v === undefined) {
      v = leaseValidity(rec, observations.get(leaseKey(rec))?.firstSeenMs ?? nowMs, nowMs, policy);
      cache.set(rec, v);
    }
    return v;
  };
  const heldNodes = new Set(records.filter((r) => r.kind !== "slot" && validity(r).status === "held").map((r) => r.node));
  return {
    records,
    observations,
    validity,
    firstSeenMs: (rec) => observations.get(leaseKey(rec))?.firstSeenMs ?? nowMs,
    nodeLease: (node) => records.find((r) => r.kind === "node" && r.node === node),
    foreignLeases: (node) => records.filter((r) => r.kind === "foreign" && r.node === node),
    slots: (scope) => records.filter((r) => r.kind === "slot" && r.scope === scope).map((rec) => ({ rec, validity: validity(rec) })),
    heldNodes,
  };
}
