// Randomised model test: several coordinator replicas share one simulated Lease store with
// resourceVersion CAS, while requesters acquire, renew and release, with injected 409s, replica and
// requester crashes, and clock skew between replicas. Every step checks the two safety properties
// against what requesters *believe* (they act only on an OK): never two valid holders of a node,
// never a budget exceeded. Seeds are printed on failure.
import { OperationType, type AcquireRequest } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { decide } from "./decide.js";
import { budget, node, pool, Replica, testPolicy, type World } from "./fixtures.js";
import { MemoryLeaseStore } from "./memory-store.js";
import type { OperationName } from "./operations.js";
import { decideRelease } from "./release.js";

function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const OPS: Array<[OperationName, OperationType]> = [
  ["Update", OperationType.OPERATION_TYPE_UPDATE],
  ["Reboot", OperationType.OPERATION_TYPE_REBOOT],
  ["Drain", OperationType.OPERATION_TYPE_DRAIN],
  ["Fence", OperationType.OPERATION_TYPE_FENCE],
  ["Deprovision", OperationType.OPERATION_TYPE_DEPROVISION],
  ["Maintenance", OperationType.OPERATION_TYPE_MAINTENANCE],
];

interface Belief {
  node: string;
  op: OperationName;
  until: number;
}

interface ModelOptions {
  replicas: number;
  requesters: number;
  steps: number;
  ops: Array<[OperationName, OperationType]>;
  world: World;
  /** Scopes to check: members, limit, and which operations count. */
  scopes: Array<{ name: string; members: string[]; limit: number; ops: OperationName[] }>;
  faults: boolean;
  maxSkewSeconds: number;
}

interface Outcome {
  grants: number;
  denials: number;
  conflicts: number;
  violations: string[];
}

function runModel(seed: number, o: ModelOptions): Outcome {
  const rnd = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T;
  const policy = testPolicy({ postReleaseDelaySeconds: 0 });
  const store = new MemoryLeaseStore();
  let now = Date.parse("2026-11-21T10:00:00Z");
  const replicas = Array.from({ length: o.replicas }, () => new Replica(policy, o.faults ? Math.round((rnd() * 2 - 1) * o.maxSkewSeconds * 1000) : 0));
  const epochs = replicas.map(() => 0);
  const beliefs = new Map<string, Belief>();
  const busy = new Set<string>();
  const requesterEpoch = new Map<string, number>();
  const flows: Array<{ who: string; gen: Generator<void, void, void> }> = [];
  const out: Outcome = { grants: 0, denials: 0, conflicts: 0, violations: [] };
  const nodeNames = o.world.nodes.map((n) => n.name);

  function* acquireFlow(ri: number, who: string, req: AcquireRequest, op: OperationName): Generator<void, void, void> {
    const rep = replicas[ri]!;
    const myEpoch = epochs[ri];
    const reqEpoch = requesterEpoch.get(who);
    const start = now;
    const alive = () => epochs[ri] === myEpoch && requesterEpoch.get(who) === reqEpoch;
    for (let attempt = 0; attempt < 3; attempt++) {
      yield;
      if (!alive()) return;
      const d = decide(req, rep.state(o.world, store), new Date(now + rep.clockOffsetMs), policy);
      rep.observations = d.observations;
      rep.queue = d.queue;
      if (d.kind !== "grant") {
        out.denials++;
        // A renew that is refused means the hold is lost: the holder stops at once.
        if (beliefs.get(who)?.node === req.node && d.kind === "deny") beliefs.delete(who);
        for (const w of d.writes) {
          yield;
          if (!alive()) return;
          store.apply(w);
        }
        return;
      }
      let ok = true;
      for (const w of d.writes) {
        yield;
        if (!alive()) return;
        if (o.faults && rnd() < 0.08) {
          ok = false; // injected 409
          break;
        }
        if (!store.apply(w).ok) {
          ok = false;
          break;
        }
      }
      if (!ok) {
        out.conflicts++;
        continue;
      }
      yield; // the reply travels back; a crash here means no OK
      if (!alive()) return;
      out.grants++;
      beliefs.set(who, { node: req.node, op, until: start + req.durationSeconds * 1000 });
      return;
    }
  }

  function* releaseFlow(ri: number, who: string, nodeName: string): Generator<void, void, void> {
    const rep = replicas[ri]!;
    const myEpoch = epochs[ri];
    beliefs.delete(who); // the guarded work has stopped before the release
    for (let attempt = 0; attempt < 2; attempt++) {
      yield;
      if (epochs[ri] !== myEpoch) return;
      const d = decideRelease({ node: nodeName, holder: who }, rep.state(o.world, store), new Date(now + rep.clockOffsetMs), policy);
      rep.observations = d.observations;
      let ok = true;
      for (const w of d.writes) {
        yield;
        if (epochs[ri] !== myEpoch) return;
        if (!store.apply(w).ok) {
          ok = false;
          break;
        }
      }
      if (ok) return;
    }
  }

  const check = (step: number) => {
    for (const [who, b] of beliefs) if (b.until <= now) beliefs.delete(who); // holders halt at their deadline
    const byNode = new Map<string, string[]>();
    for (const [who, b] of beliefs) byNode.set(b.node, [...(byNode.get(b.node) ?? []), who]);
    for (const [n, whos] of byNode) if (whos.length > 1) out.violations.push(`seed ${seed} step ${step}: ${n} held by ${whos.join(", ")}`);
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
    if (r < 0.3 && flows.length > 0) {
      const i = Math.floor(rnd() * flows.length);
      const f = flows[i]!;
      if (f.gen.next().done) {
        flows.splice(i, 1);
        busy.delete(f.who);
      }
    } else if (r < 0.55) {
      const idle = Array.from({ length: o.requesters }, (_, k) => `req-${k}`).filter((w) => !busy.has(w));
      if (idle.length > 0) {
        const who = pick(idle);
        const b = beliefs.get(who);
        const ri = Math.floor(rnd() * replicas.length);
        busy.add(who);
        if (b && rnd() < 0.3) {
          flows.push({ who, gen: releaseFlow(ri, who, b.node) });
        } else {
          const [opName, opType] = b ? (o.ops.find(([n]) => n === b.op) as [OperationName, OperationType]) : pick(o.ops);
          const req: AcquireRequest = {
            node: b ? b.node : pick(nodeNames), holder: who, operation: opType, reason: "model",
            durationSeconds: 20 + Math.floor(rnd() * 60), waitSeconds: rnd() < 0.3 ? 120 : 0, force: rnd() < 0.2,
          };
          flows.push({ who, gen: acquireFlow(ri, who, req, opName) });
        }
      }
    } else if (r < 0.85) {
      now += Math.floor(rnd() * 15_000);
    } else if (o.faults && r < 0.9) {
      const ri = Math.floor(rnd() * replicas.length);
      replicas[ri]!.crash();
      epochs[ri] = (epochs[ri] ?? 0) + 1;
    } else if (o.faults && r < 0.93) {
      const who = `req-${Math.floor(rnd() * o.requesters)}`;
      beliefs.delete(who); // the process died, and its guarded work with it
      requesterEpoch.set(who, (requesterEpoch.get(who) ?? 0) + 1);
    }
    check(step);
  }
  return out;
}

