// Other node disruptors, for lease scenarios: a remediation agent that fences (power-cycles) nodes
// NotReady for longer than its grace period, and an admin running a maintenance window (cordon for a
// while). Both ask the NodeLeaser first, exactly as the update path does.
import { A, MCD } from "../constants.js";
import type { SimContext } from "../context.js";
import { errText } from "../context.js";
import { annotationsOf, conditionOf, type KubeObject } from "../types.js";
import type { Kubelet } from "./kubelet.js";

export interface RemediationOptions {
  /** Simulated seconds a node must be NotReady before the agent wants to fence it. */
  graceSeconds: number;
  /** Simulated seconds a fenced node stays down before it is back and Ready. */
  fenceSeconds: number;
}

export class RemediationAgent {
  readonly fenced: string[] = [];
  readonly refused = new Set<string>();
  private readonly active = new Set<string>();

  constructor(private readonly ctx: SimContext, private readonly kubelet: Kubelet, private readonly o: RemediationOptions, private readonly onFenced: (node: string) => void) {
    ctx.world.onChange((kind, obj, _old, deleted) => {
      if (kind !== "node" || deleted) return;
      this.evaluate(obj);
    });
  }

  private evaluate(n: KubeObject): void {
    const name = n.metadata.name;
    const ready = conditionOf(n, "Ready");
    const key = `remediate/${name}`;
    if (ready?.status === "True" || this.active.has(name)) {
      if (ready?.status === "True") this.ctx.wheel.cancel(key);
      return;
    }
    if (this.ctx.wheel.has(key)) return;
    const since = Date.parse(ready?.lastTransitionTime ?? "") || this.ctx.clock.now().getTime();
    const due = since + this.ctx.clock.realMs(this.o.graceSeconds * 1000) - this.ctx.clock.now().getTime();
    this.ctx.wheel.schedule(key, Math.max(0, due), () => void this.fence(name));
  }

  private async fence(name: string): Promise<void> {
    const n = this.ctx.world.get("node", name);
    if (!n || conditionOf(n, "Ready")?.status === "True") return;
    if (!(await this.ctx.leaser.acquire(name, "Remediation"))) {
      this.refused.add(name);
      // Ask again after another grace period.
      this.ctx.wheel.schedule(`remediate/${name}`, this.ctx.clock.realMs(this.o.graceSeconds * 1000), () => void this.fence(name));
      return;
    }
    this.active.add(name);
    this.fenced.push(name);
    this.ctx.log.info({ node: name }, "remediation fencing node");
    try {
      await this.kubelet.setReady(name, false, "node fenced by remediation");
      await new Promise((r) => setTimeout(r, this.ctx.clock.realMs(this.o.fenceSeconds * 1000)));
      this.onFenced(name);
      await this.kubelet.setReady(name, true, "kubelet is posting ready status");
    } catch (err) {
      this.ctx.log.warn({ node: name, err: errText(err) }, "remediation failed");
    } finally {
      this.active.delete(name);
      await this.ctx.leaser.release(name, "Remediation");
    }
  }
}

export interface MaintenanceResult {
  granted: string[];
  refused: string[];
}

/** An admin's maintenance window on `nodes`: lease, cordon, wait, uncordon, release. */
export async function startMaintenance(ctx: SimContext, nodes: string[], durationSeconds: number): Promise<MaintenanceResult & { done: Promise<void> }> {
  const granted: string[] = [];
  const refused: string[] = [];
  for (const n of nodes) (await ctx.leaser.acquire(n, "Maintenance")) ? granted.push(n) : refused.push(n);
  await Promise.all(granted.map((n) => ctx.writer.mergePatch("Node", n, { spec: { unschedulable: true } })));
  const done = (async () => {
    await new Promise((r) => setTimeout(r, ctx.clock.realMs(durationSeconds * 1000)));
    await Promise.all(
      granted.map(async (n) => {
        // Leave the cordon alone if the node is in the middle of an update drain.
        const node = ctx.world.get("node", n);
        const a = annotationsOf(node);
        const draining = (a[A.desiredDrain] ?? "").startsWith("drain-") || a[A.state] === MCD.working;
        if (!draining) await ctx.writer.mergePatch("Node", n, { spec: { unschedulable: null } }).catch(() => undefined);
        await ctx.leaser.release(n, "Maintenance");
      }),
    );
  })();
  return { granted, refused, done };
}
