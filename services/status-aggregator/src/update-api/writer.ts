// Maintains the Update Status API objects from the aggregator's snapshots. Reconciles state: every
// snapshot only marks what changed (nodes by name, the few cluster-level objects as a whole);
// a pass computes those objects, compares them with what was last written or read, and writes only
// the differences (create, one status merge patch, delete), through a token bucket. Passes never
// overlap, so changes that arrive while one runs are batched into the next, and a node that changed
// several times meanwhile costs one write.
import { createHash } from "node:crypto";
import { type ClusterOperator, type ClusterVersion, type Evaluation, formatRFC3339, type NodeRecord, wallClockNow } from "@lockstep/insights";
import { isAlreadyExists, isNotFound } from "@lockstep/kube";
import { HotLoopGuard, systemClock, TokenBucket } from "@lockstep/reconcile";
import type { Logger } from "pino";
import type { SnapshotCause } from "../aggregator/snapshot.js";
import type { InsightApi } from "./client.js";
import { listAll } from "./client.js";
import {
  clusterOperatorObject,
  clusterVersionObject,
  type DesiredObject,
  healthObjects,
  nodeObject,
  objectKey,
  poolObject,
} from "./objects.js";
import { canonical, settleStatus, statusPatch } from "./settle.js";
import { type ApiMode, CRD_NAMES, decideMode, type ModeDecision } from "./stand-back.js";
import { INSIGHT_KINDS, type InsightKind, type InsightObject, type InsightStatus, MANAGED_BY, MANAGED_BY_LABEL, UPDATE_API_VERSION } from "@lockstep/contracts";

/** One snapshot of the aggregator's view as the writer reads it (a StatusSnapshot). */
export interface WriterSnapshot {
  readonly cause: SnapshotCause;
  /** The nodes shown, in name order. */
  readonly names: readonly string[];
  /** Rows added or changed, and removed, since the previous snapshot. */
  readonly changed: readonly string[];
  readonly removed: readonly string[];
  row(name: string): { record: NodeRecord; since: bigint } | undefined;
  /** Throws while the view cannot be evaluated (no ClusterVersion yet). */
  evaluation(): { evaluation: Evaluation };
  readonly clusterVersion: ClusterVersion | undefined;
  readonly clusterOperators: readonly ClusterOperator[];
}

/** Where the snapshots come from (the aggregator): the latest, and each new one as it is made. */
export interface WriterSource {
  current(): WriterSnapshot | undefined;
  subscribe(listener: (s: WriterSnapshot) => void): () => void;
}

export type WriteVerb = "create" | "status" | "delete";

export interface WriterHooks {
  onWrite?: (kind: InsightKind, verb: WriteVerb, name: string) => void;
  onMode?: (mode: ApiMode) => void;
  onBacklog?: (pending: number) => void;
  /** After every check of the CRDs (the mode `lockstep status` shows may have changed). */
  onChecked?: (mode: ModeDecision) => void;
}

export interface UpdateApiWriterOptions {
  api: InsightApi;
  source: WriterSource;
  logger: Logger;
  /** Sustained write cap (all kinds together). */
  writesPerSecond: number;
  /** Writes allowed at once after a quiet period. */
  writeBurst: number;
  /** The cluster-level objects are recomputed this often without any change (estimates, levels move with time). */
  refreshMs: number;
  /** The owned objects are listed again (drift repair) and the CRDs re-checked this often. */
  resyncMs: number;
  /** Wall clock for new condition times (Unix ns). */
  clock?: () => bigint;
  hooks?: WriterHooks;
}

export interface WriterStats {
  creates: number;
  statusWrites: number;
  deletes: number;
  passes: number;
  failures: number;
}

const NOT_WRITING_RECHECK_MS = 30_000;
/**
 * The cluster-level objects (one evaluation, every operator) are recomputed at most this often: while
 * nodes roll the view changes many times a second, and these objects summarise it.
 */
const CLUSTER_MIN_INTERVAL_MS = 1_000;
const OWNED = `${MANAGED_BY_LABEL}=${MANAGED_BY}`;
const NODE: InsightKind = "NodeProgressInsight";
const CLUSTER_KINDS: InsightKind[] = INSIGHT_KINDS.filter((k) => k !== NODE);
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((r) => {
    if (signal.aborted) return r();
    const t = setTimeout(done, ms);
    function done() {
      clearTimeout(t);
      signal.removeEventListener("abort", done);
      r();
    }
    signal.addEventListener("abort", done, { once: true });
  });

