// The skew-enforcer's reconcile of the single key "cluster": evaluate the pure rules on the view,
// converge ClusterOperator `lockstep` to the status they call for, publish the facts that became
// due. No network here: the view, the status writer and the fact log are handed in (runnable.ts
// builds them over the state plane, the API server and the event stream).
import type { BootImagesState, Condition, MachineSetState, StateKindName } from "@lockstep/contracts";
import type { ReconcileResult } from "@lockstep/reconcile";
import type { Freshness } from "@lockstep/runtime";
import type { Logger } from "pino";
import type { SkewMetrics } from "../metrics.js";
import {
  CLUSTER_OPERATOR_NAME,
  clusterOperatorStatusChanged,
  desiredClusterOperatorStatus,
  evaluateSkew,
  holdAllButUpgradeable,
  NodeTally,
  staleEvaluation,
  type ClusterOperatorStatus,
  type RelatedObject,
  type SkewEvaluation,
  type SkewNode,
  type SkewSettings,
} from "@lockstep/skew-rules";
import { statusFingerprint } from "./cluster-operator-status.js";
import { dueFacts, type DueFact, type LastFacts } from "./facts.js";
import { bootImagesOf, machineSetOf, skewInputs, WATCHED_KINDS, type StateReader, type ViewSettings } from "./view.js";

/** The one reconcile key: the verdict is about the whole cluster. */
export const CLUSTER_KEY = "cluster";
/** Degraded reason when our status writes keep being undone. */
export const REASON_HOT_LOOP = "StatusWriteHotLoop";
/** Re-evaluation without changes, by default (ms). */
export const DEFAULT_RESYNC_MS = 600_000;

/** What writing the ClusterOperator status came to (cluster-operator-writer.ts is one). */
export type StatusWriteOutcome =
  | { readonly result: "unchanged" | "written"; readonly observed: { readonly relatedObjects: readonly RelatedObject[] } }
  | { readonly result: "refused"; readonly error: { readonly message: string; readonly attempts: number } };

export interface StatusWriter {
  /** Reads the status, and writes `desired(previous conditions)` when it differs. */
  converge(desired: (previous: readonly Condition[]) => ClusterOperatorStatus): Promise<StatusWriteOutcome>;
}

/** The event stream's newest facts, and publishing (fact-log.ts is one). */
export interface FactStore {
  readonly last: LastFacts;
  refresh(): Promise<LastFacts>;
  /** False for a duplicate id (another replica published it first). */
  publish(fact: DueFact): Promise<boolean>;
}

/** What a state change is, for the enforcer (a StateCache change fits). */
export interface StateChangeNote {
  kind: StateKindName;
  name: string;
  op: "put" | "delete";
  value?: unknown;
}

/** How old the view is (undefined before it is connected), and why it is stale while it is. */
export interface ViewFreshness {
  readonly freshness: Freshness | undefined;
  /** In the words written on ClusterOperator lockstep (stable while the view stays stale). */
  readonly stale: string | undefined;
}

export interface SkewEnforcerOptions {
  view: ViewSettings;
  writer: StatusWriter;
  logger: Logger;
  /** Namespace Lockstep runs in (a related object of the ClusterOperator). */
  namespace: string;
  /** Lockstep's version, reported as operand `operator`. */
  operatorVersion: string;
  metrics?: SkewMetrics;
  /** Re-evaluate this often without changes (ms). Default 10 minutes. */
  resyncMs?: number;
  /** Why the view is stale (undefined while fresh), stable while it stays stale. */
  staleness?: () => string | undefined;
  /** The view's freshness and staleness read at once, for the answers (SkewService). */
  freshness?: () => ViewFreshness;
  /** Asks for another reconcile at once (a refused write is then reported as Degraded). */
  requeue: () => void;
  /**
   * Whether this replica is the one writer (leader election); default always. A follower evaluates
   * for its gRPC answers but writes no status and publishes no fact.
   */
  leading?: () => boolean;
  now?: () => Date;
}

