// acquireLease: one node lease held through the lease-coordinator, renewed automatically. The
// handle's `signal` aborts when the hold is lost (renew refused K times in a row, or no successful
// renew within the renew deadline), which is before the lease can expire for anyone else: the
// guarded work must stop there (the lease does not fence, node-leases.md pitfall 24).
// It also aborts when a forced request preempts the lease (seen on the Watch stream, which every
// handle keeps unless it opts out with `watchPreemption: false`, or on a renew's response or
// refusal): the client stops renewing at once, tells its owner (onPreempted, whose promise is the
// owner's safe point) and then releases, so the preemptor is granted without waiting for the lease
// to expire. The preemption is read from its fields (NodeLease.preemption, the RenewRefusal
// trailer); the refusal's text is parsed only from a coordinator too old to send them.
import * as grpc from "@grpc/grpc-js";
import {
  LeaseServiceClient,
  PreemptionKind,
  renewRefusalOf,
  type AcquireResponse,
  type NodeLease,
  type Preemption,
  type OperationType,
  type ReleaseResponse,
  type RenewResponse,
  type Warning,
} from "@lockstep/contracts";
import { afterRenew, defaultTimings, validateHolderTimings, type HolderState, type HolderTimings, type HolderVerdict, type RenewResult } from "./health.js";
import { operationNameOf, toOperationType, type OperationName } from "./operation.js";
import { LeaseWatch, sharedLeaseWatch } from "./preemption-watch.js";
import { retryDelayMs, waitRetry } from "./wait-retry.js";

export interface AcquireLeaseOptions {
  /** host:port of the lease-coordinator's gRPC service. */
  address: string;
  node: string;
  operation: OperationType | OperationName | string;
  holder: string;
  reason: string;
  durationSeconds: number;
  /** Wait in line up to this long instead of being denied at once (asked again within it when the coordinator goes away). */
  waitSeconds?: number;
  force?: boolean;
  /** Renew timing; defaults from the duration (defaultTimings). */
  timings?: Partial<Omit<HolderTimings, "leaseDurationSeconds">>;
  credentials?: grpc.ChannelCredentials;
  /** Share one client between many leases (not closed by the handle). */
  client?: LeaseServiceClient;
  /** Told about every change of the hold's state. */
  onStateChange?(state: LeaseHolderState, reason: string): void;
  /**
   * The lease was preempted: renewing has stopped and `signal` has aborted (LeasePreemptedError).
   * Stop the guarded work at a safe point; the client releases the node once this settles.
   */
  onPreempted?(info: PreemptionInfo): void | Promise<void>;
  /**
   * The preemptor withdrew its preemption (CancelPreemption) before this handle released. The
   * handle still releases once onPreempted settles (its signal has aborted, so the guarded work has
   * stopped); acquire again to go on — no preemptor is waiting for the node any more.
   */
  onPreemptionWithdrawn?(info: PreemptionInfo): void;
  /**
   * Watch the node's lease (LeaseService.Watch, needs the `watch` right) to learn of a preemption
   * at once rather than at the next renew. On unless set to false: a preempted holder that only
   * learns at its next renew keeps disrupting a node an admin has claimed for up to a renew period.
   * Handles sharing one `client` share one stream.
   */
  watchPreemption?: boolean;
}

/**
 * A handle's state: the renew loop's verdict, then preempted and/or released. "release-failed":
 * renewing has stopped but the coordinator did not take the release (release() again to retry);
 * the lease expires on its own otherwise.
 */
export type LeaseHolderState = HolderVerdict | "preempted" | "released" | "release-failed";

export interface PreemptionInfo {
  node: string;
  holder: string;
  /** "<holder> (<operation>)" of the forced request. */
  preemptedBy: string;
  /** How the client learned, for logs. */
  reason: string;
  /** The preemption as fields (preemptor, its operation and reason, when); absent from a coordinator too old to send them. */
  preemption?: Preemption;
}

/** "<holder> (<operation>)" of a structured preemption, the form preemptedBy has always had. */
function labelOf(p: Preemption, fallback: string): string {
  if (p.holder === "") return fallback;
  const op = operationNameOf(p.operation);
  return op ? `${p.holder} (${op})` : p.holder;
}

/** A forced preemption on a lease, as fields when the coordinator sent them, else from preempted_by. */
function forcedPreemption(l: NodeLease): { by: string; preemption?: Preemption } | undefined {
  if (l.preemption !== undefined && l.preemption.kind === PreemptionKind.PREEMPTION_KIND_FORCED) return { by: labelOf(l.preemption, l.preemptedBy), preemption: l.preemption };
  return l.preemptedBy ? { by: l.preemptedBy } : undefined;
}

