// Builders shared by the policy tests and simulations (pure data, no test framework).
import { OperationType, type AcquireRequest, type DisruptionBudgetState, type NodeState, type PoolState } from "@lockstep/contracts";
import { validatePolicy, type PolicyConfig } from "./config.js";
import { decide } from "./decide.js";
import type { MemoryLeaseStore } from "./memory-store.js";
import type { ObservationLog } from "./observations.js";
import type { Waiter } from "./queue.js";
import { decideRelease } from "./release.js";
import type { Decision, ObservedState } from "./types.js";

export function testPolicy(overrides: Partial<PolicyConfig> = {}): PolicyConfig {
  const { policy, errors } = validatePolicy(overrides);
  if (errors.length > 0) throw new Error(errors.join("; "));
  return policy;
}

export function node(name: string, opts: { pool?: string; labels?: Record<string, string>; ready?: boolean; unschedulable?: boolean } = {}): NodeState {
  const role = opts.pool ?? "worker";
  return {
    name,
    uid: `uid-${name}`,
    labels: { [`node-role.kubernetes.io/${role}`]: "", ...(opts.labels ?? {}) },
    roles: [role],
    mco: undefined,
    unschedulable: opts.unschedulable ?? false,
    conditions: [{ type: "Ready", status: opts.ready === false ? "False" : "True", reason: "", message: "" }],
    creationTime: undefined,
    architecture: "amd64",
    kubeletVersion: "v1.33.0",
    deletionTime: undefined,
  };
}

export function pool(name: string, maxUnavailable = ""): PoolState {
  return {
    name, uid: `uid-${name}`, generation: "1", labels: {},
    nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: "" }, matchExpressions: [] },
    nodeSelectorPresent: true, paused: false, maxUnavailable, targetConfig: "", currentConfig: "", counters: undefined,
    conditions: [], observedGeneration: "1", newestImageEquivalentConfig: "", layered: false,
  };
}

export function budget(name: string, fields: Partial<DisruptionBudgetState>): DisruptionBudgetState {
  return { name, uid: `uid-${name}`, generation: "1", pool: "", nodeSelector: undefined, maxDisrupted: "1", schedules: [], operations: [], ...fields };
}

export function request(node: string, holder: string, operation = OperationType.OPERATION_TYPE_UPDATE, fields: Partial<AcquireRequest> = {}): AcquireRequest {
  return { node, holder, operation, reason: `${holder} works on ${node}`, durationSeconds: 60, waitSeconds: 0, force: false, ...fields };
}

/** Cluster objects other than leases, which the store holds. */
export interface World {
  nodes: NodeState[];
  pools: PoolState[];
  budgets: DisruptionBudgetState[];
}

/** One coordinator replica: its own clock offset and in-memory observations (lost on crash). */
export class Replica {
  observations: ObservationLog = new Map();
  queue: Waiter[] = [];
  constructor(
    readonly policy: PolicyConfig,
    public clockOffsetMs = 0,
  ) {}

  crash(): void {
    this.observations = new Map();
    this.queue = [];
  }

  state(world: World, store: MemoryLeaseStore): ObservedState {
    return { ...world, leases: store.list(), observations: this.observations, queue: this.queue };
  }

  decide(req: AcquireRequest, world: World, store: MemoryLeaseStore, trueNowMs: number): Decision {
    const d = decide(req, this.state(world, store), new Date(trueNowMs + this.clockOffsetMs), this.policy);
    this.observations = d.observations;
    this.queue = d.queue;
    return d;
  }

  /** The CAS loop the service runs: read, decide, write in order; on 409 re-read and decide again. */
  acquire(req: AcquireRequest, world: World, store: MemoryLeaseStore, trueNowMs: number, maxAttempts = 5): { decision: Decision; attempts: number; conflicts: number } {
    let conflicts = 0;
    for (let attempt = 1; ; attempt++) {
      const decision = this.decide(req, world, store, trueNowMs);
      const failed = decision.writes.some((w) => !store.apply(w).ok);
      if (!failed || attempt >= maxAttempts) return { decision, attempts: attempt, conflicts };
      conflicts++;
    }
  }

  release(holder: string, nodeName: string, world: World, store: MemoryLeaseStore, trueNowMs: number): boolean {
    for (let attempt = 0; attempt < 2; attempt++) {
      const d = decideRelease({ node: nodeName, holder }, this.state(world, store), new Date(trueNowMs + this.clockOffsetMs), this.policy);
      this.observations = d.observations;
      if (d.kind === "deny") return false;
      if (d.writes.every((w) => store.apply(w).ok)) return true;
    }
    return false;
  }
}
