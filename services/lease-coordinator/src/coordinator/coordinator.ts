// One coordinator replica: read (state plane + own overlay) → decide (pure policy) → CAS-write,
// and on a 409 re-read the Lease from the API and decide again. No leader election: every
// decision is a compare-and-swap on the Lease objects themselves, so replicas cannot both win.
import { OperationType, type AcquireRequest, type NodeLease, type Warning } from "@lockstep/contracts";
import type { Logger } from "pino";
import type { Freshness } from "@lockstep/runtime";
import {
  buildView,
  decide,
  decideCancelPreemption,
  decideRelease,
  decideRenew,
  operationName,
  parsePreemptor,
  preflightUpgrade,
  refuseWhenStale,
  requiredScopes,
  toNodeLease,
  type Decision,
  type DenyCode,
  type LeaseWrite,
  type ObservedState,
  type OperationName,
  type PolicyConfig,
  type PolicyEvent,
  type ReleaseDecision,
  type StaleView,
  type Waiter,
  type ClusterIndex,
  type QueueCandidate,
} from "@lockstep/lease-policy";
import type { LeaseApi } from "../store/kube-leases.js";
import type { LeaseIndex } from "../store/lease-index.js";
import { toOutgoing, type EventContext, type OutgoingEvent } from "./events.js";
import type { LeaseState } from "@lockstep/contracts";

/** The non-lease part of the state plane a decision reads, indexed once per snapshot. */
export interface ClusterView {
  cluster(): ClusterIndex;
}

/** A node's current hold and how long it lasts (Infinity for an admin hold). */
export interface NodeHold {
  lease: NodeLease;
  expiresInSeconds: number;
  adminHold: boolean;
}

/**
 * The wait line decisions read (coordinator/shared-queue.ts: one line for every replica). A
 * registration is what makes a waiter count for others; the line is read afresh for each decision.
 */
export interface WaitLine {
  queueFor(candidate: QueueCandidate | undefined, nowMs: number): Waiter[];
  /** `call` identifies the waiting call (one caller may have two here for a moment after a retry). */
  register(waiter: Omit<Waiter, "enqueuedMs">, call: object): Promise<void>;
  /** `cancelled`: the call was cut before its answer (by its caller, or by this replica's shutdown). */
  unregister(holder: string, node: string, cancelled: boolean, call: object): Promise<void>;
}

export interface EventSink {
  emit(events: OutgoingEvent[]): void;
}

export type CoordinatorErrorKind = "invalid" | "refused" | "unavailable" | "internal" | "cancelled";

export class CoordinatorError extends Error {
  constructor(
    readonly kind: CoordinatorErrorKind,
    message: string,
  ) {
    super(message);
    this.name = "CoordinatorError";
  }
}

export type AcquireOutcome =
  | { kind: "granted"; lease: NodeLease; warnings: Warning[]; renewal: boolean; preemptionRequestedBy: string }
  | { kind: "denied"; code: DenyCode; reason: string; current: NodeLease | undefined; retryAfterSeconds: number; warnings: Warning[] };

export type RenewOutcome =
  | { kind: "renewed"; lease: NodeLease; warnings: Warning[]; preemptionRequestedBy: string }
  | { kind: "refused"; code: DenyCode; reason: string; current: NodeLease | undefined };

export type ReleaseOutcome = { kind: "released"; released: boolean } | { kind: "refused"; reason: string; current: NodeLease };

export type CancelPreemptionOutcome = { kind: "cancelled"; cancelled: boolean; lease: NodeLease | undefined } | { kind: "refused"; reason: string; current: NodeLease };

export interface CoordinatorOptions {
  policy: PolicyConfig;
  index: LeaseIndex;
  api: LeaseApi;
  view: ClusterView;
  events: EventSink;
  /** The wait queue shared by every replica. */
  line: WaitLine;
  logger: Logger;
  clock?: () => number;
  /** Decide-and-write rounds per request before giving up with UNAVAILABLE. */
  maxAttempts?: number;
  /**
   * Whether the state plane is too old to grant from (undefined: fresh). New grants are refused
   * with StateStale while it is (policy/freshness.ts); renewals and releases are not gated.
   */
  staleness?(): StaleView | undefined;
  /** How old the view is, as answers carry it (undefined: not known, e.g. in unit tests). */
  freshness?(): Freshness | undefined;
}