/** The reason `signal` aborts with when the lease is preempted. */
export class LeasePreemptedError extends Error {
  override name = "LeasePreemptedError";
  constructor(
    readonly node: string,
    readonly preemptedBy: string,
    readonly reason: string,
    /** The preemption as fields, when the coordinator sent them. */
    readonly preemption?: Preemption,
  ) {
    super(`lease on ${node} preempted by ${preemptedBy}: ${reason}`);
  }
}

/**
 * The preemptor named in a coordinator's "Preempted: preempted by <holder> (<op>) at …" refusal.
 * Only for coordinators that send no RenewRefusal trailer (renewRefusalOf); kept for them.
 */
export function preemptorOf(details: string): string | undefined {
  if (!details.startsWith("Preempted:")) return undefined;
  return /preempted by (.*? \([A-Za-z]+\))/.exec(details)?.[1] ?? "another holder";
}

export interface LeaseHandle {
  readonly node: string;
  readonly holder: string;
  /** The lease as last granted or renewed. */
  readonly lease: NodeLease;
  readonly warnings: Warning[];
  /** Aborts (with the reason) when the hold is lost or preempted; never on a voluntary release. */
  readonly signal: AbortSignal;
  readonly state: LeaseHolderState;
  /** "<holder> (<operation>)" once the lease was preempted, else "". */
  readonly preemptedBy: string;
  /** Stops renewing (waiting for a renew in flight) and releases the node; after a failure, tries again. */
  release(): Promise<void>;
}

export class LeaseDeniedError extends Error {
  override name = "LeaseDeniedError";
  constructor(
    readonly node: string,
    readonly reason: string,
    readonly current: NodeLease | undefined,
    readonly retryAfterSeconds: number,
    readonly warnings: Warning[],
    /** e.g. "Held", "MaintenanceFlagged", "PreemptionPending" (a forced request marked the holder). */
    readonly code = "",
  ) {
    super(`lease on ${node} denied: ${reason}`);
  }
}

type Unary<Req, Res> = (req: Req, md: grpc.Metadata, opts: Partial<grpc.CallOptions>, cb: (err: grpc.ServiceError | null, res: Res) => void) => unknown;

function unary<Req, Res>(client: LeaseServiceClient, method: "acquire" | "renew" | "release", req: Req, deadlineMs?: number): Promise<Res> {
  const fn = (client[method] as unknown as Unary<Req, Res>).bind(client);
  const opts: Partial<grpc.CallOptions> = deadlineMs !== undefined ? { deadline: new Date(Date.now() + deadlineMs) } : {};
  return new Promise((resolve, reject) => fn(req, new grpc.Metadata(), opts, (err, res) => (err ? reject(err) : resolve(res))));
}

/**
 * How long past its wait an Acquire may take to be answered (the coordinator writes the Lease
 * first). Without a deadline a hung coordinator or a black-holed connection would hang the caller
 * for ever; the same bound as a release's.
 */
const ACQUIRE_ANSWER_MS = 10_000;

/**
 * Acquires the node or throws LeaseDeniedError (or the gRPC error, e.g. INVALID_ARGUMENT, or
 * DEADLINE_EXCEEDED when unanswered). A waiting acquire is asked again on UNAVAILABLE or CANCELLED
 * within its wait (wait-retry.ts).
 */