export class UpdateApiWriter {
  readonly stats: WriterStats = { creates: 0, statusWrites: 0, deletes: 0, passes: 0, failures: 0 };
  private decision: ModeDecision = { mode: "crds-missing", detail: "not checked yet" };
  private checkedOnce = false;
  private lastCluster = 0;
  /**
   * Last known status of each owned cluster-level object, by objectKey, as canonical JSON text, and
   * of each node's object, by node name, as a digest of that text: at 10,000 nodes what is kept per
   * node is a short string (node objects carry their own condition times, so nothing is read back
   * from them), and equality is a string compare.
   */
  private readonly observed = new Map<string, Seen>();
  private readonly nodesSeen = new Map<string, Seen>();
  private readonly dirtyNodes = new Set<string>();
  private allNodes = true;
  private clusterDirty = true;
  private wakeUp: (() => void) | undefined;
  private readonly bucket: TokenBucket;
  private readonly clock: () => bigint;
  /** The same status written three times in a row did not stick (the server changes it): stop. */
  private readonly guard: HotLoopGuard;

  constructor(private readonly o: UpdateApiWriterOptions) {
    this.bucket = new TokenBucket(systemClock, { qps: o.writesPerSecond, burst: o.writeBurst });
    this.clock = o.clock ?? wallClockNow;
    this.guard = new HotLoopGuard({
      onHotLoop: (err) => o.logger.error({ err: err.message }, "refusing a repeated Update Status API write: the API server does not keep what is written"),
    });
  }

  get mode(): ModeDecision {
    return this.decision;
  }

  /** Whether the CRDs were checked at least once (before that, `mode` is only a placeholder). */
  get checked(): boolean {
    return this.checkedOnce;
  }

  /** Node changes and cluster-level objects waiting for a pass. */
  get pending(): number {
    return this.dirtyNodes.size + (this.clusterDirty ? 1 : 0) + (this.allNodes ? 1 : 0);
  }

  /** Runs until the signal aborts. Call once the source is synced. */
  async run(signal: AbortSignal): Promise<void> {
    // A plain consumer of the snapshots: each marks what it changed; passes read the latest.
    const off = this.o.source.subscribe((s) => {
      // Nothing written depends on the view's age; time alone moves the cluster objects at refreshMs.
      if (s.cause === "freshness" || s.cause === "tick") return;
      for (const n of s.changed) this.dirtyNodes.add(n);
      for (const n of s.removed) this.dirtyNodes.add(n);
      this.clusterDirty = true;
      this.wake();
    });
    const refresh = setInterval(() => {
      this.clusterDirty = true;
      this.wake();
    }, this.o.refreshMs);
    let nextResync = 0;
    try {
      while (!signal.aborted) {
        if (Date.now() >= nextResync) {
          nextResync = Date.now() + this.o.resyncMs;
          try {
            await this.resync();
            // Not writing: look again soon (CRDs installed with the chart may appear after start).
            if (this.decision.mode !== "writing") nextResync = Date.now() + Math.min(this.o.resyncMs, NOT_WRITING_RECHECK_MS);
          } catch (err) {
            this.stats.failures++;
            this.o.logger.warn({ err }, "update status API resync failed; retrying");
            nextResync = Date.now() + Math.min(5_000, this.o.resyncMs);
          }
        }
        if (this.decision.mode === "writing" && this.due() > 0) {
          try {
            await this.pass(signal);
          } catch (err) {
            this.stats.failures++;
            this.o.logger.warn({ err }, "update status API pass failed; retrying");
            await sleep(1_000, signal);
          }
          continue;
        }
        await new Promise<void>((r) => {
          const clusterDue = this.clusterDirty ? this.lastCluster + CLUSTER_MIN_INTERVAL_MS : Infinity;
          const t = setTimeout(done, Math.max(0, Math.min(nextResync, clusterDue) - Date.now()));
          function done() {
            clearTimeout(t);
            signal.removeEventListener("abort", done);
            r();
          }
          this.wakeUp = done;
          signal.addEventListener("abort", done, { once: true });
        });
        this.wakeUp = undefined;
      }
    } finally {
      off();
      clearInterval(refresh);
    }
  }

  /** Work a pass would do now: marked nodes, and the cluster-level objects at most once a second. */
  private due(): number {
    const cluster = this.clusterDirty && Date.now() >= this.lastCluster + CLUSTER_MIN_INTERVAL_MS ? 1 : 0;
    return this.dirtyNodes.size + (this.allNodes ? 1 : 0) + cluster;
  }

  private wake(): void {
    this.wakeUp?.();
  }

