// MCC node controller, I/O loop: per unpaused pool, hands the target config to at most
// maxUnavailable nodes (planPool) and keeps pool status current. In the "cooperate" lease mode it
// asks the NodeLeaser first and skips nodes it may not update; in the "enforced" mode it asks no one,
// as the real one: it patches the candidates in upstream's order, a refused patch ends the pass, and
// the pool is synced again with the workqueue's backoff (rollout.ts).
import { A } from "../constants.js";
import { rfc3339 } from "../clock.js";
import type { SimContext } from "../context.js";
import { errText } from "../context.js";
import { annotationsOf, conditionOf, type KubeObject } from "../types.js";
import { atSafePoint } from "./daemon.js";
import { assignPools, computePoolStatus, done, planPool, sameStatus } from "./pool-status.js";
import { passTargets, requeueAfter, setDesiredError } from "./rollout.js";

/** The parts of a node the controller's decisions depend on (heartbeats change none of them). */
export function nodeSignature(n: KubeObject | undefined): string {
  if (!n) return "";
  const a = annotationsOf(n);
  const cond = (t: string) => conditionOf(n, t)?.status ?? "";
  return [a[A.currentConfig], a[A.desiredConfig], a[A.state], a[A.reason], a[A.desiredDrain], a[A.lastAppliedDrain], a[A.postConfigAction], n.spec?.unschedulable === true, cond("Ready"), cond("DiskPressure"), cond("NetworkUnavailable"), JSON.stringify(n.metadata.labels ?? {})].join("|");
}

export class NodeController {
  /** Nodes given a target whose update we have not observed yet (counted as unavailable meanwhile). */
  private readonly pending = new Map<string, string>();
  /** Update leases held, released when the node is done on its target. */
  private readonly leased = new Set<string>();
  private readonly deniedUntil = new Map<string, number>();
  /** Enforced mode: rate-limited requeues per pool since its last successful pass (workqueue NumRequeues). */
  private readonly requeues = new Map<string, number>();
  private passes = 0;
  private busy = false;
  private again = false;

  constructor(private readonly ctx: SimContext) {
    ctx.world.onChange((kind, obj, old, deleted) => {
      if (kind === "pool" || (kind === "node" && (deleted || nodeSignature(obj) !== nodeSignature(old)))) this.kick();
    });
  }

  kick(): void {
    if (this.ctx.wheel.has("mcc")) return;
    this.ctx.wheel.schedule("mcc", this.ctx.timing.controllerDebounceMs, () => void this.run());
  }

  private async run(): Promise<void> {
    if (this.busy) {
      this.again = true;
      return;
    }
    this.busy = true;
    try {
      await this.reconcile();
    } catch (err) {
      this.ctx.log.warn({ err: errText(err) }, "node controller pass failed; retrying");
      this.again = true;
    } finally {
      this.busy = false;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    }
  }

  /**
   * The update lease on `node` was preempted (a forced maintenance): the daemon stops at its next
   * safe point (not inside a reboot) and the lease is released then. The node's update resumes once
   * the lease is held again.
   */
  async preempted(node: string): Promise<void> {
    this.ctx.halted.add(node);
    this.leased.delete(node);
    this.deniedUntil.set(node, Date.now() + Math.max(1_000, this.ctx.clock.realMs(30_000)));
    const obj = this.ctx.world.get("node", node);
    if (obj) this.ctx.log.info({ node }, "update lease preempted; daemon stopping at its next safe point");
    const safe = () => {
      const n = this.ctx.world.get("node", node);
      return n === undefined || atSafePoint(n);
    };
    // Bounded: a node that never comes back from its reboot is left to the lease's expiry.
    const giveUpAt = Date.now() + Math.max(1_000, this.ctx.clock.realMs(600_000));
    while (!safe() && Date.now() < giveUpAt) await new Promise((r) => setTimeout(r, 50));
    this.kickLater();
  }