export async function acquireLease(o: AcquireLeaseOptions): Promise<LeaseHandle> {
  const timings: HolderTimings = { ...defaultTimings(o.durationSeconds, o.timings) };
  const problems = validateHolderTimings(timings);
  if (problems.length > 0) throw new Error(`invalid lease timings: ${problems.join("; ")}`);
  const operation = toOperationType(o.operation);
  const owned = o.client === undefined;
  const client = o.client ?? new LeaseServiceClient(o.address, o.credentials ?? grpc.credentials.createInsecure());
  let res: AcquireResponse;
  const deadlineMs = Date.now() + (o.waitSeconds ?? 0) * 1000;
  let waitSeconds = o.waitSeconds ?? 0;
  for (let attempt = 1; ; attempt++) {
    try {
      res = await unary<object, AcquireResponse>(client, "acquire", {
        node: o.node,
        operation,
        holder: o.holder,
        reason: o.reason,
        durationSeconds: o.durationSeconds,
        waitSeconds,
        force: o.force ?? false,
      }, waitSeconds * 1000 + ACQUIRE_ANSWER_MS);
      break;
    } catch (err) {
      // The coordinator went away mid-wait: ask again (another replica) for what is left of the wait.
      // A stopping one cancels the calls still open after its grace period: CANCELLED, which here
      // is always the server's (this call has no abort of its own).
      const code = (err as grpc.ServiceError).code;
      const next = waitRetry({ unavailable: code === grpc.status.UNAVAILABLE || code === grpc.status.CANCELLED, waiting: (o.waitSeconds ?? 0) > 0, attempt, nowMs: Date.now(), deadlineMs });
      if (next.retry) {
        await new Promise((r) => setTimeout(r, next.delayMs));
        waitSeconds = next.waitSeconds;
        continue;
      }
      if (owned) client.close();
      throw err;
    }
  }
  if (!res.granted || !res.lease) {
    if (owned) client.close();
    throw new LeaseDeniedError(o.node, res.deniedReason, res.current, res.retryAfterSeconds, res.warnings, res.deniedCode);
  }
  return new RenewingLease(o, client, owned, res.lease, res.warnings, timings);
}