  /** Re-checks whose CRDs these are and re-reads the owned objects; the next pass is a full one. */
  async resync(): Promise<void> {
    const crds = await Promise.all(
      CRD_NAMES.map(async (name) => {
        try {
          return { name, crd: await this.o.api.getCrd(name) };
        } catch (err) {
          if (isNotFound(err)) return { name, crd: undefined };
          throw err;
        }
      }),
    );
    const decision = decideMode(crds);
    if (decision.mode !== this.decision.mode) {
      const level = decision.mode === "writing" ? "info" : "warn";
      this.o.logger[level]({ mode: decision.mode, detail: decision.detail }, "update status API mode");
      this.o.hooks?.onMode?.(decision.mode);
    }
    this.decision = decision;
    this.checkedOnce = true;
    this.o.hooks?.onChecked?.(decision);
    if (decision.mode !== "writing") return;
    this.observed.clear();
    this.nodesSeen.clear();
    for (const kind of INSIGHT_KINDS) {
      for (const obj of await listAll(this.o.api.kinds[kind], OWNED)) this.remember(kind, obj);
    }
    this.allNodes = true;
    this.clusterDirty = true;
  }

  /** One reconciliation of everything marked since the last pass. */
  async pass(signal: AbortSignal): Promise<void> {
    this.stats.passes++;
    const src = this.o.source;
    // Cluster-level objects: few, computed once per pass from one evaluation.
    const cluster = new Map<string, DesiredObject | null>();
    if (this.clusterDirty && Date.now() >= this.lastCluster + CLUSTER_MIN_INTERVAL_MS) {
      this.clusterDirty = false;
      this.lastCluster = Date.now();
      const objects = this.clusterObjects();
      if (objects) {
        for (const d of objects) cluster.set(objectKey(d.kind, d.name), d);
        for (const [key] of this.observed) if (CLUSTER_KINDS.some((k) => key.startsWith(`${k}/`)) && !cluster.has(key)) cluster.set(key, null);
      }
    }
    // Nodes: names only; each object is built from the row as it is when its turn comes, so a node
    // that changes again while the pass waits for the rate limit is written once, as it is then.
    let nodes: string[];
    if (this.allNodes) {
      this.allNodes = false;
      const shown = new Set(src.current()?.names ?? []);
      nodes = [...shown];
      for (const name of this.nodesSeen.keys()) if (!shown.has(name)) nodes.push(name);
    } else {
      nodes = [...this.dirtyNodes];
    }
    this.dirtyNodes.clear();
    this.o.hooks?.onBacklog?.(cluster.size + nodes.length);
    const attempt = async (key: string, build: () => DesiredObject | null, retry: () => void) => {
      try {
        await this.converge(key, build, signal);
      } catch (err) {
        // Kept for the next pass; a bad object never stops the others.
        this.stats.failures++;
        this.o.logger.warn({ err, object: key }, "update status API write failed");
        retry();
      }
    };
    for (const [key, d] of cluster) {
      if (signal.aborted) return;
      await attempt(key, () => d, () => (this.clusterDirty = true));
    }
    for (const name of nodes) {
      if (signal.aborted) return;
      this.dirtyNodes.delete(name);
      await attempt(
        objectKey(NODE, name),
        () => {
          const row = src.current()?.row(name);
          return row ? nodeObject(row.record, row.since) : null;
        },
        () => this.dirtyNodes.add(name),
      );
    }
  }

  private clusterObjects(): DesiredObject[] | undefined {
    const s = this.o.source.current();
    const cv = s?.clusterVersion;
    let evaluation: Evaluation;
    try {
      if (!s) return undefined;
      evaluation = s.evaluation().evaluation;
    } catch {
      return undefined; // not evaluable yet: leave what is there
    }
    if (!cv) return undefined;
    const out: DesiredObject[] = [];
    for (const pool of [...(evaluation.masterPool ? [evaluation.masterPool] : []), ...evaluation.workerPools]) out.push(poolObject(pool));
    out.push(clusterVersionObject(cv, evaluation));
    for (const co of s.clusterOperators) {
      const d = clusterOperatorObject(cv, co, evaluation.now);
      if (d) out.push(d);
    }
    out.push(...healthObjects(evaluation));
    return out;
  }

  private async take(signal: AbortSignal): Promise<void> {
    const wait = this.bucket.reserve();
    if (wait > 0) await sleep(wait, signal);
  }

