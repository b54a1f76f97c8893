// Scenario end states against kube-sim over real HTTP, with an independent watch that checks
// maxUnavailable at every observed instant.
import type { KubernetesObject } from "@kubernetes/client-node";
import { Informer, Resources } from "@lockstep/kube";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { assignPools, unavailable } from "./actors/pool-status.js";
import { A, MCD } from "./constants.js";
import { LocalLeaser } from "./leaser.js";
import { releaseImage } from "./release.js";
import { runScenario } from "./runner.js";
import { loadScenario } from "./scenario.js";
import { maxUnavailableCount } from "./spec.js";
import type { KubeObject } from "./types.js";

let ks: KubeSim;
beforeEach(async () => {
  ks = await startKubeSim({ crds: "openshift" });
});
afterEach(async () => {
  await ks.stop();
});

/** Watches nodes and pools through its own informers; records the worst unavailable/maxUnavailable ratio. */
function watchUnavailability(url: string) {
  const kc = kubeConfigForUrl(url);
  const worst = new Map<string, { unavailable: number; max: number }>();
  let observations = 0;
  const check = () => {
    const pools = pInf.list() as unknown as KubeObject[];
    if (!pools.length) return;
    const members = assignPools(pools, nInf.list() as unknown as KubeObject[]);
    observations++;
    for (const p of pools) {
      const ns = members.get(p.metadata.name) ?? [];
      const u = ns.filter(unavailable).length;
      const max = maxUnavailableCount(p.spec?.maxUnavailable, ns.length);
      const w = worst.get(p.metadata.name);
      if (!w || u > w.unavailable) worst.set(p.metadata.name, { unavailable: u, max });
    }
  };
  const nInf = new Informer<KubernetesObject>(kc, Resources.node, { add: check, update: check, delete: check });
  const pInf = new Informer<KubernetesObject>(kc, Resources.machineConfigPool, { add: check, update: check });
  nInf.start();
  pInf.start();
  return {
    worst,
    observations: () => observations,
    stop: () => {
      nInf.stop();
      pInf.stop();
    },
  };
}

