// Kubelet node status: Ready heartbeats (lastHeartbeatTime on every condition) at a configurable real
// rate, batched on one timer (a slice of the nodes per tick, never a timer per node), no heartbeats
// while a node is down; and node conditions on demand (disk pressure).
import { rfc3339 } from "../clock.js";
import type { SimContext } from "../context.js";
import { errText } from "../context.js";
import type { Condition } from "../types.js";
import { isReady } from "./daemon.js";

export interface HeartbeatOptions {
  /** Real milliseconds between two heartbeats of one node (kubelet default 10 s; kwok 20–25 s). */
  intervalMs: number;
  /** Tick of the batch timer. */
  tickMs?: number;
}

export class Kubelet {
  private cursor = 0;
  private names: string[] = [];
  private namesDirty = true;
  beats = 0;

  constructor(private readonly ctx: SimContext, private readonly hb: HeartbeatOptions | undefined) {
    ctx.world.onChange((kind, _o, old, deleted) => {
      if (kind === "node" && (deleted || !old)) this.namesDirty = true;
    });
    if (hb && hb.intervalMs > 0) this.schedule();
  }

  private get tickMs(): number {
    return this.hb?.tickMs ?? 200;
  }

  private schedule(): void {
    this.ctx.wheel.schedule("heartbeat", this.tickMs, () => void this.tick());
  }

  private async tick(): Promise<void> {
    const { world } = this.ctx;
    if (this.namesDirty) {
      this.names = world.list("node").map((n) => n.metadata.name).sort();
      this.namesDirty = false;
    }
    const n = this.names.length;
    const per = Math.ceil((n * this.tickMs) / this.hb!.intervalMs);
    const now = rfc3339(this.ctx.clock.now());
    const batch: Promise<void>[] = [];
    for (let i = 0; i < per && n > 0; i++) {
      const name = this.names[this.cursor++ % n]!;
      const node = world.get("node", name);
      if (!node || !isReady(node)) continue; // a rebooting kubelet posts nothing
      const conditions = ((node.status?.conditions ?? []) as Condition[]).map((c) => ({ type: c.type, lastHeartbeatTime: now }));
      batch.push(this.ctx.writer.patchNodeStatusStrategic(name, { status: { conditions } }).then(() => void this.beats++, (err) => this.ctx.log.warn({ node: name, err: errText(err) }, "heartbeat failed")));
    }
    this.schedule();
    await Promise.all(batch);
  }

  /** Sets a pressure condition the way the kubelet reports it. */
  async setDiskPressure(node: string, on: boolean): Promise<void> {
    const now = rfc3339(this.ctx.clock.now());
    const c = on
      ? { type: "DiskPressure", status: "True", reason: "KubeletHasDiskPressure", message: "kubelet has disk pressure", lastHeartbeatTime: now, lastTransitionTime: now }
      : { type: "DiskPressure", status: "False", reason: "KubeletHasNoDiskPressure", message: "kubelet has no disk pressure", lastHeartbeatTime: now, lastTransitionTime: now };
    await this.ctx.writer.patchNodeStatusStrategic(node, { status: { conditions: [c] } });
  }

  /** Node power state for disruptors (fencing): Ready false while down, true when back. */
  async setReady(node: string, ready: boolean, message: string): Promise<void> {
    const now = rfc3339(this.ctx.clock.now());
    const c = ready
      ? { type: "Ready", status: "True", reason: "KubeletReady", message, lastHeartbeatTime: now, lastTransitionTime: now }
      : { type: "Ready", status: "False", reason: "KubeletNotReady", message, lastHeartbeatTime: now, lastTransitionTime: now };
    await this.ctx.writer.patchNodeStatusStrategic(node, { status: { conditions: [c] } });
  }
}