  /**
   * Makes the object at `key` what `build` says (null: absent). `build` is asked again after each
   * wait for the rate limit, so what is written is the newest state, not the one that queued it.
   */
  private async converge(key: string, build: () => DesiredObject | null, signal: AbortSignal): Promise<void> {
    const kind = key.slice(0, key.indexOf("/")) as InsightKind;
    const name = key.slice(kind.length + 1);
    const calls = this.o.api.kinds[kind];
    let d = build();
    let current = this.seen(kind, name);
    if (d === null) {
      if (!current) return;
      await this.take(signal);
      if (build() !== null) return this.converge(key, build, signal); // came back meanwhile
      try {
        await calls.delete(name);
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
      this.forget(kind, name);
      this.count(kind, "delete", name);
      return;
    }
    if (!current) {
      await this.take(signal);
      d = build();
      if (d === null) return;
      let created: InsightObject;
      try {
        created = (await calls.create({
          apiVersion: UPDATE_API_VERSION,
          kind: d.kind,
          metadata: { name: d.name, labels: { [MANAGED_BY_LABEL]: MANAGED_BY } },
          spec: {},
        })) as InsightObject;
        this.count(kind, "create", d.name);
      } catch (err) {
        if (!isAlreadyExists(err)) throw err;
        // Ours but not read back yet (created by an earlier run or replica): adopt it.
        const page = await calls.list({ labelSelector: OWNED });
        const found = ((page.items ?? []) as InsightObject[]).find((x) => x.metadata.name === name);
        if (!found) throw err; // someone else's object of that name: not ours to overwrite
        created = found;
      }
      current = this.remember(kind, created);
    }
    const now = () => formatRFC3339(this.clock());
    if (fingerprint(kind, settleStatus(d.status, observedStatus(kind, d.status, current), now())) === current.status) {
      this.guard.reset(key);
      return;
    }
    await this.take(signal);
    d = build();
    if (d === null) return this.converge(key, build, signal);
    const before = kind === NODE ? NODE_OPTIONAL : current.status === undefined ? undefined : (JSON.parse(current.status) as InsightStatus);
    const next = settleStatus(d.status, kind === NODE ? undefined : before, now());
    const text = fingerprint(kind, next);
    if (text === current.status) return;
    if (!this.guard.check(key, text)) return;
    try {
      const written = this.remember(kind, (await calls.patchStatus(d.name, { status: statusPatch(next, before) })) as InsightObject);
      // The server kept what was written: nothing to guard (only writes that do not stick repeat).
      if (written.status === text) this.guard.reset(key);
    } catch (err) {
      if (isNotFound(err)) {
        // Deleted behind our back: created again by the next pass.
        this.forget(kind, name);
        if (kind === NODE) this.dirtyNodes.add(d.name);
        else this.clusterDirty = true;
        return;
      }
      throw err;
    }
    this.count(kind, "status", d.name);
  }

  private seen(kind: InsightKind, name: string): Seen | undefined {
    return kind === NODE ? this.nodesSeen.get(name) : this.observed.get(objectKey(kind, name));
  }

  private remember(kind: InsightKind, o: InsightObject): Seen {
    const s: Seen = { status: o.status === undefined ? undefined : fingerprint(kind, o.status) };
    if (kind === NODE) this.nodesSeen.set(o.metadata.name, s);
    else this.observed.set(objectKey(kind, o.metadata.name), s);
    return s;
  }

  private forget(kind: InsightKind, name: string): void {
    if (kind === NODE) this.nodesSeen.delete(name);
    else this.observed.delete(objectKey(kind, name));
  }

  private count(kind: InsightKind, verb: WriteVerb, name: string): void {
    if (verb === "create") this.stats.creates++;
    else if (verb === "status") this.stats.statusWrites++;
    else this.stats.deletes++;
    this.o.hooks?.onWrite?.(kind, verb, name);
  }
}

/** What is kept of an object read or written: its status as `fingerprint` gives it. */
interface Seen {
  status: string | undefined;
}

/** Canonical JSON text of a status; for node objects its SHA-1 digest (27 characters). */
function fingerprint(kind: InsightKind, status: InsightStatus): string {
  const text = canonical(status);
  return kind === NODE ? createHash("sha1").update(text).digest("base64").slice(0, 27) : text;
}

/** The optional fields of a node's status: a patch nulls those the new status lacks. */
const NODE_OPTIONAL = { version: "", estimatedToComplete: "", message: "" } as unknown as InsightStatus;

/**
 * The observed status of a cluster-level object, parsed only when settling needs it: a condition
 * without its own time, or an estimate. Node objects carry all their times: never needed.
 */
function observedStatus(kind: InsightKind, desired: InsightStatus, s: Seen): InsightStatus | undefined {
  if (kind === NODE || s.status === undefined) return undefined;
  const conditions = (desired as { conditions?: Array<{ lastTransitionTime?: string }> }).conditions ?? [];
  const needs = conditions.some((c) => !c.lastTransitionTime) || "estimatedCompletedAt" in desired;
  return needs ? (JSON.parse(s.status) as InsightStatus) : undefined;
}

export type { InsightStatus };
