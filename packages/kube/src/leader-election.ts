// Leader election with client-go's protocol (tools/leaderelection, resourcelock LeaseLock) on one
// coordination.k8s.io/v1 Lease, so Lockstep's replicas and any client-go tool read the same record:
//
// - every write is a compare-and-swap on the Lease's resourceVersion (a 409 means someone else won);
// - a candidate judges expiry by its OWN observation time (when it last saw the record change) plus
//   the record's leaseDurationSeconds, never by comparing renewTime with its clock, so clock skew
//   between pods does not matter;
// - the leader renews every retry period and stops leading once it has not renewed for the renew
//   deadline, which is shorter than the lease duration: it has stopped acting before any other
//   replica can take over (fencing by time; writes that can carry their own check still should);
// - on a graceful stop the leader releases (holder "", duration 1 s), so a rolling update hands over
//   within one retry period instead of a lease duration.
//
// Unlike client-go, losing the lease does not exit the process: the leader's term ends (its signal
// aborts), the caller's writers stop, and this replica campaigns again as a follower.
import type { Logger } from "pino";
import { isNotFound, statusCode } from "./errors.js";
import type { KubeHttp } from "./http.js";

export interface LeaderElectionTimings {
  /** How long a lease holds without a renewal, as seen by the other candidates (client-go LeaseDuration). */
  leaseDurationMs: number;
  /** How long the leader keeps trying to renew before it stops leading; < leaseDurationMs. */
  renewDeadlineMs: number;
  /** How often candidates try to acquire and the leader renews. */
  retryPeriodMs: number;
}

/** controller-runtime's defaults (kubevirt and cluster-api use the same); Lockstep's services use shorter ones (runtime config). */
export const DEFAULT_LEADER_ELECTION: LeaderElectionTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** Why timings are unusable (client-go refuses the same), or undefined when they are fine. */
export function leaderElectionTimingsProblem(t: LeaderElectionTimings): string | undefined {
  if (t.retryPeriodMs <= 0) return "the retry period must be positive";
  if (t.leaseDurationMs < 1_000) return "the lease duration must be at least 1s";
  if (t.renewDeadlineMs >= t.leaseDurationMs) return "the renew deadline must be shorter than the lease duration (it is the margin that keeps two leaders from acting at once)";
  if (t.renewDeadlineMs <= t.retryPeriodMs * 1.2) return "the renew deadline must be longer than 1.2 × the retry period (client-go's jitter)";
  return undefined;
}

/** The election's namespace does not exist: nothing can ever lead there. */
export class LeaderElectionNamespaceError extends Error {
  override name = "LeaderElectionNamespaceError";
  constructor(namespace: string, lease: string) {
    super(`leader election: namespace ${namespace} does not exist, so Lease ${lease} cannot be created and no replica would ever write; create it, set LEADER_ELECTION_NAMESPACE, or run a single replica with LEADER_ELECTION=false`);
  }
}

export interface LeaderElectorOptions extends LeaderElectionTimings {
  http: KubeHttp;
  namespace: string;
  /** The Lease's name: one per singleton role. */
  name: string;
  /** This replica's holder identity (pod name and a random suffix, as client-go does). */
  identity: string;
  /** Release the lease when stopped (client-go ReleaseOnCancel). Default true. */
  releaseOnCancel?: boolean;
  logger?: Logger;
  /** Monotonic milliseconds (default performance.now): judges expiry and deadlines. */
  monotonic?: () => number;
  /** Wall clock for the record's times (default Date.now). */
  wallClock?: () => number;
  /** Told whenever this replica starts or stops leading. */
  onLeadingChange?(leading: boolean): void;
}

/** The Lease spec fields the protocol reads and writes. */
interface LeaseRecord {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface LeaseObject {
  apiVersion?: string;
  kind?: string;
  metadata: { name: string; namespace: string; resourceVersion?: string; [k: string]: unknown };
  spec?: LeaseRecord;
}

/** One term of leadership: aborted when the lease is lost or the elector stops. */
export type LeadFn = (term: AbortSignal) => Promise<void>;

export class LeaderElector {
  private observedRaw: string | undefined;
  private observedRecord: LeaseRecord | undefined;
  private observedAt = 0;
  private lease: LeaseObject | undefined;
  private leading = false;
  /** Monotonic start of the last write that succeeded: the renew deadline counts from it. */
  private lastWriteStartedAt = 0;
  /** Whether the last round could read the lease (a failed read says nothing about the holder). */
  private lastReadOk = false;
  private lastProblem: string | undefined;
  private readonly mono: () => number;
  private readonly wall: () => number;
  private readonly path: string;