class RenewingLease implements LeaseHandle {
  private readonly lost = new AbortController();
  private current: NodeLease;
  private health: HolderState;
  private verdict: LeaseHolderState = "holding";
  private preemptor = "";
  private unwatch: (() => void) | undefined;
  private released = false;
  private toldWithdrawn = false;
  private releasing: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private watchdog: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly o: AcquireLeaseOptions,
    private readonly client: LeaseServiceClient,
    private readonly owned: boolean,
    lease: NodeLease,
    readonly warnings: Warning[],
    private readonly timings: HolderTimings,
  ) {
    this.current = lease;
    this.health = { lastRenewedMs: Date.now(), consecutiveLosses: 0 };
    this.armWatchdog();
    this.schedule();
    if (o.watchPreemption !== false) this.watchLease();
  }

  get node(): string {
    return this.o.node;
  }
  get holder(): string {
    return this.o.holder;
  }
  get lease(): NodeLease {
    return this.current;
  }
  get signal(): AbortSignal {
    return this.lost.signal;
  }
  get state(): LeaseHolderState {
    return this.verdict;
  }
  get preemptedBy(): string {
    return this.preemptor;
  }

  /**
   * The Watch stream sends the node's lease on every change: the preemption mark, and its
   * withdrawal. It stays open through the owner's safe point, until the release.
   */
  private watchLease(): void {
    const reopenMs = this.timings.retryPeriodSeconds * 1000;
    const watch = this.owned ? new LeaseWatch(this.client, this.o.node, reopenMs) : sharedLeaseWatch(this.client, reopenMs);
    this.unwatch = watch.add(this.o.node, (l) => {
      if (l.foreign || l.holder !== this.o.holder) return;
      const forced = forcedPreemption(l);
      if (forced) return this.preempted(forced.by, `preempted by ${forced.by} (seen on the Watch stream)`, forced.preemption);
      if (this.verdict === "preempted" && !this.released && !this.toldWithdrawn && l.preemptionWithdrawn !== undefined) this.withdrawn(l.preemptionWithdrawn);
    });
  }

  /** The preemptor withdrew before this handle released: tell the owner (once). */
  private withdrawn(p: Preemption): void {
    this.toldWithdrawn = true; // the release still follows the owner's safe point
    const by = labelOf(p, this.preemptor);
    this.o.onStateChange?.("preempted", `preemption by ${by} withdrawn`);
    this.o.onPreemptionWithdrawn?.({ node: this.o.node, holder: this.o.holder, preemptedBy: by, reason: `preemption by ${by} withdrawn`, preemption: p });
  }

  /** Stop renewing, abort the guarded work, let the owner reach its safe point, then release. */
  private preempted(by: string, why: string, preemption?: Preemption): void {
    if (this.verdict !== "holding" && this.verdict !== "paused") return;
    this.stop(true);
    this.preemptor = by;
    this.verdict = "preempted";
    this.o.onStateChange?.("preempted", why);
    this.lost.abort(new LeasePreemptedError(this.o.node, by, why, preemption));
    const info: PreemptionInfo = { node: this.o.node, holder: this.o.holder, preemptedBy: by, reason: why, ...(preemption ? { preemption } : {}) };
    void Promise.resolve()
      .then(() => this.o.onPreempted?.(info))
      .catch(() => undefined)
      .then(() => this.release())
      .catch(() => undefined);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.inFlight = this.renewOnce().finally(() => {
        this.inFlight = undefined;
        this.schedule();
      });
    }, this.timings.retryPeriodSeconds * 1000);
  }

  /** Declares loss at the renew deadline even if a renew call hangs. */
  private armWatchdog(): void {
    clearTimeout(this.watchdog);
    const due = this.health.lastRenewedMs + this.timings.renewDeadlineSeconds * 1000 - Date.now();
    this.watchdog = setTimeout(() => this.judge("error", "no successful renew within the renew deadline"), Math.max(0, due));
  }

  private async renewOnce(): Promise<void> {
    let result: RenewResult;
    let why = "";
    try {
      const budget = this.health.lastRenewedMs + this.timings.renewDeadlineSeconds * 1000 - Date.now();
      const res = await unary<object, RenewResponse>(this.client, "renew", { node: this.o.node, holder: this.o.holder }, Math.max(1, budget));
      if (res.lease) this.current = res.lease;
      const forced = res.lease ? forcedPreemption(res.lease) : undefined;
      if (forced) return this.preempted(forced.by, `preempted by ${forced.by}`, forced.preemption);
      result = "renewed";
    } catch (err) {
      const e = err as grpc.ServiceError;
      why = e.details || e.message;
      // Preempted is final (the coordinator refuses every renew from now on): no K-in-a-row wait.
      if (e.code === grpc.status.FAILED_PRECONDITION) {
        const refusal = renewRefusalOf(e);
        const forced = refusal?.code === "Preempted" && refusal.current ? forcedPreemption(refusal.current) : undefined;
        if (forced) return this.preempted(forced.by, why, forced.preemption);
        const by = refusal === undefined ? preemptorOf(why) : undefined; // an older coordinator: only the text
        if (by !== undefined) return this.preempted(by, why);
      }
      result = e.code === grpc.status.FAILED_PRECONDITION ? "refused" : "error";
    }
    if (!this.stopped) this.judge(result, why);
  }

  private judge(result: RenewResult, why: string): void {
    if (this.stopped) return;
    const { state, verdict } = afterRenew(this.health, result, Date.now(), this.timings);
    this.health = state;
    if (result === "renewed") this.armWatchdog();
    if (verdict !== this.verdict) {
      this.verdict = verdict;
      this.o.onStateChange?.(verdict, why);
    }
    if (verdict === "lost") {
      this.stop();
      this.lost.abort(new Error(`lease on ${this.o.node} lost: ${why || "renew refused"}`));
      if (this.owned) this.client.close();
    }
  }

  /** Stops renewing; the watch too unless it must keep listening (for a withdrawal) until the release. */
  private stop(keepWatch = false): void {
    this.stopped = true;
    clearTimeout(this.timer);
    clearTimeout(this.watchdog);
    if (keepWatch) return;
    this.unwatch?.();
    this.unwatch = undefined;
  }

  release(): Promise<void> {
    // Shared while in flight or done; after a failure the next call asks again.
    this.releasing ??= this.releaseOnce().catch((err: unknown) => {
      this.releasing = undefined;
      throw err;
    });
    return this.releasing;
  }

  private async releaseOnce(): Promise<void> {
    const wasLost = this.verdict === "lost";
    this.released = true;
    this.stop();
    // A renew still in flight must not land after the release (scenario 14).
    await this.inFlight;
    if (wasLost) {
      this.verdict = "released";
      this.o.onStateChange?.("released", "lost before the release: nothing to release");
      return;
    }
    for (let attempt = 1; ; attempt++) {
      try {
        await unary<object, ReleaseResponse>(this.client, "release", { node: this.o.node, holder: this.o.holder }, 10_000);
        break;
      } catch (err) {
        const e = err as grpc.ServiceError;
        // Someone else holds it now: nothing of ours is left to release.
        if (e.code === grpc.status.FAILED_PRECONDITION) break;
        if (attempt >= 2) {
          // The owned client stays open for the next release() to try again.
          this.verdict = "release-failed";
          this.o.onStateChange?.("release-failed", e.details || e.message);
          throw err;
        }
        // Spaced: a blip (a replica restarting) is seconds, not microseconds, long.
        await new Promise((r) => setTimeout(r, retryDelayMs(attempt)));
      }
    }
    // "released" only once the coordinator has it: a preemptor asking then is granted.
    this.verdict = "released";
    this.o.onStateChange?.("released", "released by the holder");
    if (this.owned) this.client.close();
  }
}
