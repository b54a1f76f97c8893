// Lease adapters, I/O edge: reads the node signals and the current holds, plans (plan.ts) and acts
// through the Coordinator — the same decide-and-CAS path as a LeaseService call, without auth (it
// is this process). Run as a controller (controller.ts): one pass at a time, on signal and lease
// changes and at every resync. A refused acquire is asked again after its retry-after, or at once when
// the node's holder changes; its AdapterConflict warning is raised once per refusal, not per pass.
import type { NodeSignalState } from "@lockstep/contracts";
import type { Logger } from "pino";
import { operationName, parseOperation } from "@lockstep/lease-policy";
import { CoordinatorError, type Coordinator, type EventSink } from "../coordinator/coordinator.js";
import { toOutgoing } from "../coordinator/events.js";
import { adaptedSignals, ADAPTER_HOLDER_PREFIX, planAdapters, type AdaptedSignal, type AdapterName, type CurrentHold } from "./plan.js";

export type AdapterCoordinator = Pick<Coordinator, "acquire" | "release" | "hold" | "list">;

export interface AdapterReconcilerOptions {
  coordinator: AdapterCoordinator;
  signals(): readonly NodeSignalState[];
  enabled: ReadonlySet<AdapterName>;
  events: EventSink;
  /** Namespace of the node Leases (for event metadata). */
  namespace: string;
  logger: Logger;
  /** Term of an adapted lease; renewed at half of it while the signal lasts. */
  durationSeconds: number;
  clock?: () => number;
}

const MIN_RETRY_MS = 2_000;
const MAX_RETRY_MS = 30_000;

interface Refusal {
  /** Who held the node (or the refusal code) when refused: a change retries at once. */
  fingerprint: string;
  retryAtMs: number;
}

export class AdapterReconciler {
  private readonly clock: () => number;
  private readonly refused = new Map<string, Refusal>();
  private readonly reported = new Set<string>();
  /** An adapter's lease may have changed since the last full look (see pass). */
  private dirty = true;
  private lastAdapterHolds = 0;
  /** Passes completed (tests and metrics). */
  passes = 0;

  constructor(private readonly o: AdapterReconcilerOptions) {
    this.clock = o.clock ?? Date.now;
  }

  /** A Lease changed (holder undefined: deleted): the next pass takes a full look when it may be an adapter's. */
  leaseChanged(holder: string | undefined): void {
    if (holder === undefined || holder.startsWith(ADAPTER_HOLDER_PREFIX)) this.dirty = true;
  }

  /** The next pass takes a full look (a resync, a new term). */
  lookAgain(): void {
    this.dirty = true;
  }

  /** One pass: plan from the signals and the holds, act. One failing node never stops the others. */
  async pass(): Promise<void> {
    const nowMs = this.clock();
    const { signals, problems } = adaptedSignals(this.o.signals(), nowMs, this.o.enabled);
    for (const p of problems) this.once(`problem/${p.source}/${p.problem}`, () => this.o.logger.warn({ source: p.source, problem: p.problem }, "node signal not adapted"));
    // Nothing signalled and no adapter lease seen or touched since: listing every lease (O(nodes))
    // would find nothing to do, so lease churn elsewhere costs nothing here.
    if (signals.length === 0 && !this.dirty && this.lastAdapterHolds === 0) {
      this.passes++;
      return;
    }
    this.dirty = false;
    // Every valid hold, ours and foreign (a node may have both). A term is judged from our own
    // renewTime: this process wrote it, on this clock.
    const holds: CurrentHold[] = this.o.coordinator.list().map((l) => ({
      node: l.node,
      holder: l.holder,
      operation: operationName(l.operation),
      expiresInSeconds: l.renewTime ? (l.renewTime.getTime() + l.durationSeconds * 1000 - nowMs) / 1000 : 0,
    }));
    this.lastAdapterHolds = holds.filter((h) => h.holder.startsWith(ADAPTER_HOLDER_PREFIX)).length;
    const actions = planAdapters({ signals, holds, renewBeforeSeconds: this.o.durationSeconds / 2 });
    const live = new Set(signals.map((s) => key(s)));
    for (const k of this.refused.keys()) if (!live.has(k)) this.refused.delete(k);
    for (const a of actions) {
      try {
        if (a.kind === "release") await this.release(a.node, a.holder);
        else if (a.kind === "covered") this.refused.delete(key(a.signal));
        else await this.acquire(a.signal, a.kind === "renew", nowMs);
      } catch (err) {
        // One failing node never stops the others; the next pass asks again.
        this.o.logger.warn({ err, node: a.kind === "release" ? a.node : a.signal.node, action: a.kind }, "lease adapter action failed; retrying");
      }
    }
    this.passes++;
  }