describe("scenarios on kube-sim", () => {
  it("upgrade-basic: every node reaches the target and maxUnavailable is never exceeded", async () => {
    const watch = watchUnavailability(ks.url);
    const sc = await loadScenario("upgrade-basic");
    const r = await runScenario(sc, { kc: kubeConfigForUrl(ks.url), timeScale: 600 });
    watch.stop();
    expect(r.sim.stats().errorSamples).toEqual([]);
    expect(r.sim.stats().errors).toBe(0);
    expect(watch.observations()).toBeGreaterThan(50);
    // Rolling really happened in parallel up to the limit, never beyond it.
    expect(watch.worst.get("worker")).toEqual({ unavailable: 2, max: 2 });
    expect(watch.worst.get("master")).toEqual({ unavailable: 1, max: 1 });
    const versions = new Set(r.sim.world.list("node").map((n) => r.sim.world.get("mc", n.metadata.annotations![A.currentConfig]!)?.metadata.annotations?.[A.releaseImageVersion]));
    expect(versions).toEqual(new Set(["4.15.5"]));
  });

  it("upgrade-paused-pool: the paused pool stays untouched until unpaused", async () => {
    const sc = await loadScenario("upgrade-paused-pool");
    // The scenario's own assertions check the paused pool at 4.15.8 and everything at 4.16.0 at the end.
    const r = await runScenario(sc, { kc: kubeConfigForUrl(ks.url), timeScale: 600 });
    const infra = r.sim.world.get("pool", "infra")!;
    expect(infra.spec.paused).toBe(false);
    expect(infra.status.configuration.name).toBe(infra.spec.configuration.name);
  });

  it("upgrade-maintenance-and-drain-failure: the blocked drain turns Degraded with the upstream reason", async () => {
    const sc = await loadScenario("upgrade-maintenance-and-drain-failure");
    const leaser = new LocalLeaser();
    const r = await runScenario(sc, { kc: kubeConfigForUrl(ks.url), timeScale: 1200, leaser });
    const degraded = r.sim.world.list("node").filter((n) => n.metadata.annotations?.[A.state] === MCD.degraded);
    expect(degraded).toHaveLength(1);
    const name = degraded[0]!.metadata.name;
    expect(degraded[0]!.metadata.annotations![A.reason]).toBe(`failed to drain node: ${name} after 1 hour. Please see machine-config-controller logs for more information`);
    expect(degraded[0]!.spec.unschedulable).toBe(true);
    expect(degraded[0]!.metadata.annotations![A.desiredDrain]).not.toBe(degraded[0]!.metadata.annotations![A.lastAppliedDrain]);
  });

  it("a preempted update: the daemon stops at its next safe point (never inside a reboot), the lease is released, and the update resumes once the lease is held again", async () => {
    const sc = await loadScenario("upgrade-basic");
    const leaser = new LocalLeaser();
    const r = await runScenario({ ...sc, steps: [] }, { kc: kubeConfigForUrl(ks.url), timeScale: 1200, keepRunning: true, leaser });
    const sim = r.sim;
    const ann = (name: string) => sim.world.get("node", name)?.metadata.annotations ?? {};
    try {
      await sim.upgrade("4.15.5");
      let target = "";
      await sim.waitFor(() => {
        const n = sim.world.list("node").find((x) => leaser.holders.get(x.metadata.name) === "Update" && x.metadata.annotations?.[A.state] === MCD.working);
        target = n?.metadata.name ?? "";
        return target !== "";
      }, 60_000, "a node whose daemon is working on its update");
      await leaser.preempt(target, "Maintenance", "admin-alice (Maintenance)");
      expect(leaser.holders.get(target)).toBe("Maintenance");
      const stopped = ann(target);
      expect(stopped[A.postConfigAction]).not.toBe(MCD.rebooting);
      // 30 simulated minutes under maintenance: the update does not move (no drain, no reboot).
      await new Promise((res) => setTimeout(res, 1_500));
      const later = ann(target);
      for (const k of [A.currentConfig, A.state, A.postConfigAction, A.lastAppliedDrain]) expect(later[k]).toBe(stopped[k]);
      expect(sim.world.get("node", target)!.status.conditions.find((c: { type: string }) => c.type === "Ready").status).toBe("True");
      // Maintenance over: the controller holds the update lease again and the daemon goes on.
      await leaser.release(target, "Maintenance");
      await sim.waitFor(() => ann(target)[A.currentConfig] === ann(target)[A.desiredConfig] && ann(target)[A.state] === MCD.done, 60_000, "the update resumed and completed");
      await sim.waitFor(() => leaser.holders.get(target) === undefined, 30_000, "the update lease released when done");
    } finally {
      await sim.stop();
    }
  });

  it("CVO refuses a minor update while an operator is Upgradeable=False and accepts a z-stream one", async () => {
    const sc = await loadScenario("upgrade-basic");
    const r = await runScenario({ ...sc, steps: [] }, { kc: kubeConfigForUrl(ks.url), timeScale: 600, keepRunning: true });
    const sim = r.sim;
    try {
      const co = sim.world.get("co", "machine-config")!;
      const conditions = co.status.conditions.map((c: { type: string }) => (c.type === "Upgradeable" ? { type: "Upgradeable", status: "False", reason: "PoolUpdating", message: "One or more machine config pools are updating, please see `oc get mcp` for further details", lastTransitionTime: "2026-01-01T00:00:00Z" } : c));
      const store = ks.store;
      const t = store.registry.get("config.openshift.io", "clusteroperators")!;
      store.update(t, undefined, "machine-config", { ...store.getEntry(t, undefined, "machine-config")!.obj, status: { ...co.status, conditions } }, { subresource: "status" });
      await sim.upgrade("4.16.1");
      const rejected = () => sim.world.get("cv", "version")?.status?.conditions?.find((c: { type: string }) => c.type === "ReleaseAccepted");
      await sim.waitFor(() => rejected()?.status === "False", 20_000, "ReleaseAccepted=False");
      expect(rejected()!.reason).toBe("PreconditionChecks");
      expect(rejected()!.message).toBe(
        `Preconditions failed for payload loaded version="4.16.1" image="${releaseImage("4.16.1")}": Precondition "ClusterVersionUpgradeable" failed because of "PoolUpdating": Cluster operator machine-config should not be upgraded between minor versions: One or more machine config pools are updating, please see \`oc get mcp\` for further details`,
      );
      expect(sim.world.get("cv", "version")!.status.history[0].version).toBe("4.15.3");
      await sim.upgrade("4.15.6");
      await sim.waitFor(() => sim.world.get("cv", "version")?.status?.history?.[0]?.version === "4.15.6", 20_000, "z-stream accepted");
      expect(rejected()!.status).toBe("True");
    } finally {
      await sim.stop();
    }
  });
});