function sum(outcomes: Outcome[]): Outcome {
  return outcomes.reduce((a, b) => ({ grants: a.grants + b.grants, denials: a.denials + b.denials, conflicts: a.conflicts + b.conflicts, violations: [...a.violations, ...b.violations] }), { grants: 0, denials: 0, conflicts: 0, violations: [] });
}

describe("lease model", () => {
  it("scenario 05: pool budget race — budget 1, concurrent requests for different nodes, at most one live grant over 1,000 interleavings", () => {
    const names = ["w1", "w2", "w3", "w4", "w5", "w6"];
    const world: World = { nodes: names.map((n) => node(n)), pools: [pool("worker", "1")], budgets: [] };
    const outcomes = Array.from({ length: 1000 }, (_, seed) =>
      runModel(seed + 1, {
        replicas: 3, requesters: 6, steps: 200, ops: [OPS[0]!], world, faults: false, maxSkewSeconds: 0,
        scopes: [{ name: "pool worker", members: names, limit: 1, ops: ["Update", "Reboot", "Drain"] }],
      }),
    );
    const total = sum(outcomes);
    expect(total.violations.slice(0, 3)).toEqual([]);
    expect(total.grants).toBeGreaterThan(1000);
    expect(total.conflicts).toBeGreaterThan(0);
  });

  it("never two valid holders and never a budget exceeded over 1,000 seeded interleavings with 409s, crashes and clock skew", () => {
    const a = ["a1", "a2", "a3", "a4"];
    const b = ["b1", "b2", "b3", "b4", "b5"];
    const nodes = [
      ...a.map((n) => node(n, { labels: { zone: "a" } })),
      ...b.map((n) => node(n, { labels: { zone: "b" } })),
    ];
    // b5 is NotReady: it consumes budget in both scopes it belongs to.
    nodes[nodes.length - 1] = node("b5", { labels: { zone: "b" }, ready: false });
    const world: World = {
      nodes,
      pools: [pool("worker", "2")],
      budgets: [budget("zone-b", { nodeSelector: { matchLabels: { zone: "b" }, matchExpressions: [] }, maxDisrupted: "40%" })],
    };
    const automated: OperationName[] = ["Update", "Reboot", "Drain", "Fence", "Deprovision", "PowerOff"];
    const outcomes = Array.from({ length: 1000 }, (_, seed) =>
      runModel(seed + 7, {
        replicas: 3, requesters: 8, steps: 300, ops: OPS, world, faults: true, maxSkewSeconds: 300,
        scopes: [
          { name: "pool worker", members: [...a, ...b], limit: 2, ops: ["Update", "Reboot", "Drain"] },
          { name: "budget zone-b", members: b, limit: 2, ops: automated },
        ],
      }),
    );
    const total = sum(outcomes);
    expect(total.violations.slice(0, 3)).toEqual([]);
    // The run exercised the interesting paths, not only denials.
    expect(total.grants).toBeGreaterThan(2000);
    expect(total.conflicts).toBeGreaterThan(100);
    expect(total.denials).toBeGreaterThan(1000);
  });
});
