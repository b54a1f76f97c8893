// machine-config-daemon + drain controller + kubelet reboot, I/O loop. kwok's engine: a node event
// matches a stage; at most one pending job per node and actor (kept while the stage is unchanged,
// replaced when it changes); the job re-checks the stage on the newest object and writes with the
// observed resourceVersion as precondition.
import { statusCode } from "@lockstep/kube";
import { rfc3339 } from "../clock.js";
import { A, MCD } from "../constants.js";
import type { SimContext } from "../context.js";
import { errText, stageDelayMs } from "../context.js";
import { nodeInfo } from "../generate/nodes.js";
import { keyedRandom } from "../rng.js";
import type { Stage } from "../timing.js";
import { annotationsOf, type KubeObject } from "../types.js";
import { daemonStageTiming, daemonStageUnlessHalted, daemonWrite, drainStage, drainTimeoutReason, uncordonWrite, type StageWrite } from "./daemon.js";
import type { Blockers } from "./workloads.js";

export class NodeAgent {
  /** Pending job per key: the stage it was scheduled for. */
  private readonly pendingStage = new Map<string, string>();
  /** When the current drain request started (virtual ms), per node and request. */
  private readonly drainStarted = new Map<string, { request: string; at: number }>();

  constructor(private readonly ctx: SimContext, private readonly blockers: Blockers) {
    ctx.world.onChange((kind, obj, _old, deleted) => {
      if (kind !== "node") return;
      if (deleted) {
        for (const k of [`mcd/${obj.metadata.name}`, `drain/${obj.metadata.name}`]) {
          ctx.wheel.cancel(k);
          this.pendingStage.delete(k);
        }
        return;
      }
      this.evaluate(obj);
    });
  }

  private failuresFor(node: KubeObject): { degrade: boolean; neverReturns: boolean } {
    const f = this.ctx.failures;
    const n = node.metadata.name;
    const des = annotationsOf(node)[A.desiredConfig] ?? "";
    const draw = (what: string, p: number) => p > 0 && keyedRandom(this.ctx.seed, `${n}/${des}/${what}`) < p;
    return { degrade: f.degrade.has(n) || draw("degrade", f.random.degrade), neverReturns: f.neverReturns.has(n) || draw("never-returns", f.random.neverReturns) };
  }

  evaluate(node: KubeObject): void {
    const name = node.metadata.name;
    const salt = `${name}/${annotationsOf(node)[A.desiredConfig] ?? ""}`;
    const halted = this.ctx.halted.has(name);
    const ds = daemonStageUnlessHalted(node, halted, this.failuresFor(node));
    this.arm(`mcd/${name}`, ds, ds ? daemonStageTiming(this.ctx.timing, ds) : undefined, salt, () => void this.runDaemon(name));
    // A preempted update does not go on evicting; an uncordon may still run.
    const dr = halted && drainStage(node) === "mcc-drain" ? undefined : drainStage(node);
    this.arm(`drain/${name}`, dr, dr === "mcc-drain" ? this.ctx.timing.drainAttempt : this.ctx.timing.uncordon, salt, () => void this.runDrain(name));
  }

  private arm(key: string, stage: string | undefined, timing: Stage | undefined, salt: string, run: () => void): void {
    const { wheel } = this.ctx;
    if (!stage || !timing) {
      if (this.pendingStage.has(key)) {
        wheel.cancel(key);
        this.pendingStage.delete(key);
      }
      return;
    }
    if (this.pendingStage.get(key) === stage && wheel.has(key)) return;
    this.pendingStage.set(key, stage);
    wheel.schedule(key, stageDelayMs(this.ctx, timing, `${salt}/${stage}`), () => {
      this.pendingStage.delete(key);
      run();
    });
  }

  /** `writer`: whose write it is (the kubelet's and the simulator's by default; the MCO's own users in the enforced mode). */
  private async write(node: KubeObject, w: StageWrite, writer = this.ctx.writer): Promise<boolean> {
    try {
      let rv = node.metadata.resourceVersion;
      if (w.status) rv = (await writer.patchNodeStatusStrategic(node.metadata.name, w.status)).metadata?.resourceVersion ?? rv;
      if (w.node) {
        const body = { ...w.node, metadata: { ...((w.node.metadata as object) ?? {}), resourceVersion: rv } };
        await writer.mergePatch("Node", node.metadata.name, body);
      }
      return true;
    } catch (err) {
      // 409: a newer version is on its way through the watch and will re-arm the stage.
      if (statusCode(err) !== 409) this.ctx.log.warn({ node: node.metadata.name, err: errText(err) }, "node stage write failed");
      const fresh = this.ctx.world.get("node", node.metadata.name);
      if (fresh) setTimeout(() => this.evaluate(this.ctx.world.get("node", node.metadata.name) ?? fresh), 100).unref();
      return false;
    }
  }