  private async reconcile(): Promise<void> {
    const { world, writer, leaser, clock } = this.ctx;
    // Preempted updates ask for their lease again (after a pause) and go on once they hold it.
    for (const name of [...this.ctx.halted]) {
      if (!world.get("node", name)) {
        this.ctx.halted.delete(name);
        continue;
      }
      if ((this.deniedUntil.get(name) ?? 0) > Date.now()) {
        this.kickLater();
        continue;
      }
      if (await leaser.acquire(name, "Update")) {
        this.deniedUntil.delete(name);
        this.leased.add(name);
        this.ctx.resume(name);
      } else {
        this.deniedUntil.set(name, Date.now() + Math.max(1_000, this.ctx.clock.realMs(30_000)));
        this.kickLater();
      }
    }
    const pools = world.list("pool");
    const nodes = world.list("node").map((n) => {
      const want = this.pending.get(n.metadata.name);
      if (want === undefined) return n;
      if (annotationsOf(n)[A.desiredConfig] === want) {
        this.pending.delete(n.metadata.name);
        return n;
      }
      return { ...n, metadata: { ...n.metadata, annotations: { ...annotationsOf(n), [A.desiredConfig]: want } } };
    });
    const members = assignPools(pools, nodes);
    const now = rfc3339(clock.now());
    const writes: Promise<unknown>[] = [];
    for (const pool of pools) {
      const ns = members.get(pool.metadata.name) ?? [];
      const target: string = pool.spec?.configuration?.name ?? "";
      for (const n of ns) {
        if (this.leased.has(n.metadata.name) && done(n) && annotationsOf(n)[A.currentConfig] === target) {
          this.leased.delete(n.metadata.name);
          writes.push(leaser.release(n.metadata.name, "Update"));
        }
      }
      const status = computePoolStatus(pool, ns, now);
      if (!sameStatus(status, pool.status)) {
        writes.push(
          writer.mergePatch("MachineConfigPool", pool.metadata.name, { metadata: { resourceVersion: pool.metadata.resourceVersion }, status }, { status: true }).catch(() => this.kickLater()),
        );
      }
      const { capacity, candidates } = planPool(pool, ns);
      if (this.ctx.leases === "enforced") {
        writes.push(this.rollOut(pool.metadata.name, target, capacity, candidates));
        continue;
      }
      let granted = 0;
      for (const c of candidates) {
        if (granted >= capacity) break;
        const name = c.metadata.name;
        // A refused lease is asked for again only after a pause, not on every world change.
        if ((this.deniedUntil.get(name) ?? 0) > Date.now()) continue;
        if (!(await leaser.acquire(name, "Update"))) {
          this.deniedUntil.set(name, Date.now() + Math.max(1_000, this.ctx.clock.realMs(30_000)));
          continue;
        }
        this.deniedUntil.delete(name);
        this.leased.add(name);
        granted++;
        this.pending.set(name, target);
        writes.push(
          writer
            .mergePatch("Node", name, { metadata: { resourceVersion: c.metadata.resourceVersion, annotations: { [A.desiredConfig]: target } } })
            .catch((err) => {
              this.pending.delete(name);
              this.ctx.log.warn({ node: name, err: errText(err) }, "setting desiredConfig failed; will retry");
              this.kickLater();
            }),
        );
      }
      if (candidates.length > granted && granted < capacity) this.kickLater(); // leases refused: ask again later
    }
    await Promise.all(writes);
  }

  /**
   * Enforced mode, one pool: setDesiredAnnotations. Patches one node after the other and stops at
   * the first refusal (the nodes after it wait for the next pass); a failed pass is synced again
   * after the pool's backoff, a successful one resets it. No event is written on failure (upstream
   * writes SetDesiredConfig only when every candidate was patched); the error goes to the log.
   */
  private async rollOut(pool: string, target: string, capacity: number, candidates: KubeObject[]): Promise<void> {
    const targets = passTargets(candidates, capacity, this.ctx.seed, `${pool}/${this.passes++}`);
    for (const c of targets) {
      const name = c.metadata.name;
      try {
        await this.ctx.mco.controller.mergePatch("Node", name, { metadata: { annotations: { [A.desiredConfig]: target } } });
        this.pending.set(name, target);
      } catch (err) {
        const n = this.requeues.get(pool) ?? 0;
        const next = requeueAfter(n);
        this.requeues.set(pool, next.requeues);
        this.ctx.log.warn({ pool, node: name, requeues: n, retryInMs: next.delayMs, err: setDesiredError(target, name, errText(err)) }, "error syncing machineconfigpool; requeued with backoff");
        this.requeue(next.delayMs);
        return;
      }
    }
    this.requeues.delete(pool);
  }

  /** AddRateLimited: a pass after `virtualMs` (its own key, so neither it nor a kick postpones the other). */
  private requeue(virtualMs: number): void {
    this.ctx.wheel.schedule("mcc-requeue", this.ctx.clock.realMs(virtualMs), () => this.kick());
  }

  private kickLater(): void {
    if (!this.ctx.wheel.has("mcc")) this.ctx.wheel.schedule("mcc", Math.max(200, this.ctx.clock.realMs(10_000)), () => void this.run());
  }
}