export class NotSyncedError extends Error {
  constructor() {
    super("the skew-enforcer has not yet loaded the state plane (waiting for the watcher's meta.synced)");
    this.name = "NotSyncedError";
  }
}

const RELEVANT = new Set<StateKindName>(WATCHED_KINDS);

export class SkewEnforcer {
  private readonly now: () => Date;
  private state: StateReader | undefined;
  /** Nodes counted per pool and progress, kept current from the view's changes. */
  private tally = new NodeTally();
  private facts: FactStore | undefined;
  private factsLoaded = false;
  /** Related objects as last read or written (the state plane does not carry them). */
  private knownRelated: readonly RelatedObject[] | undefined;
  /** A refused (hot-loop) status: kept Degraded until the status Lockstep wants changes. */
  private hotLoop: { baseFingerprint: string; message: string } | undefined;
  private lastBaseFingerprint = "";

  constructor(private readonly o: SkewEnforcerOptions) {
    this.now = o.now ?? (() => new Date());
  }

  private leading(): boolean {
    return this.o.leading?.() ?? true;
  }

  get synced(): boolean {
    return this.state !== undefined;
  }

  /**
   * Follows one change of the view (before and after the sync); true when it can change a verdict
   * (the caller schedules an evaluation). The tally follows every node and pool change, so an
   * evaluation reads counts, not nodes.
   */
  noteChange(c: StateChangeNote, pools: () => Parameters<NodeTally["setPools"]>[0]): boolean {
    if (!RELEVANT.has(c.kind)) return false;
    if (c.kind === "node") {
      if (c.op === "put") this.tally.put(c.value as SkewNode);
      else this.tally.delete(c.name);
    } else if (c.kind === "pool") this.tally.setPools(pools());
    return !(c.kind === "clusterOperator" && c.name !== CLUSTER_OPERATOR_NAME);
  }

  /** A load of the view begins (a start or a restart): the tally is rebuilt from its changes. */
  beginLoad(): void {
    this.tally = new NodeTally();
  }

  /** The view is loaded and meta.synced seen: verdicts may be given and acted on. */
  markSynced(state: StateReader, facts: FactStore): void {
    this.state = state;
    this.facts = facts;
  }

  /** The view is gone (stopping): queries answer NotSyncedError again. */
  markStopped(): void {
    this.state = undefined;
  }

  /** The verdicts from the view as it is now. */
  evaluate(): SkewEvaluation {
    if (!this.state) throw new NotSyncedError();
    return evaluateSkew(skewInputs(this.state, this.o.view, this.tally.tally));
  }

  /** How old the view is and why it is stale, for answers that must fail closed as the ClusterOperator does. */
  viewFreshness(): ViewFreshness {
    return this.o.freshness?.() ?? { freshness: undefined, stale: this.o.staleness?.() };
  }

  machineSet(namespace: string, name: string): MachineSetState | undefined {
    if (!this.state) throw new NotSyncedError();
    return machineSetOf(this.state, namespace, name);
  }

  bootImages(): BootImagesState | undefined {
    if (!this.state) throw new NotSyncedError();
    return bootImagesOf(this.state, this.o.view);
  }

  async reconcile(): Promise<ReconcileResult> {
    const state = this.state;
    if (!state || !this.leading()) return;
    // Fail closed on a stale view (skew/stale.ts): Upgradeable=False (StateStale), every other
    // condition held, and no facts: update.completed from a view nobody vouches for could be false.
    const stale = this.o.staleness?.();
    const e = stale === undefined ? this.evaluate() : staleEvaluation(this.evaluate(), stale);
    this.observe(e);
    await this.convergeClusterOperator(e, state, stale !== undefined);
    // Leadership may have ended during the write: a deposed leader publishes nothing more.
    if (stale === undefined && this.leading()) await this.publishFacts(e);
    else this.o.logger.warn({ why: stale }, "state plane stale; upgrades blocked, facts held");
    return { requeueAfter: this.o.resyncMs ?? DEFAULT_RESYNC_MS };
  }