  private async runDaemon(name: string): Promise<void> {
    const node = this.ctx.world.get("node", name);
    if (!node) return;
    const stage = daemonStageUnlessHalted(node, this.ctx.halted.has(name), this.failuresFor(node));
    if (!stage) return;
    if (stage === "mcd-start" && this.ctx.failures.random.drainBlocked > 0) {
      const des = annotationsOf(node)[A.desiredConfig] ?? "";
      if (keyedRandom(this.ctx.seed, `${name}/${des}/drain-blocked`) < this.ctx.failures.random.drainBlocked) await this.blockers.block(name).catch(() => undefined);
    }
    const w = daemonWrite(stage, node, {
      now: rfc3339(this.ctx.clock.now()),
      versionOf: (c) => annotationsOf(this.ctx.world.get("mc", c))[A.releaseImageVersion],
      nodeInfo,
      rebootingState: this.ctx.rebootingState,
    });
    await this.write(node, w, stage === "kubelet-boot" ? this.ctx.writer : this.ctx.mco.daemon);
  }

  private async runDrain(name: string): Promise<void> {
    const node = this.ctx.world.get("node", name);
    if (!node) return;
    const stage = drainStage(node);
    if (stage === "mcc-uncordon") {
      await this.write(node, uncordonWrite(node), this.ctx.mco.controller);
      return;
    }
    if (stage !== "mcc-drain") return;
    const { world, clock, timing } = this.ctx;
    // The drain controller runs in the machine-config-controller.
    const writer = this.ctx.mco.controller;
    const request = annotationsOf(node)[A.desiredDrain]!;
    const nowMs = clock.now().getTime();
    let started = this.drainStarted.get(name);
    if (!started || started.request !== request) this.drainStarted.set(name, (started = { request, at: nowMs }));
    try {
      if (node.spec?.unschedulable !== true) await writer.mergePatch("Node", name, { spec: { unschedulable: true } });
      const pods = [...(world.podsByNode.get(name)?.values() ?? [])];
      let blocked = 0;
      let remaining = 0;
      const refusals: string[] = [];
      await Promise.all(
        pods.map(async (p) => {
          if (p.status?.phase === "Succeeded" || p.status?.phase === "Failed") return;
          remaining++;
          if (p.metadata.deletionTimestamp) return;
          const r = await writer.evict(p.metadata.namespace!, p.metadata.name);
          if (r === "blocked") blocked++;
          else if (typeof r === "object") {
            // Refused outright (an admission webhook): the drain helper stops this attempt and the
            // drain controller tries again later, as for a PDB.
            blocked++;
            refusals.push(`error when evicting pods/"${p.metadata.name}" -n "${p.metadata.namespace}": ${r.refused}`);
          }
        }),
      );
      if (refusals.length) this.ctx.log.warn({ node: name, err: refusals[0], refused: refusals.length }, "drain failed; retrying later");
      if (remaining === 0) {
        const fresh = world.get("node", name) ?? node;
        await writer.mergePatch("Node", name, { metadata: { resourceVersion: fresh.metadata.resourceVersion, annotations: { [A.lastAppliedDrain]: request } } });
        this.drainStarted.delete(name);
        return;
      }
      const elapsed = clock.virtualMs(nowMs - started.at) / 1000;
      if (blocked > 0 && elapsed >= timing.drainTimeout) await this.reportDrainFailure(name);
      // Evictions accepted: wait for the pods to go. Blocked: retry every minute, every 5 after 10.
      const retry = blocked === 0 ? 2 : elapsed >= timing.drainSlowAfter ? timing.drainRetrySlow : timing.drainRetry;
      const untilTimeout = timing.drainTimeout - elapsed;
      const next = blocked > 0 && untilTimeout > 0 ? Math.min(retry, untilTimeout) : retry;
      this.retryDrain(name, next);
    } catch (err) {
      this.ctx.log.warn({ node: name, err: errText(err) }, "drain attempt failed");
      this.retryDrain(name, 10);
    }
  }

  private retryDrain(name: string, seconds: number): void {
    const key = `drain/${name}`;
    this.pendingStage.set(key, "mcc-drain");
    this.ctx.wheel.schedule(key, this.ctx.clock.realMs(seconds * 1000), () => {
      this.pendingStage.delete(key);
      void this.runDrain(name);
    });
  }

  private async reportDrainFailure(name: string): Promise<void> {
    const node = this.ctx.world.get("node", name);
    if (!node || annotationsOf(node)[A.state] === MCD.degraded) return;
    const reason = drainTimeoutReason(name, this.ctx.timing.drainTimeout);
    // The daemon waits for the drain and reports its failure (pkg/daemon/drain.go).
    await this.write(node, { node: { metadata: { annotations: { [A.state]: MCD.degraded, [A.reason]: reason } } } }, this.ctx.mco.daemon);
  }
}
