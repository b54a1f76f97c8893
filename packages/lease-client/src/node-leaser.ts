// NodeLeaser for cluster-sim's actors (structurally the same interface as @lockstep/cluster-sim's
// NodeLeaser, which this package does not depend on): one renewing lease per node and kind.
import * as grpc from "@grpc/grpc-js";
import { LeaseServiceClient, OperationType } from "@lockstep/contracts";
import { acquireLease, LeaseDeniedError, LeasePreemptedError, type LeaseHandle } from "./client.js";
import type { HolderTimings } from "./health.js";

export type DisruptionKind = "Update" | "Remediation" | "Maintenance";

export interface NodeLeaser {
  /** True when `kind` may disrupt `node` now; the caller must release it when done. */
  acquire(node: string, kind: DisruptionKind): Promise<boolean>;
  release(node: string, kind: DisruptionKind): Promise<void>;
}

const OPERATION: Record<DisruptionKind, OperationType> = {
  Update: OperationType.OPERATION_TYPE_UPDATE,
  Remediation: OperationType.OPERATION_TYPE_FENCE,
  Maintenance: OperationType.OPERATION_TYPE_MAINTENANCE,
};

export interface CoordinatorLeaserOptions {
  address: string;
  /** Holder identity prefix; the kind is appended (`<holder>/<kind>`). */
  holder: string;
  durationSeconds?: number;
  timings?: Partial<Omit<HolderTimings, "leaseDurationSeconds">>;
  credentials?: grpc.ChannelCredentials;
  /** The hold on `node` was lost: the actor must stop disrupting it. */
  onLost?(node: string, kind: DisruptionKind, reason: string): void;
  /**
   * A forced request preempted the hold on `node`: the actor stops at its next safe point and
   * resolves; the lease is released then (at once when absent).
   */
  onPreempted?(node: string, kind: DisruptionKind, preemptedBy: string): void | Promise<void>;
  /** Watch the held leases (one Watch stream for all of them) to learn of a preemption before the next renew; on unless false. */
  watchPreemption?: boolean;
}

/** An acquire in flight; a release asked meanwhile wins over its grant. */
interface InFlight {
  done: Promise<boolean>;
  releaseAsked: boolean;
  /** The release of a grant that came after its release was asked. */
  lateRelease?: Promise<void>;
}

/**
 * How long close() waits for the releases before closing the connection anyway (a release is
 * bounded per attempt, but the coordinator may be gone; the leases then expire on their own).
 */
const CLOSE_RELEASE_MS = 10_000;

export class CoordinatorNodeLeaser implements NodeLeaser {
  private readonly client: LeaseServiceClient;
  private readonly handles = new Map<string, LeaseHandle>();
  private readonly acquiring = new Map<string, InFlight>();
  /** Every hold granted and not yet released or lost, preempted ones (gone from `handles`) too. */
  private readonly unreleased = new Set<LeaseHandle>();
  private preemptionHandler: ((node: string, kind: DisruptionKind, preemptedBy: string) => void | Promise<void>) | undefined;

  constructor(private readonly o: CoordinatorLeaserOptions) {
    this.client = new LeaseServiceClient(o.address, o.credentials ?? grpc.credentials.createInsecure());
  }

  private key(node: string, kind: DisruptionKind): string {
    return `${kind}/${node}`;
  }

  /** Also told of every preemption (cluster-sim's actors register their safe point here). */
  setPreemptionHandler(handler: (node: string, kind: DisruptionKind, preemptedBy: string) => void | Promise<void>): void {
    this.preemptionHandler = handler;
  }

  /** The hold's signal (aborts on loss), while held. */
  signalFor(node: string, kind: DisruptionKind): AbortSignal | undefined {
    return this.handles.get(this.key(node, kind))?.signal;
  }

  async acquire(node: string, kind: DisruptionKind): Promise<boolean> {
    const key = this.key(node, kind);
    const existing = this.handles.get(key);
    if (existing && !existing.signal.aborted) return true;
    // Asked again while the first ask is in flight: share it. A second handle would renew on
    // unseen, holding the node after its release.
    const pending = this.acquiring.get(key);
    if (pending !== undefined && !pending.releaseAsked) return pending.done;
    // One being released: its grant must be let go before this one is asked for (Acquire is
    // idempotent per holder, so that release would end this hold too).
    if (pending !== undefined) {
      await pending.done.catch(() => undefined);
      await pending.lateRelease?.catch(() => undefined);
      return this.acquire(node, kind);
    }
    const flight: InFlight = { done: Promise.resolve(false), releaseAsked: false };
    flight.done = this.acquireOnce(node, kind, key, flight).finally(() => this.acquiring.delete(key));
    this.acquiring.set(key, flight);
    return flight.done;
  }

  private async acquireOnce(node: string, kind: DisruptionKind, key: string, flight: InFlight): Promise<boolean> {
    this.handles.delete(key);
    let granted: LeaseHandle | undefined;
    try {
      const handle = await acquireLease({
        address: this.o.address,
        client: this.client,
        node,
        operation: OPERATION[kind],
        holder: `${this.o.holder}/${kind.toLowerCase()}`,
        reason: `${kind} by ${this.o.holder}`,
        durationSeconds: this.o.durationSeconds ?? 60,
        timings: this.o.timings,
        watchPreemption: this.o.watchPreemption,
        onStateChange: (state) => {
          if (granted && (state === "released" || state === "lost")) this.unreleased.delete(granted);
        },
        onPreempted: async (info) => {
          await Promise.all([this.o.onPreempted?.(node, kind, info.preemptedBy), this.preemptionHandler?.(node, kind, info.preemptedBy)]);
        },
      });
      granted = handle;
      this.unreleased.add(handle);
      if (flight.releaseAsked) {
        // Released before granted: let it go before its first renew, and report it not held.
        flight.lateRelease = handle.release();
        await flight.lateRelease.catch(() => undefined);
        return false;
      }
      this.handles.set(key, handle);
      handle.signal.addEventListener("abort", () => {
        if (this.handles.get(key) === handle) this.handles.delete(key);
        // A preemption goes to onPreempted (the handle releases after it); anything else is a loss.
        if (handle.signal.reason instanceof LeasePreemptedError) return;
        this.o.onLost?.(node, kind, String((handle.signal.reason as Error)?.message ?? handle.signal.reason));
      });
      return true;
    } catch (err) {
      if (err instanceof LeaseDeniedError) return false;
      throw err;
    }
  }

  async release(node: string, kind: DisruptionKind): Promise<void> {
    const key = this.key(node, kind);
    const flight = this.acquiring.get(key);
    if (flight !== undefined) {
      flight.releaseAsked = true;
      await flight.done.catch(() => undefined);
      await flight.lateRelease;
    }
    const handle = this.handles.get(key);
    this.handles.delete(key);
    await handle?.release();
  }

  /** Releases every hold and closes the connection. */
  async close(): Promise<void> {
    // Before the client closes, or a release could not be sent: the node would stay held until
    // its lease expired. A preempted hold is released without waiting for its safe point.
    const flights = [...this.acquiring.values()];
    for (const flight of flights) flight.releaseAsked = true;
    const letGo = Promise.allSettled([
      ...flights.map(async (f) => {
        await f.done.catch(() => undefined);
        await f.lateRelease;
      }),
      ...[...this.unreleased].map((h) => h.release()),
    ]);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([letGo, new Promise((r) => (timer = setTimeout(r, CLOSE_RELEASE_MS)))]);
    clearTimeout(timer);
    this.handles.clear();
    this.client.close();
  }
}
