// Pods: the kubelet's pod-ready / pod-delete stages, the pod garbage collector, a ReplicaSet-like
// controller that replaces evicted pods on schedulable nodes of their pool, and drain blockers (a pod
// guarded by a PDB with maxUnavailable 0, so evictions from that node keep failing with 429 as on a
// real cluster).
//
// Every pod with a deletionTimestamp is finished by someone, or a drain waits on it for good (its
// PDB stays at zero disruptions): the kubelet of a Ready node within the grace period (at once for a
// pod that never started), the kubelet of a rebooting node when it is back, the pod GC for a pod whose
// node is gone. A pod without a node is removed by the API server itself.
import { rfc3339 } from "../clock.js";
import { SIM_LABEL, SIM_WORKLOAD_LABEL } from "../constants.js";
import type { SimContext } from "../context.js";
import { errText, stageDelayMs } from "../context.js";
import { workloadPod } from "../generate/workloads.js";
import { stableHex } from "../rng.js";
import { conditionOf, labelsOf, type KubeObject } from "../types.js";
import { isReady } from "./daemon.js";
import { assignPools, schedulable } from "./pool-status.js";

export const BLOCKER_NAMESPACE = "sim-drain-blockers";
const BLOCKER_LABEL = "sim.lockstep.io/drain-blocker";

function podRunningReady(p: KubeObject): boolean {
  return p.status?.phase === "Running" && conditionOf(p, "Ready")?.status === "True";
}

const startKey = (p: KubeObject) => `pod/${p.metadata.namespace}/${p.metadata.name}`;
const deleteKey = (p: KubeObject) => `pod-delete/${p.metadata.namespace}/${p.metadata.name}`;

/** A running pod's containers stop within its grace period: the simulated stop time, capped by the grace. */
function killDelayMs(ctx: SimContext, p: KubeObject, stopMs: number): number {
  const grace = p.metadata.deletionGracePeriodSeconds ?? p.spec?.terminationGracePeriodSeconds ?? 30;
  return Math.min(stopMs, ctx.clock.realMs(Math.max(0, grace) * 1000));
}

export interface Blockers {
  block(node: string): Promise<void>;
  unblock(node: string): Promise<void>;
}

export class PodActors implements Blockers {
  private readonly pendingCreates = new Map<string, number>();
  private seq = 0;

  constructor(private readonly ctx: SimContext) {
    ctx.world.onChange((kind, obj, _old, deleted) => {
      if (kind === "pod") {
        if (!deleted) this.evaluatePod(obj);
        else {
          ctx.wheel.cancel(startKey(obj));
          ctx.wheel.cancel(deleteKey(obj));
        }
        if (labelsOf(obj)[SIM_WORKLOAD_LABEL]) this.kickReplicas();
      } else if (kind === "node" && deleted) {
        // The pod GC: pods bound to a node that no longer exists are removed at once.
        for (const p of [...(ctx.world.podsByNode.get(obj.metadata.name)?.values() ?? [])]) this.finishPod(p, 0);
      } else if (kind === "node" && isReady(obj)) {
        // A node back from its reboot starts the pods waiting on it and finishes the ones deleted meanwhile.
        for (const p of ctx.world.podsByNode.get(obj.metadata.name)?.values() ?? []) if (!podRunningReady(p) || p.metadata.deletionTimestamp) this.evaluatePod(p);
      }
    });
  }

  private evaluatePod(p: KubeObject): void {
    const { wheel, timing, world } = this.ctx;
    const nodeName = p.spec?.nodeName as string | undefined;
    const node = nodeName ? world.get("node", nodeName) : undefined;
    if (p.metadata.deletionTimestamp) {
      // A pending start must not hide the deletion (it used to: the start job found the pod
      // terminating and did nothing, and the pod stayed Terminating for ever).
      wheel.cancel(startKey(p));
      if (wheel.has(deleteKey(p))) return;
      if (nodeName && !node) return this.finishPod(p, 0); // pod GC: its node is gone
      if (!node || !isReady(node)) return; // the kubelet is down: it finishes the pod when the node is back
      const started = p.status?.phase === "Running";
      this.finishPod(p, started ? killDelayMs(this.ctx, p, stageDelayMs(this.ctx, timing.podDelete, deleteKey(p))) : 0);
      return;
    }
    const key = startKey(p);
    if (wheel.has(key)) return;
    if (!nodeName || podRunningReady(p)) return;
    if (!node || !isReady(node)) return;
    wheel.schedule(key, stageDelayMs(this.ctx, timing.podReady, key), () => void this.startPod(p.metadata.namespace!, p.metadata.name));
  }

  /** Removes a terminating pod after `delayMs` real milliseconds (the kubelet's final delete, or the pod GC's). */
  private finishPod(p: KubeObject, delayMs: number): void {
    const key = deleteKey(p);
    this.ctx.wheel.cancel(startKey(p));
    this.ctx.wheel.schedule(key, delayMs, () => void this.ctx.writer.deletePod(p.metadata.namespace!, p.metadata.name, 0).catch(() => this.retryPod(p)));
  }

