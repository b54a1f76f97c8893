// The rehearsal: cluster-sim's actors (CVO, MCO node controller and pool status, daemon, drain
// controller, kubelet reboot) replayed on an in-memory copy of the snapshot in virtual time, with
// Lockstep's real rules: the MCO asks the lease policy (@lockstep/lease-policy: leases held,
// DisruptionBudgets and their windows, pool bounds) before each node; the skew-enforcer's rules
// (@lockstep/skew-rules) judge the update and the next minor; the node disruption policies
// (@lockstep/disruption) decide whether a config change drains and reboots. The actors' pure cores
// decide and write; this loop only applies their writes and jumps the clock to the next due stage,
// so a snapshot and a seed always give the same forecast, with no wall-clock race. No I/O here.
import {
  MCO_ANNOTATIONS as A,
  MCD_STATES as MCD,
  DEFAULT_TIMING,
  OPERATORS,
  assignPools,
  clusterOperator,
  computePoolStatus,
  cvoStep,
  daemonStage,
  daemonStageTiming,
  daemonWrite,
  drainStage,
  drainTimeoutReason,
  maxUnavailableCount,
  nodeDone,
  nodeInfo,
  planPool,
  releaseImage,
  renderedName,
  sameStatus,
  stageSeconds,
  uncordonWrite,
  upgradeableBlockers,
  type KubeObject,
  type Stage,
  type Timing,
} from "@lockstep/cluster-sim";
import { OperationType } from "@lockstep/contracts";
import { computePdbStatus } from "@lockstep/kube-sim";
import {
  DEFAULT_POLICY,
  MemoryLeaseStore,
  decide,
  decideRelease,
  evaluateBudget,
  type ObservationLog,
  type ObservedState,
  type PolicyConfig,
  type Waiter,
} from "@lockstep/lease-policy";
import { computeDecision, type EffectiveRules } from "@lockstep/disruption";
import type { CheckUpgradeResult } from "@lockstep/skew-rules";
import { Agenda } from "./agenda.js";
import { BlockerLedger } from "./blocker-ledger.js";
import type { BlockerKind, Forecast, PoolForecast, SkewCheck } from "./forecast.js";
import { defaultNodeSeconds, poolPace, timingForPace, type PoolPace } from "./history.js";
import { mergeNodeStatus, mergePatch } from "./merge.js";
import { budgetStateOfObject, leaseNodeOfObject, poolStateOfObject, skewCheck } from "./policy-inputs.js";
import type { RehearsalSnapshot } from "./snapshot.js";
import { SUSPECT_AFTER_MS, dumpClock, ofThisUpdate, suspectWarnings, trusted, type DumpClock } from "./clock.js";
import { MACHINE_CONFIG, readStatus, type StatusReading } from "./status-reading.js";

export interface RehearseOptions {
  /** The release to rehearse the update to. */
  to: string;
  seed?: number;
  /** Wall-clock start; default the dump's own "now" as oc picks it (clock.ts). */
  start?: Date;
  /** Give up after this much simulated time (default 72 h): what still waits then is blocked. */
  horizonHours?: number;
  /** Stage timing before the cluster's own pace is applied (default cluster-sim's). */
  timing?: Timing;
  policy?: PolicyConfig;
  /** As `oc adm upgrade --force`: a minor update refused by the Upgradeable precondition goes ahead. */
  force?: boolean;
  /**
   * The node disruption policies in force (defaults merged with the cluster's; disruptionRules()).
   * With them, a pending config change within one release applies as the policies say (no drain, no
   * reboot when they allow it); without them every change drains and reboots, as cluster-sim's daemon.
   */
  disruption?: EffectiveRules;
}

/** Who the MCO's updates hold their leases as (an adapter holder, as the lease-coordinator's MCO adapter). */
export const REHEARSAL_HOLDER = "adapter:machine-config-rehearsal";
/** The skew-enforcer's ClusterOperator: its Upgradeable condition carries the skew verdict to the CVO. */
export const SKEW_OPERATOR = "lockstep";
/** A PDB that keeps a drain blocked this long is reported (shorter waits are a rollout's normal pace). */
const PDB_REPORT_AFTER_S = 600;
const MAX_EVENTS = 500_000;

const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, "Z");
const rfc = iso;
const ann = (o: KubeObject | undefined): Record<string, string> => o?.metadata?.annotations ?? {};

function nextMinorOf(v: string): string {
  const m = /^(\d+)\.(\d+)\./.exec(v);
  return m ? `${m[1]}.${Number(m[2]) + 1}.0` : "";
}

export function rehearse(snap: RehearsalSnapshot, o: RehearseOptions): Forecast {
  return new Rehearsal(snap, o).run();
}

