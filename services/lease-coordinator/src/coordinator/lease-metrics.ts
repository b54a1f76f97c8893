// lockstep_lease_oldest_held_seconds and lockstep_lease_oldest_preemption_pending_seconds: per
// operation, the age of the oldest valid hold and of the oldest preemption its holder has not yet
// yielded to, as this replica's lease index sees them, computed at scrape time. One series per
// operation (a handful), never per node: at 10,000 nodes an alert needs the oldest, not each.
import { leaseValidity, OPERATION_NAMES, type LeaseRecord, type Observation, type PolicyConfig } from "@lockstep/lease-policy";
import { Gauge, type Registry } from "prom-client";

export const OLDEST_HELD_METRIC = "lockstep_lease_oldest_held_seconds";
export const OLDEST_PREEMPTION_METRIC = "lockstep_lease_oldest_preemption_pending_seconds";

/** The operation label of a record: its operation, or "unknown" when the lease does not say one. */
const operationLabel = (rec: LeaseRecord) => rec.operation ?? "unknown";

export interface LeaseAges {
  /** Per operation: seconds since the oldest valid hold was acquired. */
  held: Map<string, number>;
  /** Per operation (of the preempted hold): seconds since the oldest still-held lease was marked preempted. */
  preemptionPending: Map<string, number>;
}

/**
 * Pure: the oldest hold and oldest pending preemption per operation. Node and foreign leases only
 * (budget slots mirror node holds); admin holds are deliberate and unbounded, so they are left out.
 * A hold's age runs from its acquireTime, or from when this replica first saw it when it has none.
 */
export function leaseAges(leases: Iterable<{ key: string; rec: LeaseRecord }>, observations: ReadonlyMap<string, Observation>, nowMs: number, policy: PolicyConfig): LeaseAges {
  const held = new Map<string, number>();
  const preemptionPending = new Map<string, number>();
  const older = (m: Map<string, number>, op: string, seconds: number) => m.set(op, Math.max(m.get(op) ?? 0, Math.max(0, seconds)));
  for (const { key, rec } of leases) {
    if (rec.kind === "slot") continue;
    const firstSeenMs = observations.get(key)?.firstSeenMs ?? nowMs;
    const v = leaseValidity(rec, firstSeenMs, nowMs, policy);
    if (v.status !== "held" || v.adminHold) continue;
    const op = operationLabel(rec);
    older(held, op, (nowMs - (rec.acquireTime?.getTime() ?? firstSeenMs)) / 1000);
    if (rec.preemptedBy !== "") older(preemptionPending, op, (nowMs - (rec.preemptedAt?.getTime() ?? firstSeenMs)) / 1000);
  }
  return { held, preemptionPending };
}

export interface LeaseAgeSource {
  all(): Array<{ key: string; rec: LeaseRecord }>;
  readonly observations: ReadonlyMap<string, Observation>;
}

/**
 * Registers both gauges on `registry`, read from `index()` at scrape time. Every known operation has
 * a series (0 when none is held) so an absent series means "not scraped", not "nothing held"; a
 * rewiring (NATS reconnect) replaces the source.
 */
export function observeLeaseAges(registry: Registry, index: () => LeaseAgeSource | undefined, policy: PolicyConfig, clock: () => number = Date.now): void {
  // Each gauge walks the index at its own collect (twice a scrape): a few milliseconds at 10,000
  // leases, and no cached answer can outlive the scrape it was computed for.
  const current = () => {
    const idx = index();
    return idx ? leaseAges(idx.all(), idx.observations, clock(), policy) : { held: new Map<string, number>(), preemptionPending: new Map<string, number>() };
  };
  const gauge = (name: string, help: string, pick: (a: LeaseAges) => Map<string, number>) => {
    if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
    new Gauge({
      name,
      help,
      labelNames: ["operation"],
      registers: [registry],
      collect() {
        this.reset();
        const m = pick(current());
        for (const op of new Set([...OPERATION_NAMES, ...m.keys()])) this.set({ operation: op }, m.get(op) ?? 0);
      },
    });
  };
  gauge(OLDEST_HELD_METRIC, "Age in seconds of the oldest valid node lease hold per operation (admin holds left out), as this replica's lease index sees it; 0 when none is held.", (a) => a.held);
  gauge(
    OLDEST_PREEMPTION_METRIC,
    "Age in seconds of the oldest preemption mark on a lease still held, per operation of the preempted hold, as this replica sees it; 0 when none is pending.",
    (a) => a.preemptionPending,
  );
}