  private observe(e: SkewEvaluation): void {
    const m = this.o.metrics;
    if (!m) return;
    m.evaluations.inc();
    m.upgradeable.set(e.upgradeable.status === "True" ? 1 : 0);
    m.enforcementNone.set(e.bootImage.enforcementNoneMetric);
    m.updateComplete.set(e.completion.complete ? 1 : 0);
  }

  private desiredStatus(e: SkewEvaluation, previous: readonly Condition[], stale = false): ClusterOperatorStatus {
    const desired = this.desiredFromView(e, previous);
    return stale ? holdAllButUpgradeable(desired, previous) : desired;
  }

  private desiredFromView(e: SkewEvaluation, previous: readonly Condition[]): ClusterOperatorStatus {
    const inputs = {
      upgradeable: e.upgradeable,
      completion: e.completion,
      operatorVersion: this.o.operatorVersion,
      namespace: this.o.namespace,
      pools: e.lag.pools.map((p) => p.name),
      previous,
      now: this.now(),
    };
    const base = desiredClusterOperatorStatus(inputs);
    this.lastBaseFingerprint = statusFingerprint(base);
    // The inputs moved on since the refusal: try the new status.
    if (this.hotLoop && this.hotLoop.baseFingerprint !== this.lastBaseFingerprint) this.hotLoop = undefined;
    if (!this.hotLoop) return base;
    return desiredClusterOperatorStatus({ ...inputs, degraded: { reason: REASON_HOT_LOOP, message: this.hotLoop.message } });
  }

  private async convergeClusterOperator(e: SkewEvaluation, state: StateReader, stale: boolean): Promise<void> {
    // The state plane usually proves there is nothing to write, without a request to the API server.
    const seen = state.get("clusterOperator", CLUSTER_OPERATOR_NAME);
    if (seen && this.knownRelated) {
      const observed = { conditions: seen.conditions, versions: seen.versions, relatedObjects: this.knownRelated };
      if (!clusterOperatorStatusChanged(observed, this.desiredStatus(e, seen.conditions, stale))) return;
    }
    const outcome = await this.o.writer.converge((previous) => this.desiredStatus(e, previous, stale));
    if (outcome.result === "refused") {
      this.o.metrics?.statusWrites.inc({ result: "refused" });
      const message =
        `ClusterOperator ${CLUSTER_OPERATOR_NAME}: ${outcome.error.message}. ` +
        `Look for another writer of clusteroperator/${CLUSTER_OPERATOR_NAME} status (oc get clusteroperator ${CLUSTER_OPERATOR_NAME} -o yaml, managedFields).`;
      this.o.logger.error({ name: CLUSTER_OPERATOR_NAME, attempts: outcome.error.attempts }, "cluster operator status write refused: hot loop");
      if (!this.hotLoop) {
        this.hotLoop = { baseFingerprint: this.lastBaseFingerprint, message };
        this.o.requeue(); // report it as Degraded=True
      }
      return;
    }
    this.knownRelated = outcome.observed.relatedObjects;
    if (outcome.result === "written") {
      this.o.logger.info({ name: CLUSTER_OPERATOR_NAME, upgradeable: e.upgradeable.status, reason: e.upgradeable.reason }, "cluster operator status written");
    }
  }

  private async publishFacts(e: SkewEvaluation): Promise<void> {
    const facts = this.facts;
    if (!facts) return;
    if (!this.factsLoaded) {
      await facts.refresh();
      this.factsLoaded = true;
    }
    if (dueFacts(facts.last, e).length === 0) return;
    // Something is due: decide against the stream itself (another replica may have published it).
    for (const fact of dueFacts(await facts.refresh(), e)) {
      const fresh = await facts.publish(fact);
      if (fresh) this.o.metrics?.events.inc({ type: fact.kind });
      this.o.logger.info({ fact: fact.kind, id: fact.id, duplicate: !fresh }, "fact published");
    }
  }
}