interface Executed<D> {
  decision: D;
  written: LeaseState[];
  attempts: number;
}

const MAX_WAIT_SLICE_MS = 1_000;

export class Coordinator {
  /** Conflicts met (409 → re-read → decide again), for metrics and tests. */
  conflicts = 0;
  private readonly wakers = new Set<() => void>();
  private readonly reportedExpiry = new Set<string>();
  private readonly clock: () => number;
  private readonly maxAttempts: number;

  constructor(private readonly o: CoordinatorOptions) {
    this.clock = o.clock ?? Date.now;
    this.maxAttempts = o.maxAttempts ?? 8;
    o.index.onChange(() => this.notify());
  }

  get policy(): PolicyConfig {
    return this.o.policy;
  }

  /** The shared wait queue as this replica sees it now (live waiters of every replica, in order). */
  get queue(): Waiter[] {
    return this.o.line.queueFor(undefined, this.clock());
  }

  /** Wakes waiting acquires (lease or cluster change). */
  notify(): void {
    if (this.wakers.size === 0) return; // every lease change lands here; most find nobody waiting
    const wake = [...this.wakers];
    this.wakers.clear();
    for (const w of wake) w();
  }

  private observed(node: string, operation: OperationName | undefined, nowMs: number, candidate?: QueueCandidate): ObservedState {
    const cluster = this.o.view.cluster();
    const base: ObservedState = { nodes: cluster.nodes, pools: cluster.pools, budgets: cluster.budgets, cluster, leases: [] };
    const scopes = operation !== undefined ? requiredScopes(node, operation, base, new Date(nowMs), this.o.policy) : [];
    const records = this.o.index.recordsFor(
      node,
      scopes.map((s) => s.key),
      scopes.map((s) => s.members),
    );
    return { ...base, records, observations: this.o.index.observations, observationsCurrent: true, queue: this.o.line.queueFor(candidate, nowMs) };
  }

  private nodeLeaseOperation(node: string): OperationName | undefined {
    return this.o.index.get(this.o.policy.namespace, node)?.rec.operation;
  }