  constructor(private readonly o: LeaderElectorOptions) {
    const problem = leaderElectionTimingsProblem(o);
    if (problem) throw new Error(`leader election ${o.namespace}/${o.name}: ${problem}`);
    this.mono = o.monotonic ?? (() => performance.now());
    this.wall = o.wallClock ?? Date.now;
    this.path = `/apis/coordination.k8s.io/v1/namespaces/${encodeURIComponent(o.namespace)}/leases`;
  }

  get identity(): string {
    return this.o.identity;
  }

  /** Whether this replica leads right now (its term has not ended). */
  isLeader(): boolean {
    return this.leading;
  }

  /** The holder this replica last observed (undefined before the first read, "" when released). */
  observedLeader(): string | undefined {
    return this.observedRecord?.holderIdentity;
  }

  /**
   * Campaigns until `signal` aborts. Each time this replica wins, `lead` runs with a term signal that
   * aborts when the lease is lost (no renewal within the renew deadline) or at stop; the next
   * campaign starts only after `lead` has returned, so one process never has two terms at once.
   * A `lead` that fails (not because its term ended) fails the campaign, after a release.
   */
  async run(signal: AbortSignal, lead: LeadFn): Promise<void> {
    while (!signal.aborted) {
      const acquired = await this.acquire(signal);
      if (!acquired) break;
      await this.term(signal, lead);
    }
  }

  /** Tries every retry period until this replica holds the lease; false when stopped first. */
  private async acquire(signal: AbortSignal): Promise<boolean> {
    let lastHolder: string | undefined;
    while (!signal.aborted) {
      if (await this.tryAcquireOrRenew()) return true;
      const holder = this.observedRecord?.holderIdentity;
      if (holder !== lastHolder) {
        lastHolder = holder;
        this.o.logger?.info({ lease: this.o.name, leader: holder || undefined }, "leader election: following");
      }
      await sleep(this.jittered(), signal);
    }
    return false;
  }

  /** client-go's JitterFactor 1.2 on the acquire loop: candidates do not hit the API in step. */
  private jittered(): number {
    return this.o.retryPeriodMs * (1 + Math.random() * 0.2);
  }

  private async term(stop: AbortSignal, lead: LeadFn): Promise<void> {
    const term = new AbortController();
    const onStop = () => term.abort();
    stop.addEventListener("abort", onStop, { once: true });
    this.setLeading(true);
    this.o.logger?.info({ lease: this.o.name, identity: this.o.identity }, "leader election: leading");
    // The renew deadline counts from the start of the last successful write: others observe that
    // write no earlier than it started, so they cannot take over before it plus the lease duration.
    let fenceTimer: NodeJS.Timeout | undefined;
    const armFence = () => {
      clearTimeout(fenceTimer);
      fenceTimer = setTimeout(() => {
        if (term.signal.aborted) return;
        this.o.logger?.warn({ lease: this.o.name, renewDeadlineMs: this.o.renewDeadlineMs }, "leader election: lease not renewed within the renew deadline; stopping as leader");
        term.abort();
      }, Math.max(0, this.lastWriteStartedAt + this.o.renewDeadlineMs - this.mono()));
    };
    armFence();
    const renewing = (async () => {
      while (!term.signal.aborted) {
        await sleep(this.o.retryPeriodMs, term.signal);
        if (term.signal.aborted) break;
        const ok = await this.tryAcquireOrRenew();
        if (term.signal.aborted) break;
        if (ok) armFence();
        else if (this.observedRecord?.holderIdentity !== this.o.identity && this.observedRecord !== undefined && this.lastReadOk) {
          // Someone else holds it now (we were too slow, or it was taken over): the term is over.
          this.o.logger?.warn({ lease: this.o.name, leader: this.observedRecord.holderIdentity }, "leader election: lease taken by another; stopping as leader");
          term.abort();
        }
      }
    })();
    let failure: unknown;
    try {
      await lead(term.signal);
    } catch (err) {
      if (!term.signal.aborted) failure = err;
    }
    term.abort();
    clearTimeout(fenceTimer);
    stop.removeEventListener("abort", onStop);
    await renewing;
    this.setLeading(false);
    this.o.logger?.info({ lease: this.o.name, identity: this.o.identity }, "leader election: stopped leading");
    if ((stop.aborted || failure !== undefined) && (this.o.releaseOnCancel ?? true)) await this.release();
    if (failure !== undefined) throw failure;
  }

  private setLeading(v: boolean): void {
    if (this.leading === v) return;
    this.leading = v;
    this.o.onLeadingChange?.(v);
  }