class Rehearsal {
  private t: number;
  private readonly t0: number;
  private readonly end: number;
  private readonly seed: number;
  private readonly policy: PolicyConfig;
  private readonly base: Timing;
  private readonly cv: KubeObject;
  private readonly cos = new Map<string, KubeObject>();
  private readonly mcs = new Map<string, KubeObject>();
  private readonly pools = new Map<string, KubeObject>();
  private readonly nodes = new Map<string, KubeObject>();
  private readonly pods = new Map<string, KubeObject>();
  private readonly pdbs: KubeObject[];
  private readonly budgets;
  private readonly leases = new MemoryLeaseStore();
  private observations: ObservationLog = new Map();
  private queue: Waiter[] = [];
  private readonly agenda = new Agenda();
  private readonly jobStage = new Map<string, string>();
  private events = 0;
  private readonly held = new Set<string>();
  private readonly deniedUntil = new Map<string, number>();
  private readonly denials = new Map<string, number>();
  private readonly drainStarted = new Map<string, { request: string; at: number }>();
  private readonly blockers = new BlockerLedger();
  private readonly pace = new Map<string, PoolPace>();
  private readonly timingOf = new Map<string, Timing>();
  private readonly poolStart = new Map<string, number>();
  private readonly poolFinish = new Map<string, number>();
  private readonly updatedAtStart = new Map<string, number>();
  private readonly current: string;
  private readonly completed: string;
  private readonly infrastructure: KubeObject | undefined;
  private updateCheck: CheckUpgradeResult | undefined;
  private podSeq = 0;
  private readonly decisions = new Map<string, { drain: boolean; reboot: boolean; actions: string[] } | undefined>();
  private readonly poolChange = new Map<string, { from: string; to: string; actions: string[]; drain: boolean; reboot: boolean }>();
  private readonly dumpClock: DumpClock;
  private readonly status: StatusReading;
  /** Operators the status calls degraded or unavailable: they do not reach the target in the replay. */
  private readonly heldOperators = new Set<string>();
  /** The CVO never completes the update (an operator held, the CVO failing, a Stalled status). */
  private readonly cvoHeld: boolean;
  /** The MCO's controller is failing: it starts no node. */
  private readonly mcoHeld: boolean;

