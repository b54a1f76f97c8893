// Randomised lease model, for tests and the soak script only (not exported from the package index):
// several coordinator replicas share one simulated Lease store with resourceVersion CAS, while
// requesters acquire (some with force, some waiting in line), renew, release and watch their lease,
// with injected 409s, replica restarts (observations and queue lost), requester crashes, expiry and
// clock skew between replicas. Every step checks safety against what requesters *believe*: they act
// only on an OK, stop at their own deadline (start of the call + duration), and drop the belief when
// a renew is refused or they learn that their lease is preempted.
//
// The invariant: at no instant do two requesters each believe they hold one node. It is stronger
// than "two unexpired, un-preempted grants" because a preempted holder that has not yet learned of
// it still counts; it holds because a preemptor is granted only after the holder released (having
// stopped first) or its lease expired (after the holder's own deadline).
import { OperationType, type AcquireRequest } from "@lockstep/contracts";
import { seededRng } from "@lockstep/random";
import { decide } from "./decide.js";
import { budget as fixtureBudget, node as fixtureNode, pool as fixturePool, Replica, testPolicy, type World } from "./fixtures.js";
import { ANN_FORCED_BY, ANN_PREEMPTED_BY, type LeaseWrite } from "./lease-record.js";
import { MemoryLeaseStore } from "./memory-store.js";
import type { OperationName } from "./operations.js";
import { decideRelease, decideRenew } from "./release.js";
import type { Decision } from "./types.js";

export const MODEL_OPS: ReadonlyArray<readonly [OperationName, OperationType]> = [
  ["Update", OperationType.OPERATION_TYPE_UPDATE],
  ["Reboot", OperationType.OPERATION_TYPE_REBOOT],
  ["Drain", OperationType.OPERATION_TYPE_DRAIN],
  ["Fence", OperationType.OPERATION_TYPE_FENCE],
  ["Deprovision", OperationType.OPERATION_TYPE_DEPROVISION],
  ["Maintenance", OperationType.OPERATION_TYPE_MAINTENANCE],
];

export interface ModelScope {
  name: string;
  members: string[];
  limit: number;
  ops: OperationName[];
}

export interface ModelOptions {
  replicas: number;
  requesters: number;
  steps: number;
  ops: ReadonlyArray<readonly [OperationName, OperationType]>;
  world: World;
  /** Budget scopes to check: members, limit, and which operations count. */
  scopes: ModelScope[];
  /** Injected 409s, replica restarts, requester crashes and clock skew. */
  faults: boolean;
  maxSkewSeconds: number;
  /** Share of acquires that ask for force (default 0.2). */
  forceRate?: number;
  /** Share of acquires that wait in line (default 0.3). */
  waitRate?: number;
  /** Largest clock step between two events (default 8 s; leases last 20-80 s). */
  maxStepMs?: number;
  /** Told of every decision and belief change (to replay a failing seed). */
  trace?: (line: string) => void;
  /**
   * One wait queue read and written by every replica, surviving replica restarts (the service's
   * shared queue in NATS KV), instead of one per replica lost on restart.
   */
  sharedQueue?: boolean;
}

export interface ModelOutcome {
  grants: number;
  denials: number;
  conflicts: number;
  /** Preemption marks written (a forced request met a holder the policy allows it to preempt). */
  preemptions: number;
  /** Grants completing a preemption (after the holder's release or expiry). */
  preemptorGrants: number;
  /** Renews refused because the lease is preempted. */
  renewsPreempted: number;
  /** Holders that learned of their preemption from the lease itself (the Watch stream). */
  learnedByWatch: number;
  /** Beliefs that ran out at the holder's own deadline. */
  expiries: number;
  replicaRestarts: number;
  violations: string[];
}

export function emptyOutcome(): ModelOutcome {
  return { grants: 0, denials: 0, conflicts: 0, preemptions: 0, preemptorGrants: 0, renewsPreempted: 0, learnedByWatch: 0, expiries: 0, replicaRestarts: 0, violations: [] };
}