  /** One round of client-go's tryAcquireOrRenew: true when this replica holds the lease after it. */
  private async tryAcquireOrRenew(): Promise<boolean> {
    const startedAt = this.mono();
    const nowIso = new Date(this.wall()).toISOString().replace(/Z$/, "000Z"); // MicroTime: 6 fraction digits
    const desired: LeaseRecord = {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.o.leaseDurationMs / 1000),
      acquireTime: nowIso,
      renewTime: nowIso,
      leaseTransitions: 0,
    };
    this.lastReadOk = false;
    let current: LeaseObject | undefined;
    try {
      current = await this.o.http.request<LeaseObject>("GET", `${this.path}/${encodeURIComponent(this.o.name)}`, { signal: this.timeout() });
    } catch (err) {
      if (!isNotFound(err)) {
        this.problem("read", err);
        return false;
      }
    }
    this.lastReadOk = true;
    this.lastProblem = undefined;
    if (current === undefined) {
      try {
        const created = await this.o.http.request<LeaseObject>("POST", this.path, {
          body: { apiVersion: "coordination.k8s.io/v1", kind: "Lease", metadata: { name: this.o.name, namespace: this.o.namespace }, spec: desired },
          signal: this.timeout(),
        });
        this.observe(created, startedAt);
        this.lastWriteStartedAt = startedAt;
        return true;
      } catch (err) {
        // No namespace is not a passing fault but a setting to fix: say so loudly, once.
        if (isNotFound(err) && /namespaces?\b/.test((err as { body?: string }).body ?? "")) throw new LeaderElectionNamespaceError(this.o.namespace, this.o.name);
        this.problem("create", err);
        return false;
      }
    }
    this.observe(current, this.mono());
    const old = current.spec ?? {};
    const heldByOther = !!old.holderIdentity && old.holderIdentity !== this.o.identity;
    if (heldByOther && this.observedAt + Math.max(1, old.leaseDurationSeconds ?? 1) * 1000 > this.mono()) return false;
    if (old.holderIdentity === this.o.identity && this.leading) {
      desired.acquireTime = old.acquireTime ?? nowIso;
      desired.leaseTransitions = old.leaseTransitions ?? 0;
    } else {
      desired.leaseTransitions = (old.leaseTransitions ?? 0) + (old.holderIdentity === this.o.identity ? 0 : 1);
      if (old.holderIdentity === this.o.identity) desired.acquireTime = old.acquireTime ?? nowIso;
    }
    try {
      const updated = await this.o.http.request<LeaseObject>("PUT", `${this.path}/${encodeURIComponent(this.o.name)}`, {
        body: { ...current, spec: { ...old, ...desired } },
        signal: this.timeout(),
      });
      this.observe(updated, startedAt);
      this.lastWriteStartedAt = startedAt;
      return true;
    } catch (err) {
      this.problem("update", err);
      return false;
    }
  }

  /**
   * A failed read or write: a conflict is the protocol working (debug); anything else (no namespace,
   * no rights, API away) is logged as a warning once per distinct cause, so a misconfigured election
   * is visible without a line every retry period.
   */
  private problem(step: "read" | "create" | "update", err: unknown): void {
    const message = (err as Error)?.message ?? String(err);
    if (statusCode(err) === 409) return void this.o.logger?.debug({ lease: this.o.name, step, err: message }, "leader election: write conflict");
    if (message === this.lastProblem) return;
    this.lastProblem = message;
    this.o.logger?.warn({ lease: this.o.name, namespace: this.o.namespace, step, err: message }, "leader election: cannot reach the lease; retrying");
  }

  /** A request that hangs (an API server gone silent) must not stall the loop past a renew deadline. */
  private timeout(): AbortSignal {
    return AbortSignal.timeout(this.o.renewDeadlineMs);
  }

  /** Notes the record; its observation time moves only when the record changed. */
  private observe(obj: LeaseObject, at: number): void {
    this.lease = obj;
    const raw = JSON.stringify(obj.spec ?? {});
    if (raw !== this.observedRaw) {
      this.observedRaw = raw;
      this.observedRecord = obj.spec ?? {};
      this.observedAt = at;
    }
  }

  /** Gives the lease up (holder "", duration 1 s) if this replica still holds it: one CAS, no retry. */
  private async release(): Promise<void> {
    const lease = this.lease;
    if (!lease || lease.spec?.holderIdentity !== this.o.identity) return;
    const nowIso = new Date(this.wall()).toISOString().replace(/Z$/, "000Z");
    try {
      const released = await this.o.http.request<LeaseObject>("PUT", `${this.path}/${encodeURIComponent(this.o.name)}`, {
        body: { ...lease, spec: { ...lease.spec, holderIdentity: "", leaseDurationSeconds: 1, acquireTime: nowIso, renewTime: nowIso } },
        signal: this.timeout(),
      });
      this.observe(released, this.mono());
      this.o.logger?.info({ lease: this.o.name }, "leader election: lease released");
    } catch (err) {
      this.o.logger?.warn({ lease: this.o.name, err: (err as Error).message }, "leader election: cannot release the lease");
    }
  }
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener("abort", done);
      resolve();
    }
    signal.addEventListener("abort", done, { once: true });
  });
}