  constructor(snap: RehearsalSnapshot, private readonly o: RehearseOptions) {
    const dc = dumpClock(snap);
    this.t0 = (o.start ?? dc.now).getTime();
    // A live start (now) may be later than the dump's own instant: what lies before it is not suspect.
    this.dumpClock = { ...dc, latest: Math.max(dc.latest, this.t0 + SUSPECT_AFTER_MS) };
    this.status = readStatus(snap, this.dumpClock);
    for (const h of this.status.holds) {
      if (h.scope === "operator") this.heldOperators.add(h.subject);
      if (h.scope === "mco") this.heldOperators.add(MACHINE_CONFIG);
    }
    this.cvoHeld = this.status.holds.some((h) => h.scope === "cvo" || h.scope === "operator" || h.scope === "mco");
    this.mcoHeld = this.status.holds.some((h) => h.scope === "mco");
    this.t = this.t0;
    this.end = this.t0 + (o.horizonHours ?? 72) * 3600_000;
    this.seed = o.seed ?? 1;
    this.policy = o.policy ?? (DEFAULT_POLICY as PolicyConfig);
    this.base = o.timing ?? DEFAULT_TIMING;
    this.cv = structuredClone(snap.clusterVersion);
    const history: Array<{ state?: string; version?: string; startedTime?: string }> = this.cv.status?.history ?? [];
    this.current = this.cv.status?.desired?.version ?? history[0]?.version ?? "";
    for (const c of snap.clusterOperators) this.cos.set(c.metadata.name, structuredClone(c));
    // Operators the dump lacks are taken as settled at the last completed version (the CVO waits on every one).
    const settled = history.find((h) => h.state === "Completed")?.version ?? this.current;
    this.completed = settled;
    for (const d of OPERATORS) if (!this.cos.has(d.name)) this.cos.set(d.name, clusterOperator(d, settled, rfc(this.t0)));
    for (const m of snap.machineConfigs) this.mcs.set(m.metadata.name, structuredClone(m));
    for (const p of snap.pools) this.pools.set(p.metadata.name, structuredClone(p));
    for (const n of snap.nodes) this.nodes.set(n.metadata.name, structuredClone(n));
    for (const p of snap.pods) {
      const pod = structuredClone(p);
      // A generated pod (cluster-sim's spec, no kubelet yet) has no status: scheduled means running.
      if (pod.spec?.nodeName && pod.status?.conditions === undefined) pod.status = { ...(pod.status ?? {}), phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
      this.pods.set(`${pod.metadata.namespace}/${pod.metadata.name}`, pod);
    }
    this.pdbs = snap.pdbs.map((p) => structuredClone(p));
    this.budgets = snap.budgets.map(budgetStateOfObject);
    this.infrastructure = snap.infrastructure;
    for (const l of snap.leases) this.leases.seed(l, l.metadata.namespace ?? "", l.metadata.name);
    // The cluster's own pace: since the newest update started (the one the nodes came back from).
    const since = Date.parse(history[0]?.startedTime ?? "");
    const members = this.members();
    for (const [name, pool] of this.pools) {
      const ns = members.get(name) ?? [];
      const concurrency = maxUnavailableCount(pool.spec?.maxUnavailable, ns.length);
      const pace = poolPace(ns, Number.isFinite(since) && trusted(this.dumpClock, since) ? since : undefined, concurrency, this.dumpClock.latest);
      this.pace.set(name, pace);
      this.timingOf.set(name, timingForPace(this.base, pace));
    }
  }

  run(): Forecast {
    // The skew-enforcer judges the update on the snapshot and says so on its ClusterOperator; the
    // CVO's Upgradeable precondition then refuses a blocked minor, as in the cluster.
    this.updateCheck = this.skew(this.o.to);
    this.setSkewVerdict(this.updateCheck);
    this.cv.spec = { ...(this.cv.spec ?? {}), desiredUpdate: { version: this.o.to, image: releaseImage(this.o.to), ...(this.o.force ? { force: true } : {}) } };
    const members = this.members();
    for (const [name, pool] of this.pools) {
      const ns = members.get(name) ?? [];
      this.updatedAtStart.set(name, ns.filter((n) => this.onTarget(n)).length);
      // A pool already rolling towards the target started when its Updating condition turned True.
      if (ns.some((n) => this.mcVersion(ann(n)[A.desiredConfig]) === this.o.to && !this.onTarget(n))) {
        const upd = (pool.status?.conditions ?? []).find((c: { type?: string; status?: string }) => c.type === "Updating" && c.status === "True");
        const at = Date.parse(upd?.lastTransitionTime ?? "");
        this.poolStart.set(name, ofThisUpdate(this.dumpClock, at) && at <= this.t0 ? at : this.t0);
      }
    }
    this.settle();
    while (this.events < MAX_EVENTS && !this.finished()) {
      const due = this.agenda.peek();
      if (due === undefined || due > this.end) break;
      // A held CVO waking alone, with nothing else pending, can change nothing any more: the
      // replay is at rest and waiting to the horizon would only burn time.
      const idleWake = this.cvoHeld && this.agenda.size === 1 && this.agenda.has("cvo");
      const job = this.agenda.take()!;
      this.t = Math.max(this.t, job.due);
      this.events++;
      job.run();
      if (!this.settle() && idleWake) break;
    }
    return this.forecast();
  }

  private skew(target: string): CheckUpgradeResult {
    return skewCheck({ clusterVersion: this.cv, infrastructure: this.infrastructure, pools: [...this.pools.values()], nodes: [...this.nodes.values()], machineConfigs: [...this.mcs.values()] }, target, this.o.force ?? false);
  }

  private setSkewVerdict(c: CheckUpgradeResult): void {
    const blocked = !c.allowed || c.forced;
    const existing = this.cos.get(SKEW_OPERATOR);
    if (!existing && !blocked) return;
    const co = existing ?? { apiVersion: "config.openshift.io/v1", kind: "ClusterOperator", metadata: { name: SKEW_OPERATOR }, status: { conditions: [] } };
    const conds = ((co.status?.conditions ?? []) as Array<{ type: string }>).filter((x) => x.type !== "Upgradeable");
    const cond = blocked
      ? { type: "Upgradeable", status: "False", reason: c.reasons[0] ?? "Blocked", message: c.message, lastTransitionTime: iso(this.t0) }
      : { type: "Upgradeable", status: "True", reason: "AsExpected", message: c.message, lastTransitionTime: iso(this.t0) };
    co.status = { ...(co.status ?? {}), conditions: [...conds, cond] };
    this.cos.set(SKEW_OPERATOR, co);
  }

  // --- time ---------------------------------------------------------------------------------

  private schedule(key: string, atMs: number, run: () => void): void {
    this.agenda.schedule(key, atMs, run);
  }

  private stageMs(pool: string, s: (t: Timing) => Stage, key: string): number {
    return stageSeconds(s(this.timingOf.get(pool) ?? this.base), this.seed, key) * 1000;
  }

  // --- views --------------------------------------------------------------------------------

  private members(): Map<string, KubeObject[]> {
    return assignPools([...this.pools.values()], [...this.nodes.values()]);
  }

  private poolOf(node: string): string {
    for (const [pool, ns] of this.members()) if (ns.some((n) => n.metadata.name === node)) return pool;
    return "";
  }

  private mcVersion(name: string | undefined): string | undefined {
    return name ? ann(this.mcs.get(name))[A.releaseImageVersion] : undefined;
  }

  private onTarget(n: KubeObject): boolean {
    return nodeDone(n) && this.mcVersion(ann(n)[A.currentConfig]) === this.o.to;
  }

  /** Every node of the pool on the target and back in service (uncordoned): the pool reports Updated. */
  private poolDone(pool: string, ns: readonly KubeObject[]): boolean {
    const p = this.pools.get(pool);
    return ns.every((n) => this.onTarget(n)) && p?.status?.configuration?.name === p?.spec?.configuration?.name;
  }

  private finished(): boolean {
    const head = (this.cv.status?.history ?? [])[0];
    if (head?.version !== this.o.to || head.state !== "Completed") return false;
    for (const [pool, ns] of this.members()) if (!this.poolDone(pool, ns)) return false;
    return true;
  }

  // --- one settle: every controller until nothing changes -------------------------------------

  /** Whether any controller changed anything. */
  private settle(): boolean {
    let any = false;
    for (let i = 0; i < 50; i++) {
      const changed = this.cvo() || this.poolStatus() || this.controller();
      if (!changed) break;
      any = true;
    }
    this.armAgents();
    this.trackPools();
    return any;
  }

  /** The CVO's pure step. Pools whose config already is the target's (a rollout under way) are shown under cluster-sim's name for it. */
  private cvo(): boolean {
    const alias = new Map<string, string>();
    const view = [...this.pools.values()].map((p) => {
      const spec: string = p.spec?.configuration?.name ?? "";
      if (this.mcVersion(spec) !== this.o.to) return p;
      const simName = renderedName(p.metadata.name, this.o.to);
      alias.set(simName, spec);
      const status = p.status?.configuration?.name === spec ? { ...p.status, configuration: { name: simName } } : p.status;
      return { ...p, spec: { ...p.spec, configuration: { name: simName } }, status };
    });
    const before = JSON.stringify([this.cv.status, [...this.cos.values()].map((c) => c.status)]);
    const res = cvoStep({ cv: this.cv, operators: [...this.cos.values()], pools: view, machineConfigs: new Set([...this.mcs.keys(), ...alias.keys()]) }, new Date(this.t), { seed: this.seed, timing: this.base, timeScale: 1 });
    let changed = false;
    for (const a of res.actions) {
      // What the status holds stays held: a degraded or unavailable operator does not reach the
      // target (the CVO waits at its run level), and a held CVO never completes the update.
      if (a.type === "cvStatus") {
        const head = ((a.status.history ?? []) as Array<{ version?: string; state?: string }>)[0];
        if (this.cvoHeld && head?.version === this.o.to && head.state === "Completed") continue;
        this.cv.status = a.status;
      } else if (a.type === "coStatus") {
        if (this.heldOperators.has(a.name)) continue;
        this.cos.get(a.name)!.status = a.status;
      }
      else if (a.type === "createRendered") {
        const name = renderedName(a.pool, a.version);
        if (!this.mcs.has(name)) {
          this.mcs.set(name, { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig", metadata: { name, annotations: { [A.releaseImageVersion]: a.version } } });
          changed = true;
        }
      } else if (a.type === "retargetPool") {
        const p = this.pools.get(a.pool)!;
        const config = alias.get(a.config) ?? a.config;
        if (p.spec?.configuration?.name !== config) {
          p.spec = { ...p.spec, configuration: { name: config } };
          changed = true;
        }
      }
    }
    if (res.wakeAt !== undefined) this.schedule("cvo", Math.max(res.wakeAt, this.t), () => undefined);
    return changed || before !== JSON.stringify([this.cv.status, [...this.cos.values()].map((c) => c.status)]);
  }

  private poolStatus(): boolean {
    let changed = false;
    const members = this.members();
    for (const [name, pool] of this.pools) {
      const status = computePoolStatus(pool, members.get(name) ?? [], rfc(this.t));
      if (!sameStatus(status, pool.status)) {
        pool.status = status;
        changed = true;
      }
    }
    return changed;
  }

  private observed(): ObservedState {
    return {
      nodes: [...this.nodes.values()].map(leaseNodeOfObject),
      pools: [...this.pools.values()].map(poolStateOfObject),
      budgets: this.budgets,
      leases: this.leases.list(),
      observations: this.observations,
      queue: this.queue,
    };
  }

  /** The MCO's node controller (cluster-sim's cooperate mode): planPool's candidates, each leased first. */
  private controller(): boolean {
    // A failing machine-config controller rolls no pool (nodes already started go on in their daemons).
    if (this.mcoHeld) return false;
    let changed = false;
    const members = this.members();
    for (const [name, pool] of this.pools) {
      const ns = members.get(name) ?? [];
      const target: string = pool.spec?.configuration?.name ?? "";
      for (const n of ns) {
        if (this.held.has(n.metadata.name) && nodeDone(n) && ann(n)[A.currentConfig] === target) this.release(n.metadata.name);
      }
      const { capacity, candidates } = planPool(pool, ns);
      let granted = 0;
      for (const c of candidates) {
        if (granted >= capacity) break;
        const node = c.metadata.name;
        if ((this.deniedUntil.get(node) ?? 0) > this.t) continue;
        if (!this.acquire(node, name)) continue;
        granted++;
        c.metadata.annotations = { ...ann(c), [A.desiredConfig]: target };
        if (!this.poolStart.has(name) && this.mcVersion(target) === this.o.to) this.poolStart.set(name, this.t);
        changed = true;
      }
    }
    return changed;
  }

  private acquire(node: string, pool: string): boolean {
    if (this.held.has(node)) return true;
    const d = decide(
      { node, holder: REHEARSAL_HOLDER, operation: OperationType.OPERATION_TYPE_UPDATE, reason: `update to ${this.o.to}`, durationSeconds: this.policy.maxDurationSeconds, waitSeconds: 0, force: false },
      this.observed(),
      new Date(this.t),
      this.policy,
    );
    this.observations = d.observations;
    this.queue = d.queue;
    if (d.kind === "grant") {
      for (const w of d.writes) this.leases.apply(w);
      this.held.add(node);
      this.deniedUntil.delete(node);
      this.denials.delete(node);
      this.blockers.release(this.t, node);
      return true;
    }
    // Asked again after the policy's retry hint, backing off to at most 5 min while the denial lasts
    // (a forecast's start times are then at most that late; the simulator asks every 30 s).
    const streak = (this.denials.get(node) ?? 0) + 1;
    this.denials.set(node, streak);
    const retry = Math.min(Math.max(30, d.retryAfterSeconds) * 2 ** Math.min(streak - 1, 4), 300);
    this.deniedUntil.set(node, this.t + retry * 1000);
    this.schedule(`mcc-retry/${node}`, this.t + retry * 1000, () => undefined);
    this.noteDenial(node, pool, d.code, d.reason, d.current?.holder);
    return false;
  }

  private release(node: string): void {
    const r = decideRelease({ node, holder: REHEARSAL_HOLDER }, this.observed(), new Date(this.t), this.policy);
    this.observations = r.observations;
    for (const w of r.writes) this.leases.apply(w);
    this.held.delete(node);
  }

  private noteDenial(node: string, pool: string, code: string, reason: string, holder: string | undefined): void {
    if (code === "Held" || code === "MaintenanceFlagged" || code === "PreemptionPending" || code === "UpdateInProgress") {
      this.block("lease", holder || node, pool, node, reason);
      return;
    }
    if (code !== "BudgetExhausted" && code !== "Spacing") return;
    // A DisruptionBudget (or its window) bounds the node; the pool's own maxUnavailable is just pace.
    const ln = [...this.nodes.values()].map(leaseNodeOfObject);
    const ps = [...this.pools.values()].map(poolStateOfObject);
    for (const b of this.budgets) {
      const ev = evaluateBudget(b, ln, ps, new Date(this.t), this.policy);
      if (!ev.members.includes(node) || !ev.active) continue;
      const held = [...this.held].filter((n) => ev.members.includes(n)).length;
      if (held < ev.limit) continue;
      if (b.schedules.length > 0 && !ev.message.startsWith("window open")) this.block("window", b.name, pool, node, `DisruptionBudget ${b.name}: ${ev.message}`);
      else this.block("budget", b.name, pool, node, `DisruptionBudget ${b.name}: ${ev.message}`);
    }
  }

  private block(kind: BlockerKind, subject: string, pool: string | undefined, node: string | undefined, reason: string, from = this.t): void {
    this.blockers.hold(from, kind, subject, pool, node, reason);
  }

  // --- daemon, drain, kubelet: one pending job per node and actor, re-checked when due --------

  private armAgents(): void {
    const poolOf = new Map<string, string>();
    for (const [pool, ns] of this.members()) for (const n of ns) poolOf.set(n.metadata.name, pool);
    for (const n of this.nodes.values()) {
      const name = n.metadata.name;
      const pool = poolOf.get(name) ?? "";
      const salt = `${name}/${ann(n)[A.desiredConfig] ?? ""}`;
      const ds = daemonStage(n);
      this.arm(`mcd/${name}`, ds, () => this.stageMs(pool, (t) => daemonStageTiming(t, ds!), `${salt}/${ds}`), () => this.runDaemon(name));
      const dr = drainStage(n);
      this.arm(`drain/${name}`, dr, () => this.stageMs(pool, (t) => (dr === "mcc-drain" ? t.drainAttempt : t.uncordon), `${salt}/${dr}`), () => this.runDrain(name));
    }
  }

  private arm(key: string, stage: string | undefined, delayMs: () => number, run: () => void): void {
    if (!stage) {
      if (this.jobStage.has(key)) {
        this.agenda.cancel(key);
        this.jobStage.delete(key);
      }
      return;
    }
    if (this.jobStage.get(key) === stage && this.agenda.has(key)) return;
    this.jobStage.set(key, stage);
    this.schedule(key, this.t + delayMs(), () => {
      this.jobStage.delete(key);
      run();
    });
  }

  /**
   * What the node disruption policies make of this node's pending change: only for a change within
   * one release (an OS update always reboots) between two configs the snapshot holds in full.
   */
  private decision(node: KubeObject): { drain: boolean; reboot: boolean; actions: string[] } | undefined {
    const rules = this.o.disruption;
    const cur = ann(node)[A.currentConfig] ?? "";
    const des = ann(node)[A.desiredConfig] ?? "";
    if (!rules || !cur || !des || cur === des) return undefined;
    const key = `${cur} -> ${des}`;
    if (this.decisions.has(key)) return this.decisions.get(key);
    const from = this.mcs.get(cur);
    const to = this.mcs.get(des);
    let out: { drain: boolean; reboot: boolean; actions: string[] } | undefined;
    if (from?.spec && to?.spec && this.mcVersion(cur) === this.mcVersion(des)) {
      try {
        const d = computeDecision(from, to, rules, { controlPlaneTopology: this.infrastructure?.status?.controlPlaneTopology ?? "" });
        // An undecidable change fails the update upstream; here it takes the safe path (drain, reboot).
        out = d.error ? undefined : { drain: d.drain, reboot: d.reboot, actions: d.actions.map((a) => [a.type, a.reload?.serviceName ?? a.restart?.serviceName].filter(Boolean).join(" ")) };
      } catch {
        out = undefined;
      }
    }
    this.decisions.set(key, out);
    const pool = this.poolOf(node.metadata.name);
    if (out && !this.poolChange.has(pool)) this.poolChange.set(pool, { from: cur, to: des, ...out });
    return out;
  }

  private runDaemon(name: string): void {
    const node = this.nodes.get(name);
    const stage = node && daemonStage(node);
    if (!node || !stage) return;
    const d = stage === "mcd-request-drain" || stage === "mcd-reboot" ? this.decision(node) : undefined;
    const des = ann(node)[A.desiredConfig] ?? "";
    if (d && stage === "mcd-request-drain" && !d.drain) {
      // No drain: the daemon goes straight on (the node is never cordoned).
      node.metadata.annotations = { ...ann(node), [A.desiredDrain]: `drain-${des}`, [A.lastAppliedDrain]: `drain-${des}` };
      return;
    }
    if (d && stage === "mcd-reboot" && !d.reboot) {
      // No reboot: the files are written, services reloaded or restarted, and the node is done.
      const done = daemonWrite("mcd-complete", node, { now: rfc(this.t), versionOf: (c) => this.mcVersion(c), nodeInfo, rebootingState: true });
      Object.assign(node, mergePatch(node, done.node));
      return;
    }
    const w = daemonWrite(stage, node, { now: rfc(this.t), versionOf: (c) => this.mcVersion(c), nodeInfo, rebootingState: true });
    if (w.status) node.status = mergeNodeStatus(node.status, (w.status as { status: Record<string, unknown> }).status);
    if (w.node) Object.assign(node, mergePatch(node, w.node));
  }

  private runDrain(name: string): void {
    const node = this.nodes.get(name);
    const stage = node && drainStage(node);
    if (!node || !stage) return;
    if (stage === "mcc-uncordon") {
      Object.assign(node, mergePatch(node, uncordonWrite(node).node));
      return;
    }
    const pool = this.poolOf(name);
    const timing = this.timingOf.get(pool) ?? this.base;
    const request = ann(node)[A.desiredDrain]!;
    let started = this.drainStarted.get(name);
    if (!started || started.request !== request) this.drainStarted.set(name, (started = { request, at: this.t }));
    node.spec = { ...node.spec, unschedulable: true };
    const blockedBy = new Map<string, string>();
    for (const [key, pod] of [...this.pods]) {
      if (pod.spec?.nodeName !== name || !drainable(pod) || pod.metadata.deletionTimestamp) continue;
      const refusing = this.pdbs.map((pdb) => ({ pdb, s: computePdbStatus(pdb, [...this.pods.values()], rfc(this.t)) as { disruptionsAllowed: number; currentHealthy: number; desiredHealthy: number; expectedPods: number } })).filter(({ pdb, s }) => s.disruptionsAllowed <= 0 && (computePdbStatus(pdb, [pod], rfc(this.t)) as { expectedPods: number }).expectedPods > 0);
      if (refusing.length) {
        for (const { pdb, s } of refusing) blockedBy.set(`${pdb.metadata.namespace}/${pdb.metadata.name}`, `PodDisruptionBudget allows no disruption (${s.currentHealthy} healthy, ${s.desiredHealthy} required, of ${s.expectedPods} pods)`);
        continue;
      }
      this.evict(key, pod, pool);
    }
    const stillThere = [...this.pods.values()].filter((p) => p.spec?.nodeName === name && drainable(p)).length;
    if (stillThere === 0) {
      node.metadata.annotations = { ...ann(node), [A.lastAppliedDrain]: request };
      this.drainStarted.delete(name);
      this.blockers.release(this.t, name, ["pdb"]);
      return;
    }
    const elapsed = (this.t - started.at) / 1000;
    if (blockedBy.size > 0 && elapsed >= PDB_REPORT_AFTER_S) for (const [pdb, why] of blockedBy) this.block("pdb", pdb, pool, name, why);
    if (blockedBy.size > 0 && elapsed >= timing.drainTimeout && ann(node)[A.state] !== MCD.degraded) {
      node.metadata.annotations = { ...ann(node), [A.state]: MCD.degraded, [A.reason]: drainTimeoutReason(name, timing.drainTimeout) };
    }
    // Evictions accepted: wait for the pods to go (every 2 s). Blocked: retry every minute, every 5 after 10.
    const retry = blockedBy.size === 0 ? 2 : elapsed >= timing.drainSlowAfter ? timing.drainRetrySlow : timing.drainRetry;
    const untilTimeout = timing.drainTimeout - elapsed;
    const next = blockedBy.size > 0 && untilTimeout > 0 ? Math.min(retry, untilTimeout) : retry;
    const key = `drain/${name}`;
    this.jobStage.set(key, "mcc-drain");
    this.schedule(key, this.t + next * 1000, () => {
      this.jobStage.delete(key);
      this.runDrain(name);
    });
  }

  /**
   * An accepted eviction, as kube-sim and cluster-sim's pod actors play it: the pod turns Terminating
   * (no longer healthy; the drain waits for it) and is gone after the kubelet's pod-delete stage; its
   * controller's replacement lands on the least loaded schedulable node of the pool after the
   * recreate stage and turns Ready after the pod-ready stage.
   */
  private evict(key: string, pod: KubeObject, pool: string): void {
    pod.metadata = { ...pod.metadata, deletionTimestamp: rfc(this.t) };
    this.schedule(`pod-delete/${key}`, this.t + this.stageMs(pool, (t) => t.podDelete, `${key}/delete`), () => this.pods.delete(key));
    if (!(pod.metadata.ownerReferences ?? []).length) return;
    const rkey = `${pod.metadata.namespace}/${pod.metadata.name}-r${++this.podSeq}`;
    this.schedule(`pod-create/${rkey}`, this.t + this.stageMs(pool, (t) => t.podRecreate, `${rkey}/recreate`), () => this.replace(rkey, pod, pool));
  }

  private replace(rkey: string, pod: KubeObject, pool: string): void {
    const members = this.members().get(pool) ?? [];
    const load = (n: string) => [...this.pods.values()].filter((p) => p.spec?.nodeName === n && !p.metadata.deletionTimestamp).length;
    const target = members
      .filter((n) => n.spec?.unschedulable !== true && (n.status?.conditions ?? []).some((c: { type?: string; status?: string }) => c.type === "Ready" && c.status === "True"))
      .map((n) => n.metadata.name)
      .sort((a, b) => load(a) - load(b) || (a < b ? -1 : 1))[0];
    if (target === undefined) {
      // Nowhere to run yet: the controller tries again (cluster-sim's replica controller: every 30 s).
      this.schedule(`pod-create/${rkey}`, this.t + 30_000, () => this.replace(rkey, pod, pool));
      return;
    }
    const name = rkey.slice(rkey.indexOf("/") + 1);
    const { deletionTimestamp: _gone, ...meta } = structuredClone(pod.metadata);
    this.pods.set(rkey, { ...structuredClone(pod), metadata: { ...meta, name, uid: `rehearsal-${name}` }, spec: { ...pod.spec, nodeName: target }, status: { phase: "Pending", conditions: [{ type: "Ready", status: "False" }] } });
    this.schedule(`pod-ready/${rkey}`, this.t + this.stageMs(pool, (t) => t.podReady, `${rkey}/ready`), () => {
      const p = this.pods.get(rkey);
      if (p) p.status = { phase: "Running", conditions: [{ type: "Ready", status: "True" }] };
    });
  }

  // --- the forecast ---------------------------------------------------------------------------

  private trackPools(): void {
    for (const [name, ns] of this.members()) {
      if (this.poolFinish.has(name) || !this.poolStart.has(name)) continue;
      if (this.poolDone(name, ns)) this.poolFinish.set(name, this.t);
    }
  }

  private forecast(): Forecast {
    const members = this.members();
    // What still holds pools back at the end, besides what was noted on the way.
    const accepted = (this.cv.status?.history ?? [])[0]?.version === this.o.to;
    // Every hold read from the status is a blocker, whatever the replay made of it.
    for (const h of this.status.holds) {
      const node = h.kind === "degraded" ? h.subject : undefined;
      this.blockers.hold(this.t0, h.kind, h.subject, node ? this.poolOf(node) || undefined : undefined, node, h.reason, { objects: h.objects, since: h.since, ...(h.insight ? { insight: h.insight } : {}) });
    }
    if (!accepted) {
      const refusal = (this.cv.status?.conditions ?? []).find((c: { type?: string; status?: string }) => c.type === "ReleaseAccepted" && c.status === "False");
      for (const b of upgradeableBlockers([...this.cos.values()])) {
        const skew = b.name === SKEW_OPERATOR;
        this.block(skew ? "skew" : "upgradeable", b.name, undefined, undefined, refusal?.message ?? `${b.reason}: ${b.message}`, this.t0);
      }
    }
    for (const [name, pool] of this.pools) {
      const ns = members.get(name) ?? [];
      const behind = ns.filter((n) => !this.onTarget(n)).map((n) => n.metadata.name);
      for (const n of ns) {
        const a = ann(n);
        if (!this.onTarget(n) && (a[A.state] === MCD.degraded || a[A.state] === MCD.unreconcilable) && !this.blockers.names(n.metadata.name))
          this.block("degraded", n.metadata.name, name, n.metadata.name, `node is ${a[A.state]}: ${a[A.reason] ?? ""}`, this.t0);
      }
      if (accepted && pool.spec?.paused === true && behind.length) {
        for (const n of behind) this.block("paused-pool", name, name, n, `pool ${name} is paused: its nodes stay on their current config`, this.t0);
      }
    }
    const pools: PoolForecast[] = [...this.pools.keys()].sort().map((name) => {
      const ns = members.get(name) ?? [];
      const pool = this.pools.get(name)!;
      const start = this.poolStart.get(name);
      const finish = this.poolFinish.get(name);
      const pace = this.pace.get(name)!;
      const allOn = ns.every((n) => this.onTarget(n));
      const state: PoolForecast["state"] = allOn ? (start === undefined ? "idle" : "done") : "blocked";
      return {
        pool: name,
        nodes: ns.length,
        updatedAtStart: this.updatedAtStart.get(name) ?? 0,
        paused: pool.spec?.paused === true,
        state,
        start: start === undefined ? null : iso(start),
        finish: finish === undefined ? null : iso(finish),
        durationSeconds: start !== undefined && finish !== undefined ? Math.round((finish - start) / 1000) : null,
        nodeSeconds: Math.round(pace.nodeSeconds ?? defaultNodeSeconds(this.timingOf.get(name) ?? this.base)),
        pace: pace.source,
        ...(this.poolChange.has(name) ? { configChange: this.poolChange.get(name)! } : {}),
      };
    });
    const blockers = this.blockers.list();
    // A hold (anything but an alert, which is a risk) means the update does not finish in the replay.
    const finishedAll = this.finished() && !this.status.holds.some((h) => h.kind !== "alert");
    const lastFinish = Math.max(this.t0, ...[...this.poolFinish.values()], Date.parse(((this.cv.status?.history ?? [])[0]?.completionTime as string | undefined) ?? "") || this.t0);
    const nextMinor = nextMinorOf(this.o.to);
    const next = this.skew(nextMinor);
    // Other operators' Upgradeable=False stay as the snapshot has them (the replay does not re-judge them).
    const others = upgradeableBlockers([...this.cos.values()].filter((c) => c.metadata.name !== SKEW_OPERATOR)).map((b) => `${b.name}: ${b.reason}`).sort();
    return {
      current: this.current,
      completed: this.completed,
      target: this.o.to,
      seed: this.seed,
      start: iso(this.t0),
      statusAssessment: this.status.assessment,
      warnings: [...suspectWarnings(this.dumpClock.suspect, this.dumpClock.latest), ...(this.status.problem ? [`the status of the snapshot could not be evaluated, so its insights are not carried: ${this.status.problem}`] : [])],
      suspectTimestamps: this.dumpClock.suspect.map((x) => ({ ...x })),
      finish: finishedAll ? iso(lastFinish) : null,
      accepted,
      pools,
      blockers,
      update: checkOf(this.updateCheck!),
      nextMinor: { version: nextMinor, ...checkOf(next), allowed: next.allowed && others.length === 0, operators: others },
      simulatedSeconds: Math.round((this.t - this.t0) / 1000),
      events: this.events,
    };
  }
}

function checkOf(c: CheckUpgradeResult): SkewCheck {
  return { allowed: c.allowed, kind: c.kind, reasons: [...c.reasons], message: c.message, warnings: [...c.warnings] };
}


/** What a drain evicts: not DaemonSet pods, not mirror pods, not finished ones. */
function drainable(p: KubeObject): boolean {
  if (p.status?.phase === "Succeeded" || p.status?.phase === "Failed") return false;
  if (ann(p)["kubernetes.io/config.mirror"] !== undefined) return false;
  return !(p.metadata.ownerReferences ?? []).some((r: { kind?: string }) => r.kind === "DaemonSet");
}