  private async release(node: string, holder: string): Promise<void> {
    const r = await this.o.coordinator.release({ node, holder });
    if (r.kind === "released") this.o.logger.info({ node, holder, released: r.released }, "adapted lease released");
    else this.o.logger.warn({ node, holder, reason: r.reason }, "adapted lease release refused");
  }

  private async acquire(s: AdaptedSignal, renewal: boolean, nowMs: number): Promise<void> {
    const k = key(s);
    const current = this.o.coordinator.hold(s.node);
    const fingerprint = current ? `${current.lease.holder}/${operationName(current.lease.operation) ?? ""}` : "";
    const prior = this.refused.get(k);
    if (prior !== undefined && prior.fingerprint === fingerprint && nowMs < prior.retryAtMs) return;
    let outcome;
    try {
      outcome = await this.o.coordinator.acquire({
        node: s.node,
        holder: s.holder,
        operation: parseOperation(s.operation)!,
        reason: s.reason,
        durationSeconds: this.o.durationSeconds,
        waitSeconds: 0,
        force: false,
      });
    } catch (err) {
      if (err instanceof CoordinatorError && err.kind === "invalid") {
        // E.g. the signal names a node that does not exist (yet): asked again after a while.
        this.refused.set(k, { fingerprint, retryAtMs: nowMs + MAX_RETRY_MS });
        this.once(`invalid/${k}/${err.message}`, () => this.o.logger.warn({ node: s.node, holder: s.holder, reason: err.message }, "node signal cannot be adapted"));
        return;
      }
      throw err;
    }
    if (outcome.kind === "granted") {
      this.refused.delete(k);
      for (const r of [...this.reported]) if (r.startsWith(`conflict/${k}/`)) this.reported.delete(r);
      if (!outcome.renewal) this.o.logger.info({ node: s.node, holder: s.holder, operation: s.operation, source: s.source }, "adapted lease recorded");
      return;
    }
    const retryMs = Math.min(MAX_RETRY_MS, Math.max(MIN_RETRY_MS, outcome.retryAfterSeconds * 1000));
    this.refused.set(k, { fingerprint: outcome.current ? `${outcome.current.holder}/${operationName(outcome.current.operation) ?? ""}` : fingerprint, retryAtMs: nowMs + retryMs });
    if (renewal) this.o.logger.warn({ node: s.node, holder: s.holder, code: outcome.code, reason: outcome.reason }, "adapted lease renew refused");
    const by = outcome.current && outcome.current.holder !== s.holder ? `${outcome.current.holder} (${operationName(outcome.current.operation) ?? "an unknown operation"})` : undefined;
    const message = `${s.source} is carrying out ${s.operation} on ${s.node} outside Lockstep, but its lease cannot be recorded: ${by ? `${s.node} is held by ${by}` : outcome.reason} [${outcome.code}]; recorded as soon as the coordinator allows it`;
    this.once(`conflict/${k}/${outcome.code}/${by ?? ""}`, () => {
      this.o.logger.warn({ node: s.node, holder: s.holder, operation: s.operation, code: outcome.code, current: outcome.current?.holder }, "adapted lease refused");
      this.o.events.emit(toOutgoing([{ type: "warning.raised", node: s.node, message, warning: { code: "AdapterConflict", node: s.node, message } }], { namespace: this.o.namespace }));
    });
  }

  private once(id: string, f: () => void): void {
    if (this.reported.has(id)) return;
    this.reported.add(id);
    // Bounded: a flood of distinct problems cannot grow this without end.
    if (this.reported.size > 10_000) this.reported.clear();
    f();
  }
}

const key = (s: AdaptedSignal) => `${s.holder}\u0000${s.node}`;