  /** Performs a decision's writes in order; on a conflict re-reads that Lease and decides again. */
  private async execute<D extends { writes: LeaseWrite[] }>(decideNow: (nowMs: number) => D, gate?: (d: D) => Promise<boolean>): Promise<Executed<D>> {
    let transient = 0;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      const decision = decideNow(this.clock());
      // The gate may re-read and ask for a fresh decision before anything is written.
      if (gate !== undefined && (await gate(decision))) continue;
      const written: LeaseState[] = [];
      let failed: { w: LeaseWrite; kind: string; reason: string } | undefined;
      for (const w of decision.writes) {
        const r = await this.o.api.write(w);
        if (r.ok) {
          this.o.index.fromApi(r.state);
          written.push(r.state);
          continue;
        }
        failed = { w, kind: r.kind, reason: r.reason };
        break;
      }
      if (failed === undefined) return { decision, written, attempts: attempt };
      if (failed.kind === "conflict") {
        this.conflicts++;
        this.o.logger.debug({ lease: failed.w.name, attempt, reason: failed.reason }, "lease write conflict; re-reading");
        await this.reread(failed.w.namespace, failed.w.name);
        continue;
      }
      if (failed.kind === "rejected") {
        this.o.logger.error({ lease: failed.w.name, reason: failed.reason }, "lease write rejected by the API server");
        throw new CoordinatorError("internal", `the API server rejected a write of Lease ${failed.w.namespace}/${failed.w.name}: ${failed.reason}`);
      }
      transient++;
      this.o.logger.warn({ lease: failed.w.name, attempt, reason: failed.reason }, "lease write failed; retrying");
      await new Promise((r) => setTimeout(r, Math.min(1_000, 50 * 2 ** transient)));
    }
    throw new CoordinatorError("unavailable", `could not complete the lease write after ${this.maxAttempts} attempts (conflicts or API errors); retry`);
  }

  /**
   * Before a refusal is answered, the node's Lease is read once from the API (the state plane may
   * lag another replica's write): true when that read showed something the view did not know.
   */
  private async verify(node: string): Promise<boolean> {
    const before = this.o.index.get(this.o.policy.namespace, node)?.state.resourceVersion;
    const r = await this.o.api.read(this.o.policy.namespace, node);
    if (r !== null && "error" in r) return false;
    if (r === null) {
      if (before !== undefined) this.o.index.absentInApi(this.o.policy.namespace, node);
      return before !== undefined;
    }
    this.o.index.fromApi(r);
    return r.resourceVersion !== before;
  }

  private async reread(namespace: string, name: string): Promise<void> {
    const r = await this.o.api.read(namespace, name);
    if (r === null) this.o.index.absentInApi(namespace, name);
    else if ("error" in r) this.o.logger.warn({ lease: name, reason: r.error }, "lease re-read failed");
    else this.o.index.fromApi(r);
  }

  private publish(events: readonly PolicyEvent[], ctx: EventContext): void {
    if (events.length === 0) return;
    this.o.events.emit(toOutgoing(events, ctx));
  }

  /** The last written Lease as the index decoded it (on fromApi), without decoding it again. */
  private nodeLeaseOf(written: readonly LeaseState[]): NodeLease | undefined {
    const last = written.at(-1);
    const e = last ? this.o.index.get(last.namespace, last.name) : undefined;
    return e !== undefined && e.state.resourceVersion === last!.resourceVersion ? toNodeLease(e.rec) : undefined;
  }

  /**
   * Acquire (or renew when the requester already holds the node). With waitSeconds > 0 the call
   * waits in the queue shared by every replica, re-deciding on every lease, cluster or queue
   * change, until granted or the wait is over; it is answered only after every write succeeded
   * (reserve before act). A caller that waited on a replica that went away and asks again here
   * keeps its place: its entry is still in the shared queue.
   */
  async acquire(req: AcquireRequest, signal?: AbortSignal): Promise<AcquireOutcome> {
    const start = this.clock();
    const deadline = start + Math.max(0, req.waitSeconds) * 1000;
    const op = operationName(req.operation);
    let announced = false;
    let verified = false;
    const candidate: QueueCandidate = { holder: req.holder, node: req.node, expiresMs: deadline };
    const call = {}; // this call's identity in the shared line
    // A forced call that saw its own preemption mark: if the mark is later withdrawn
    // (CancelPreemption, on any replica), the call ends instead of marking the holder again.
    let sawOwnMark = false;
    try {
      for (;;) {
        if (signal?.aborted) throw new CoordinatorError("cancelled", "the caller cancelled the request");
        const withdrawn: { mine: boolean; withdrawn: boolean } = req.force ? this.ownPreemptionWithdrawn(req.node, req.holder, sawOwnMark) : { mine: false, withdrawn: false };
        sawOwnMark ||= withdrawn.mine;
        if (withdrawn.withdrawn) {
          const current = this.get(req.node);
          this.o.logger.info({ node: req.node, holder: req.holder, operation: op }, "waiting forced request ended: its preemption was withdrawn");
          return { kind: "denied", code: "PreemptionCancelled", reason: `${req.holder} withdrew its preemption of ${req.node}`, current, retryAfterSeconds: 0, warnings: [] };
        }
        const remaining = Math.max(0, Math.ceil((deadline - this.clock()) / 1000));
        const request: AcquireRequest = { ...req, waitSeconds: remaining };
        let inLine: Waiter | undefined;
        const { decision, written } = await this.execute(
          (nowMs) => {
            const d = decide(request, this.observed(req.node, op, nowMs, candidate), new Date(nowMs), this.o.policy);
            const gated = refuseWhenStale(d, this.o.staleness?.(), req.node, remaining > 0);
            // A stale refusal takes no place in line: the queue is decided again once fresh.
            inLine = gated === d && d.kind === "wait" ? d.queue.find((w) => w.holder === req.holder && w.node === req.node) : undefined;
            return gated;
          },
          // A refusal (and any slot clean-up it carries) is only acted on after one direct read of
          // the node Lease: scenario 4's "one read, no write", and no clean-up from a lagging view.
          // A StateStale refusal reads nothing: no read of one Lease makes the whole view fresh.
          async (d) => {
            if (d.kind !== "deny" || d.code === "Invalid" || d.code === "StateStale" || verified) return false;
            verified = true;
            return this.verify(req.node);
          },
        );
        if (decision.kind === "grant") {
          const lease = this.nodeLeaseOf(written) ?? decision.lease;
          const nodeRv = written.at(-1)?.resourceVersion;
          if (!decision.renewal) this.publish(decision.events, { namespace: this.o.policy.namespace, writtenRv: nodeRv, lease });
          this.o.logger.debug({ node: req.node, holder: req.holder, operation: op, renewal: decision.renewal }, "lease granted");
          return { kind: "granted", lease, warnings: decision.warnings, renewal: decision.renewal, preemptionRequestedBy: decision.preemptionRequestedBy };
        }
        // A forced request's preemption mark was just written (it is the decision's last write):
        // lease.preempted is published once, keyed by the mark's resourceVersion.
        const preempted = decision.events.filter((e) => e.type === "lease.preempted");
        const marked = preempted.length > 0 ? this.nodeLeaseOf(written) : undefined;
        if (preempted.length > 0) sawOwnMark = true;
        if (preempted.length > 0) {
          this.publish(preempted, { namespace: this.o.policy.namespace, writtenRv: written.at(-1)?.resourceVersion, lease: marked });
          this.o.logger.info({ node: req.node, holder: decision.current?.holder, preemptor: req.holder, operation: op }, "lease preempted");
        }
        const others = decision.events.filter((e) => e.type !== "lease.preempted");
        if (decision.kind === "deny") {
          if (decision.code === "Invalid") throw new CoordinatorError("invalid", decision.reason);
          this.publish(others, { namespace: this.o.policy.namespace, requester: req.holder, operation: req.operation, retryAfterSeconds: decision.retryAfterSeconds });
          this.o.logger.debug({ node: req.node, holder: req.holder, operation: op, code: decision.code }, "lease denied");
          return { kind: "denied", code: decision.code, reason: decision.reason, current: marked ?? decision.current, retryAfterSeconds: decision.retryAfterSeconds, warnings: decision.warnings };
        }
        if (inLine !== undefined) {
          // Failing to join the shared line costs fairness, not safety (grants are CAS writes).
          await this.o.line.register({ holder: inLine.holder, node: inLine.node, operation: inLine.operation, scopes: inLine.scopes, expiresMs: deadline }, call).catch((err: Error) =>
            this.o.logger.warn({ node: req.node, holder: req.holder, err: err.message }, "shared queue entry not written"),
          );
        }
        if (!announced) {
          announced = true;
          this.publish(others, { namespace: this.o.policy.namespace });
          this.o.logger.info({ node: req.node, holder: req.holder, operation: op, code: decision.code, position: decision.position }, "lease request waiting");
        }
        const wait = Math.min(deadline - this.clock(), decision.retryAfterSeconds * 1000, MAX_WAIT_SLICE_MS);
        await this.waitForChange(Math.max(10, wait), signal);
      }
    } finally {
      // A waiter that got its answer (or gave up, or was cancelled) must not hold a place in line.
      // Not awaited: the answer does not wait for the delete.
      void this.o.line.unregister(req.holder, req.node, signal?.aborted === true, call);
    }
  }

  /** Whether the node's Lease names `holder` as its preemptor now (mine), or no longer does because `holder` withdrew it. */
  private ownPreemptionWithdrawn(node: string, holder: string, sawMark: boolean): { mine: boolean; withdrawn: boolean } {
    const rec = this.o.index.get(this.o.policy.namespace, node)?.rec;
    if (rec === undefined) return { mine: false, withdrawn: false };
    const mine = rec.preemptedBy !== "" && rec.preemptorHolder === holder;
    const withdrawn = sawMark && rec.preemptedBy === "" && parsePreemptor(rec.preemptionWithdrawnBy).holder === holder && rec.holder !== holder;
    return { mine, withdrawn };
  }

  /**
   * The preemptor withdraws its pending binding preemption (CancelPreemption): one CAS write taking
   * the mark off, after a direct read of the node Lease (a lagging view could miss the mark, or
   * the grant that completed it). Not gated on freshness: it only ever lessens disruption.
   */
  async cancelPreemption(req: { node: string; holder: string }): Promise<CancelPreemptionOutcome> {
    if (!req.node) throw new CoordinatorError("invalid", "node is empty");
    if (!req.holder) throw new CoordinatorError("invalid", "holder identity is empty");
    await this.verify(req.node);
    const { decision, written } = await this.execute((nowMs) => decideCancelPreemption(req, this.observed(req.node, undefined, nowMs), new Date(nowMs), this.o.policy));
    if (decision.kind === "deny") return { kind: "refused", reason: decision.reason, current: decision.current };
    const lease = this.nodeLeaseOf(written) ?? this.get(req.node);
    if (decision.cancelled) {
      this.publish(decision.events, { namespace: this.o.policy.namespace, writtenRv: written.at(-1)?.resourceVersion, lease });
      this.o.logger.info({ node: req.node, preemptor: req.holder, holder: decision.current?.holder }, "lease preemption withdrawn");
      this.notify();
    }
    return { kind: "cancelled", cancelled: decision.cancelled, lease };
  }

  private waitForChange(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.wakers.delete(done);
        signal?.removeEventListener("abort", done);
        resolve();
      };
      timer = setTimeout(done, ms);
      this.wakers.add(done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  /**
   * Renew by the current holder only; a holder that lost the node learns it (refused). Not gated on
   * the state plane's freshness: the node is already disrupted by this holder, so refusing would not
   * reduce disruption, only make the holder stop mid-operation (releases likewise).
   */
  async renew(req: { node: string; holder: string; durationSeconds?: number }): Promise<RenewOutcome> {
    if (!req.node) throw new CoordinatorError("invalid", "node is empty");
    if (!req.holder) throw new CoordinatorError("invalid", "holder identity is empty");
    let verified = false;
    for (;;) {
      const op = this.nodeLeaseOperation(req.node);
      const { decision, written } = await this.execute((nowMs) => {
        const d: Decision = decideRenew(req, this.observed(req.node, op, nowMs), new Date(nowMs), this.o.policy);
        return d;
      });
      if (decision.kind !== "grant" && !verified) {
        verified = true;
        if (await this.verify(req.node)) continue;
      }
      return this.renewOutcome(req, decision, written);
    }
  }

  private renewOutcome(req: { node: string; holder: string }, decision: Decision, written: LeaseState[]): RenewOutcome {
    if (decision.kind === "grant") {
      return { kind: "renewed", lease: this.nodeLeaseOf(written) ?? decision.lease, warnings: decision.warnings, preemptionRequestedBy: decision.preemptionRequestedBy };
    }
    if (decision.kind === "deny" && decision.code === "Invalid") throw new CoordinatorError("invalid", decision.reason);
    this.o.logger.info({ node: req.node, holder: req.holder, code: decision.code }, "lease renew refused");
    return { kind: "refused", code: decision.code, reason: decision.reason, current: decision.current };
  }

  /** Release by the holder (an expired lease too); releasing what is not held succeeds without writing. */
  async release(req: { node: string; holder: string }): Promise<ReleaseOutcome> {
    if (!req.node) throw new CoordinatorError("invalid", "node is empty");
    if (!req.holder) throw new CoordinatorError("invalid", "holder identity is empty");
    // Release always re-reads the node Lease first (client-go does too): from a lagging view it could
    // free the budget slots while missing that the node Lease itself is still held.
    await this.verify(req.node);
    const op = this.nodeLeaseOperation(req.node);
    const { decision, written } = await this.execute((nowMs) => decideRelease(req, this.observed(req.node, op, nowMs), new Date(nowMs), this.o.policy));
    return this.releaseOutcome(req, decision, written);
  }

  private releaseOutcome(req: { node: string; holder: string }, decision: ReleaseDecision, written: LeaseState[]): ReleaseOutcome {
    if (decision.kind === "deny") return { kind: "refused", reason: decision.reason, current: decision.current };
    this.publish(decision.events, { namespace: this.o.policy.namespace, writtenRv: written[0]?.resourceVersion });
    if (decision.writes.length > 0) this.o.logger.debug({ node: req.node, holder: req.holder }, "lease released");
    return { kind: "released", released: decision.writes.length > 0 };
  }

  private fullView(nowMs: number) {
    const cluster = this.o.view.cluster();
    const observed: ObservedState = {
      nodes: cluster.nodes,
      pools: cluster.pools,
      budgets: cluster.budgets,
      cluster,
      leases: [],
      records: this.o.index.all().map((e) => e.rec),
      observations: this.o.index.observations,
      observationsCurrent: true,
    };
    return { observed, view: buildView(observed, nowMs, this.o.policy) };
  }

  /** The node's effective lease: a valid hold (ours or foreign) first, else our Lease record. */
  get(node: string): NodeLease | undefined {
    const { held, records } = this.nodeRecords(node);
    const chosen = held?.rec ?? records.find((r) => r.kind === "node");
    return chosen ? toNodeLease(chosen) : undefined;
  }

  /**
   * The hold on the node now (ours or foreign), judged as every decision judges it (expiry on this
   * replica's clock, admin holds without end), or undefined when nothing holds it.
   */
  hold(node: string): NodeHold | undefined {
    const { held } = this.nodeRecords(node);
    return held ? { lease: toNodeLease(held.rec), expiresInSeconds: held.expiresInSeconds, adminHold: held.adminHold } : undefined;
  }

  private nodeRecords(node: string) {
    // Node and foreign leases only (leasesOfNode leaves out budget slots).
    const records = this.o.index.leasesOfNode(node).map((e) => e.rec);
    const view = buildView({ nodes: [], pools: [], budgets: [], leases: [], records, observations: this.o.index.observations, observationsCurrent: true }, this.clock(), this.o.policy);
    let held: { rec: (typeof records)[number]; expiresInSeconds: number; adminHold: boolean } | undefined;
    for (const rec of records) {
      const v = view.validity(rec);
      if (v.status === "held") {
        held = { rec, expiresInSeconds: v.expiresInSeconds, adminHold: v.adminHold };
        break;
      }
    }
    return { held, records };
  }

  /** Valid holds, ours and foreign, sorted by node; optionally one operation or one pool. */
  list(filter: { operation?: OperationType; pool?: string } = {}): NodeLease[] {
    const { observed, view } = this.fullView(this.clock());
    const out: NodeLease[] = [];
    for (const rec of view.records) {
      if (rec.kind === "slot" || view.validity(rec).status !== "held") continue;
      const lease = toNodeLease(rec);
      if (filter.operation !== undefined && filter.operation !== OperationType.OPERATION_TYPE_UNSPECIFIED && lease.operation !== filter.operation) continue;
      if (filter.pool && observed.cluster!.poolOf(rec.node)?.name !== filter.pool) continue;
      out.push(lease);
    }
    return out.sort((a, b) => a.node.localeCompare(b.node) || a.namespace.localeCompare(b.namespace));
  }

  /**
   * Before an upgrade: who holds what, and what it would warn of. While the view is stale a hold
   * written since may be missing, so the warnings lead with one saying so: "no warnings" must never
   * be read off a view nobody can vouch for.
   */
  preflight(): { warnings: Warning[]; held: NodeLease[] } {
    const nowMs = this.clock();
    const { observed } = this.fullView(nowMs);
    const out = preflightUpgrade(observed, new Date(nowMs), this.o.policy);
    const stale = this.o.staleness?.();
    if (!stale) return out;
    const warning: Warning = {
      code: "StateStale",
      node: "",
      message: `Lockstep's view of the cluster is stale (${stale.why}): a node held since, for maintenance or anything else, may be missing below; do not start an upgrade on this answer`,
    };
    return { ...out, warnings: [warning, ...out.warnings] };
  }

  /** How old the view is (undefined when not known). */
  freshness(): Freshness | undefined {
    return this.o.freshness?.();
  }

  /** Notices leases that expired without anyone taking them over (lease.expired, once per record). */
  sweep(): number {
    const nowMs = this.clock();
    const { view } = this.fullView(nowMs);
    const live = new Set<string>();
    let found = 0;
    for (const rec of view.records) {
      if (rec.kind !== "node" || rec.holder === "") continue;
      const v = view.validity(rec);
      if (v.status !== "expired") continue;
      const id = `${rec.namespace}/${rec.name}/${rec.resourceVersion}`;
      live.add(id);
      if (this.reportedExpiry.has(id)) continue;
      this.reportedExpiry.add(id);
      found++;
      this.publish([{ type: "lease.expired", node: rec.node, message: `lease of ${rec.holder} expired: ${v.why}`, previous: toNodeLease(rec) }], { namespace: rec.namespace });
      this.o.logger.info({ node: rec.node, holder: rec.holder }, "lease expired");
    }
    for (const id of this.reportedExpiry) if (!live.has(id)) this.reportedExpiry.delete(id);
    return found;
  }
}
