// Cluster-version operator, I/O loop: re-evaluates on ClusterVersion / ClusterOperator / pool changes
// and at the next due step; writes status with optimistic concurrency (a 409 just waits for the next event).
import { statusCode } from "@lockstep/kube";
import { rfc3339 } from "../clock.js";
import type { SimContext } from "../context.js";
import { errText } from "../context.js";
import { bootImagesConfigMap } from "../generate/bootimages.js";
import { renderedMachineConfig } from "../generate/machineconfigs.js";
import type { KubeObject } from "../types.js";
import { cvoStep } from "./cvo.js";

export class CvoActor {
  constructor(private readonly ctx: SimContext) {
    ctx.world.onChange((kind) => {
      if (kind === "cv" || kind === "co" || kind === "pool") this.kick();
    });
  }

  kick(delayMs = 10): void {
    this.ctx.wheel.schedule("cvo", delayMs, () => void this.reconcile());
  }

  /**
   * The machine-config operator writes the release's boot image stream into the golden
   * `coreos-bootimages` ConfigMap once it runs the new version (mco-behaviors.md §3.8), which is what
   * lets a boot image updater refresh MachineSets after an update.
   */
  private async syncBootImages(operator: string, status: { versions?: Array<{ name?: string; version?: string }> }): Promise<void> {
    if (operator !== "machine-config") return;
    const version = status.versions?.find((v) => v.name === "operator")?.version;
    if (!version || version === this.bootImagesVersion) return;
    const cm = bootImagesConfigMap(version);
    await this.ctx.writer.mergePatch("ConfigMap", cm.metadata.name, { data: cm.data }, { namespace: cm.metadata.namespace });
    this.bootImagesVersion = version;
  }

  private bootImagesVersion: string | undefined;

  private async reconcile(): Promise<void> {
    const { world, writer, clock, timing, seed } = this.ctx;
    const cv = world.get("cv", "version");
    if (!cv) return;
    const mcs = new Set(world.list("mc").map((m) => m.metadata.name));
    const { actions, wakeAt } = cvoStep({ cv, operators: world.list("co"), pools: world.list("pool"), machineConfigs: mcs }, clock.now(), { seed, timing, timeScale: clock.timeScale });
    try {
      for (const a of actions) {
        switch (a.type) {
          case "createRendered":
            await writer.create(renderedMachineConfig(a.pool, this.ctx.poolRoles[a.pool] ?? ["worker"], this.ctx.spec.name, a.version)).catch((e) => {
              if (statusCode(e) !== 409) throw e;
            });
            break;
          case "retargetPool": {
            const p = world.get("pool", a.pool) as KubeObject;
            await writer.mergePatch("MachineConfigPool", a.pool, { metadata: { resourceVersion: p.metadata.resourceVersion }, spec: { configuration: { name: a.config } } });
            break;
          }
          case "coStatus": {
            const co = world.get("co", a.name)!;
            await writer.mergePatch("ClusterOperator", a.name, { metadata: { resourceVersion: co.metadata.resourceVersion }, status: a.status }, { status: true });
            await this.syncBootImages(a.name, a.status);
            break;
          }
          case "cvStatus":
            await writer.mergePatch("ClusterVersion", "version", { metadata: { resourceVersion: cv.metadata.resourceVersion }, status: a.status }, { status: true });
            this.ctx.log.info({ at: rfc3339(clock.now()) }, "cluster version status written");
            break;
        }
      }
    } catch (err) {
      // Conflicts and transient errors: the next watch event (or this retry) re-evaluates.
      this.ctx.log.warn({ err: errText(err) }, "cvo write failed; retrying");
      this.kick(200);
      return;
    }
    if (wakeAt !== undefined) this.kick(Math.max(0, wakeAt - clock.now().getTime()) + 5);
  }
}