  private async startPod(ns: string, name: string): Promise<void> {
    const p = this.ctx.world.get("pod", name, ns);
    if (!p || p.metadata.deletionTimestamp || podRunningReady(p)) return;
    const now = rfc3339(this.ctx.clock.now());
    const cond = (type: string) => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: now });
    const status = {
      phase: "Running",
      conditions: [cond("Initialized"), cond("Ready"), cond("ContainersReady"), cond("PodScheduled")],
      hostIP: "10.0.0.1",
      podIP: `10.128.${parseInt(stableHex(2, name), 16)}.${parseInt(stableHex(2, "x", name), 16)}`,
      startTime: now,
      containerStatuses: (p.spec?.containers ?? []).map((c: { name: string; image: string }) => ({ name: c.name, image: c.image, imageID: "", ready: true, restartCount: 0, started: true, state: { running: { startedAt: now } } })),
    };
    await this.ctx.writer.mergePatch("Pod", name, { metadata: { resourceVersion: p.metadata.resourceVersion }, status }, { namespace: ns, status: true }).catch(() => this.retryPod(p));
  }

  /**
   * A failed write (API error, conflict) is tried again from the pod's current state: otherwise a
   * replacement pod that never turns Ready keeps its PodDisruptionBudget at zero and blocks drains.
   */
  private retryPod(p: KubeObject): void {
    const { namespace, name } = p.metadata;
    this.ctx.wheel.schedule(`pod-retry/${namespace}/${name}`, Math.max(100, this.ctx.clock.realMs(5_000)), () => {
      const current = this.ctx.world.get("pod", name, namespace);
      if (current) this.evaluatePod(current);
    });
  }

  kickReplicas(): void {
    if (this.ctx.wheel.has("replicas")) return;
    this.ctx.wheel.schedule("replicas", stageDelayMs(this.ctx, this.ctx.timing.podRecreate, `replicas/${this.seq}`), () => void this.reconcileReplicas());
  }

  private async reconcileReplicas(): Promise<void> {
    const { world, spec, writer } = this.ctx;
    const pods = world.list("pod");
    const pools = world.list("pool");
    const members = assignPools(pools, world.list("node"));
    const creates: Promise<unknown>[] = [];
    for (const w of spec.workloads) {
      const live = pods.filter((p) => labelsOf(p)[SIM_WORKLOAD_LABEL] === w.name && p.metadata.namespace === w.namespace && !p.metadata.deletionTimestamp);
      const missing = w.replicas - live.length - (this.pendingCreates.get(w.name) ?? 0);
      if (missing <= 0) continue;
      const candidates = (members.get(w.pool) ?? []).filter(schedulable);
      if (!candidates.length) {
        this.kickLater();
        continue;
      }
      const load = new Map<string, number>();
      for (const p of live) load.set(p.spec?.nodeName, (load.get(p.spec?.nodeName) ?? 0) + 1);
      for (let i = 0; i < missing; i++) {
        candidates.sort((a, b) => (load.get(a.metadata.name) ?? 0) - (load.get(b.metadata.name) ?? 0) || (a.metadata.name < b.metadata.name ? -1 : 1));
        const target = candidates[0]!;
        load.set(target.metadata.name, (load.get(target.metadata.name) ?? 0) + 1);
        const pod = workloadPod(w, target.metadata.name, `r${this.seq++}/${this.ctx.seed}`);
        this.pendingCreates.set(w.name, (this.pendingCreates.get(w.name) ?? 0) + 1);
        creates.push(
          writer
            .create(pod)
            .catch((err) => {
              this.ctx.log.warn({ pod: pod.metadata.name, err: errText(err) }, "replacement pod create failed; will retry");
              this.kickLater();
            })
            .finally(() => this.pendingCreates.set(w.name, (this.pendingCreates.get(w.name) ?? 1) - 1)),
        );
      }
    }
    await Promise.all(creates);
  }

  private kickLater(): void {
    this.ctx.wheel.schedule("replicas", this.ctx.clock.realMs(30_000), () => void this.reconcileReplicas());
  }

  /** Puts a pod on `node` that a PDB with maxUnavailable 0 protects: its drain cannot finish. */
  async block(node: string): Promise<void> {
    const { writer } = this.ctx;
    const id = stableHex(8, "blocker", node);
    await writer.create({ apiVersion: "v1", kind: "Namespace", metadata: { name: BLOCKER_NAMESPACE, labels: { [SIM_LABEL]: "true" } } }).catch(() => undefined);
    await writer
      .create({
        apiVersion: "policy/v1",
        kind: "PodDisruptionBudget",
        metadata: { name: `blocker-${id}`, namespace: BLOCKER_NAMESPACE, labels: { [SIM_LABEL]: "true" } },
        spec: { maxUnavailable: 0, selector: { matchLabels: { [BLOCKER_LABEL]: id } } },
      })
      .catch(() => undefined);
    const pod = workloadPod({ name: "critical-singleton", namespace: BLOCKER_NAMESPACE }, node, id);
    pod.metadata.name = `critical-singleton-${id}`;
    pod.metadata.labels = { [BLOCKER_LABEL]: id, [SIM_LABEL]: "true" };
    await writer.create(pod).catch(() => undefined);
  }

  /** Lifts a drain blocker: the PDB goes, so the next eviction attempt succeeds. */
  async unblock(node: string): Promise<void> {
    await this.ctx.writer.deletePdb(BLOCKER_NAMESPACE, `blocker-${stableHex(8, "blocker", node)}`);
  }
}