export function addOutcomes(a: ModelOutcome, b: ModelOutcome): ModelOutcome {
  const out = emptyOutcome();
  for (const k of Object.keys(out) as Array<keyof ModelOutcome>) {
    if (k === "violations") out.violations = [...a.violations, ...b.violations];
    else out[k] = a[k] + b[k];
  }
  return out;
}

interface Belief {
  node: string;
  op: OperationName;
  until: number;
}

type Flow = Generator<void, void, void>;

const isMark = (w: LeaseWrite) => w.body.metadata.annotations[ANN_PREEMPTED_BY] !== undefined && w.body.spec.holderIdentity !== undefined;

export function runModel(seed: number, o: ModelOptions): ModelOutcome {
  const rnd = seededRng(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const policy = testPolicy({ postReleaseDelaySeconds: 0 });
  const store = new MemoryLeaseStore();
  const t0 = Date.parse("2026-11-21T10:00:00Z");
  let now = t0;
  const replicas = Array.from({ length: o.replicas }, () => new Replica(policy, o.faults ? Math.round((rnd() * 2 - 1) * o.maxSkewSeconds * 1000) : 0));
  const epochs = replicas.map(() => 0);
  const beliefs = new Map<string, Belief>();
  const busy = new Set<string>();
  const requesterEpoch = new Map<string, number>();
  const flows: Array<{ who: string; gen: Flow }> = [];
  const out = emptyOutcome();
  const nodeNames = o.world.nodes.map((n) => n.name);
  const forceRate = o.forceRate ?? 0.2;
  const waitRate = o.waitRate ?? 0.3;
  const requesters = Array.from({ length: o.requesters }, (_, k) => `req-${k}`);

  const at = (ri: number) => new Date(now + replicas[ri]!.clockOffsetMs);
  const shared: { queue: Replica["queue"] } | undefined = o.sharedQueue ? { queue: [] } : undefined;
  const state = (ri: number) => {
    const s = replicas[ri]!.state(o.world, store);
    return shared ? { ...s, queue: shared.queue } : s;
  };
  const keep = (ri: number, d: { observations: Replica["observations"]; queue?: Replica["queue"] }) => {
    replicas[ri]!.observations = d.observations;
    if (d.queue && shared) shared.queue = d.queue;
    else if (d.queue) replicas[ri]!.queue = d.queue;
  };
  const aliveFor = (ri: number, who: string) => {
    const myEpoch = epochs[ri];
    const reqEpoch = requesterEpoch.get(who);
    return () => epochs[ri] === myEpoch && requesterEpoch.get(who) === reqEpoch;
  };
  /** The requester stops its guarded work; it may still release (the lease-client does). */
  const forget = (who: string, node: string) => {
    if (beliefs.get(who)?.node === node) beliefs.delete(who);
  };

  /** Writes in order, one step each; false on a (real or injected) 409 or a crash. */
  function* write(writes: LeaseWrite[], alive: () => boolean, inject: boolean): Generator<void, boolean | "dead", void> {
    for (const w of writes) {
      yield;
      if (!alive()) return "dead";
      if (inject && o.faults && rnd() < 0.08) return false;
      if (!store.apply(w).ok) return false;
    }
    return true;
  }

  /** Yields until the clock moved or the store changed (or the caller died): a waiter's wake-up. */
  function* idle(alive: () => boolean, untilMs = 0): Generator<void, boolean, void> {
    const t = now;
    const w = store.writes;
    while ((now === t && store.writes === w) || now < untilMs) {
      yield;
      if (!alive()) return false;
    }
    return true;
  }

  function* acquireFlow(ri: number, who: string, req: AcquireRequest, op: OperationName, persistent: boolean): Flow {
    const alive = aliveFor(ri, who);
    const start = now;
    // A holder asking for a shorter term caps its belief at once: the write may land even if the
    // reply is lost (then the lease expires by the new term, not the old one).
    const cur = beliefs.get(who);
    if (cur?.node === req.node) cur.until = Math.min(cur.until, start + req.durationSeconds * 1000);
    const waitUntil = start + req.waitSeconds * 1000;
    for (let round = 0; round < 12; round++) {
      yield;
      if (!alive()) return;
      const remaining = Math.max(0, Math.ceil((waitUntil - now) / 1000));
      const d: Decision = decide({ ...req, waitSeconds: remaining }, state(ri), at(ri), policy);
      keep(ri, d);
      o.trace?.(`t=${(now - t0) / 1000} r${ri} acquire ${who} ${req.node} ${op}${req.force ? " force" : ""} start=${(start - t0) / 1000} dur=${req.durationSeconds} → ${d.kind}${d.kind !== "grant" ? ` ${d.code}: ${d.reason}` : ""} writes=${d.writes.map((w) => `${w.name}@${w.expectedResourceVersion}:${w.body.spec.holderIdentity ?? ""}`).join(",")}`);
      const marks = d.writes.filter(isMark).length;
      const r = yield* write(d.writes, alive, true);
      if (r === "dead") return;
      if (r === false) {
        out.conflicts++;
        continue;
      }
      out.preemptions += marks;
      // The Watch stream pushes the mark to the holder; it reads it a few steps later, if its
      // process is not busy with another call (then a renew refusal tells it instead).
      for (const m of d.writes.filter(isMark)) {
        const holder = m.body.spec.holderIdentity!;
        if (!busy.has(holder) && beliefs.get(holder)?.node === req.node && rnd() < 0.6) {
          busy.add(holder);
          flows.push({ who: holder, gen: watchFlow(Math.floor(rnd() * replicas.length), holder, beliefs.get(holder)!) });
        }
      }
      if (d.kind === "grant") {
        yield; // the reply travels back; a crash here means no OK
        if (!alive()) return;
        out.grants++;
        if (!d.renewal && d.leaseBody.metadata.annotations[ANN_FORCED_BY] !== undefined) out.preemptorGrants++;
        beliefs.set(who, { node: req.node, op, until: start + req.durationSeconds * 1000 });
        o.trace?.(`t=${(now - t0) / 1000} ${who} believes ${req.node} until ${(start + req.durationSeconds * 1000 - t0) / 1000}`);
        return;
      }
      out.denials++;
      if (d.kind === "deny") {
        // A refused renew (acquire by the holder) means the hold is lost: the holder stops at once,
        // and a preempted one releases (as the lease-client does).
        forget(who, req.node);
        if (d.code === "Preempted") {
          out.renewsPreempted++;
          yield* releaseFlow(ri, who, req.node);
          return;
        }
        // A forcer told PreemptionPending comes back after retry-after (at most the remaining lease).
        if (d.code !== "PreemptionPending" || !persistent) return;
        if (!(yield* idle(alive, now + d.retryAfterSeconds * 1000))) return;
        continue;
      }
      if (now >= waitUntil) return; // waited long enough
      if (!(yield* idle(alive))) return;
    }
  }

  function* renewFlow(ri: number, who: string, b: Belief): Flow {
    const alive = aliveFor(ri, who);
    const start = now;
    for (let attempt = 0; attempt < 3; attempt++) {
      yield;
      if (!alive()) return;
      const d = decideRenew({ node: b.node, holder: who }, state(ri), at(ri), policy);
      keep(ri, d);
      o.trace?.(`t=${(now - t0) / 1000} r${ri} renew ${who} ${b.node} start=${(start - t0) / 1000} → ${d.kind}${d.kind !== "grant" ? ` ${d.code}: ${d.reason}` : ""} writes=${d.writes.map((w) => `${w.name}@${w.expectedResourceVersion}`).join(",")}`);
      if (d.kind !== "grant") {
        out.denials++;
        forget(who, b.node);
        if (d.code === "Preempted") {
          out.renewsPreempted++;
          yield* releaseFlow(ri, who, b.node); // the lease-client releases once it learns
        }
        return;
      }
      const r = yield* write(d.writes, alive, true);
      if (r === "dead") return;
      if (r === false) {
        out.conflicts++;
        continue;
      }
      yield;
      if (!alive()) return;
      out.grants++;
      const cur = beliefs.get(who);
      if (cur?.node === b.node) beliefs.set(who, { ...cur, until: Math.max(cur.until, start + (d.lease.durationSeconds ?? 0) * 1000) });
      o.trace?.(`t=${(now - t0) / 1000} ${who} renewed ${b.node} belief ${cur?.node === b.node ? `until ${(beliefs.get(who)!.until - t0) / 1000}` : "none"}`);
      return;
    }
  }

  function* releaseFlow(ri: number, who: string, node: string): Flow {
    forget(who, node); // the guarded work has stopped before the release
    const myEpoch = epochs[ri];
    for (let attempt = 0; attempt < 2; attempt++) {
      yield;
      if (epochs[ri] !== myEpoch) return;
      const d = decideRelease({ node, holder: who }, state(ri), at(ri), policy);
      keep(ri, d);
      o.trace?.(`t=${(now - t0) / 1000} r${ri} release ${who} ${node} → ${d.kind} writes=${d.writes.map((w) => `${w.name}@${w.expectedResourceVersion}`).join(",")}`);
      const r = yield* write(d.writes, () => epochs[ri] === myEpoch, false);
      if (r !== false) return;
    }
  }

  /** The Watch stream: the holder reads its Lease; a preemption mark means stop and release. */
  function* watchFlow(ri: number, who: string, b: Belief): Flow {
    yield;
    const lease = store.get(policy.namespace, b.node);
    if (lease?.spec.holderIdentity !== who || lease.metadata.annotations[ANN_PREEMPTED_BY] === undefined) return;
    if (beliefs.get(who)?.node !== b.node) return;
    out.learnedByWatch++;
    yield* releaseFlow(ri, who, b.node);
  }

  const check = (step: number) => {
    for (const [who, b] of beliefs) {
      if (b.until <= now) {
        beliefs.delete(who); // holders halt at their own deadline
        out.expiries++;
      }
    }
    const byNode = new Map<string, string[]>();
    for (const [who, b] of beliefs) byNode.set(b.node, [...(byNode.get(b.node) ?? []), who]);
    for (const [n, whos] of byNode) {
      if (whos.length > 1) out.violations.push(`seed ${seed} step ${step}: ${n} believed held by ${whos.join(", ")}`);
    }
    for (const scope of o.scopes) {
      const holders = [...beliefs.values()].filter((b) => scope.members.includes(b.node) && scope.ops.includes(b.op)).map((b) => b.node);
      const sick = scope.members.filter((m) => !holders.includes(m) && o.world.nodes.find((n) => n.name === m)?.conditions.some((c) => c.type === "Ready" && c.status !== "True"));
      if (holders.length + sick.length > scope.limit) {
        out.violations.push(`seed ${seed} step ${step}: ${scope.name} allows ${scope.limit}, disrupted ${[...holders, ...sick].join(", ")}`);
      }
    }
  };

  for (let step = 0; step < o.steps && out.violations.length === 0; step++) {
    const r = rnd();
    if (r < 0.45 && flows.length > 0) {
      const i = Math.floor(rnd() * flows.length);
      const f = flows[i]!;
      if (f.gen.next().done) {
        flows.splice(i, 1);
        busy.delete(f.who);
      }
    } else if (r < 0.7) {
      const idle = requesters.filter((w) => !busy.has(w));
      if (idle.length > 0) {
        // Holders renew well within their term (as the lease-client does), so pick them often.
        const holders = idle.filter((w) => beliefs.has(w));
        const who = holders.length > 0 && rnd() < 0.5 ? pick(holders) : pick(idle);
        const b = beliefs.get(who);
        const ri = Math.floor(rnd() * replicas.length);
        busy.add(who);
        const x = rnd();
        if (b && x < 0.25) flows.push({ who, gen: releaseFlow(ri, who, b.node) });
        else if (b && x < 0.55) flows.push({ who, gen: renewFlow(ri, who, b) });
        else if (b && x < 0.7) flows.push({ who, gen: watchFlow(ri, who, b) });
        else {
          const force = rnd() < forceRate;
          // Forced requests are mostly an admin's maintenance, the one the default policy lets preempt.
          const maintenance = o.ops.find(([n]) => n === "Maintenance");
          const [opName, opType] = b
            ? (o.ops.find(([n]) => n === b.op) as readonly [OperationName, OperationType])
            : force && maintenance && rnd() < 0.8 ? maintenance : pick(o.ops);
          const req: AcquireRequest = {
            node: b ? b.node : pick(nodeNames), holder: who, operation: opType, reason: "model",
            durationSeconds: 20 + Math.floor(rnd() * 60), waitSeconds: rnd() < waitRate ? 120 : 0, force,
          };
          flows.push({ who, gen: acquireFlow(ri, who, req, opName, rnd() < 0.7) });
        }
      }
    } else if (r < 0.85) {
      now += Math.floor(rnd() * (o.maxStepMs ?? 8_000));
    } else if (o.faults && r < 0.865) {
      const ri = Math.floor(rnd() * replicas.length);
      replicas[ri]!.crash();
      o.trace?.(`t=${(now - t0) / 1000} replica r${ri} restarts`);
      epochs[ri] = (epochs[ri] ?? 0) + 1;
      out.replicaRestarts++;
    } else if (o.faults && r < 0.885) {
      const who = pick(requesters);
      beliefs.delete(who); // the process died, and its guarded work with it
      o.trace?.(`t=${(now - t0) / 1000} requester ${who} crashes`);
      requesterEpoch.set(who, (requesterEpoch.get(who) ?? 0) + 1);
    }
    check(step);
  }
  return out;
}

/** The two worlds the test and the soak run. */
export function poolRaceOptions(): ModelOptions {
  const names = ["w1", "w2", "w3", "w4", "w5", "w6"];
  const world: World = { nodes: names.map((n) => fixtureNode(n)), pools: [fixturePool("worker", "1")], budgets: [] };
  return {
    replicas: 3, requesters: 6, steps: 200, ops: [MODEL_OPS[0]!], world, faults: false, maxSkewSeconds: 0, forceRate: 0,
    scopes: [{ name: "pool worker", members: names, limit: 1, ops: ["Update", "Reboot", "Drain"] }],
  };
}

export function faultyWorldOptions(overrides: Partial<ModelOptions> = {}): ModelOptions {
  const a = ["a1", "a2", "a3", "a4"];
  const b = ["b1", "b2", "b3", "b4", "b5"];
  const nodes = [...a.map((n) => fixtureNode(n, { labels: { zone: "a" } })), ...b.map((n) => fixtureNode(n, { labels: { zone: "b" } }))];
  // b5 is NotReady: it consumes budget in both scopes it belongs to.
  nodes[nodes.length - 1] = fixtureNode("b5", { labels: { zone: "b" }, ready: false });
  const world: World = {
    nodes,
    pools: [fixturePool("worker", "2")],
    budgets: [fixtureBudget("zone-b", { nodeSelector: { matchLabels: { zone: "b" }, matchExpressions: [] }, maxDisrupted: "40%" })],
  };
  const automated: OperationName[] = ["Update", "Reboot", "Drain", "Fence", "Deprovision", "PowerOff"];
  return {
    replicas: 3, requesters: 8, steps: 300, ops: MODEL_OPS, world, faults: true, maxSkewSeconds: 300,
    scopes: [
      { name: "pool worker", members: [...a, ...b], limit: 2, ops: ["Update", "Reboot", "Drain"] },
      { name: "budget zone-b", members: b, limit: 2, ops: automated },
    ],
    ...overrides,
  };
}
