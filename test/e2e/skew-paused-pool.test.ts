// Issue 8 through the whole system: a paused pool lagging the control plane makes the
// skew-enforcer set Upgradeable=False on ClusterOperator lockstep, and the cluster-version operator
// (cluster-sim's) then refuses a minor update while z-stream updates still pass; unpausing lets the
// pool finish, update.completed arrives and the minor update is accepted.
import { onDemoRelease } from "@lockstep/cluster-sim";
import { describe, expect, it } from "vitest";
import { describeCluster, nodeRecords, startTestSystem, until } from "./system.js";

const SPEC = onDemoRelease({
  name: "skew",
  pools: [
    { name: "worker", size: 2, maxUnavailable: 2 },
    { name: "infra", size: 2, paused: true, nodeSelector: { "node-role.kubernetes.io/infra": "" } },
  ],
  // No PodDisruptionBudget-guarded app: this is about pool lag, not drains (the demo and the lease
  // tests drain against PDBs). Under a heavily loaded CI run, the default app's PDB once held one
  // worker's drain past its timeout while the other worker stayed Working for minutes.
  workloads: [],
});

const cv = (t: Awaited<ReturnType<typeof startTestSystem>>) => t.env.sim.world.get("cv", "version") as any;
const condition = (obj: any, type: string) => (obj?.status?.conditions ?? []).find((c: any) => c.type === type);

describe("whole system: pool lag against upgrades", () => {
  it("refuses a minor update over a lagging paused pool, passes z-streams, and accepts the minor once the pool is done", async () => {
    const t = await startTestSystem({ spec: SPEC });
    try {
      await until("the initial state", async () => (await nodeRecords(t)).length === 7);

      // z-stream with the pool paused: the control plane and workers move, infra stays.
      await t.env.sim.upgrade("4.15.14");
      await until("masters and workers on 4.15.14", async () => {
        const recs = await nodeRecords(t);
        return recs.filter((r) => r.pool !== "infra").every((r) => r.phase === "Updated") && cv(t)?.status?.history?.[0]?.state === "Completed";
      });
      await until("Upgradeable=False from lockstep", () => {
        const co = t.env.sim.world.get("co", "lockstep") as any;
        const u = condition(co, "Upgradeable");
        return u?.status === "False" && u.reason === "PausedPoolLagging";
      });

      // The minor update is refused by the CVO with Lockstep's reason …
      await t.env.sim.upgrade("4.16.3");
      const refused = await until("the CVO to refuse 4.16.3", () => {
        const c = condition(cv(t), "ReleaseAccepted");
        return c?.status === "False" && c.reason === "PreconditionChecks" ? c : undefined;
      });
      expect(refused.message).toContain("ClusterVersionUpgradeable");
      expect(refused.message).toContain("PausedPoolLagging");
      expect(cv(t).status.history[0].version).toBe("4.15.14");

      // … while a z-stream update still passes.
      await t.env.sim.upgrade("4.15.15");
      await until("4.15.15 accepted", () => cv(t)?.status?.history?.[0]?.version === "4.15.15");

      // Unpause: the pool finishes, update.completed for 4.15.15, Upgradeable=True, the minor is accepted.
      await t.env.sim.setPaused("infra", false);
      await until("update.completed for 4.15.15", () => t.events.count("update.completed", (m) => m.version === "4.15.15") === 1, 300_000).catch((err: Error) => {
        // Seen once under a loaded CI run (a pool Degraded, then no change for minutes): say where the cluster stood.
        throw new Error(`${err.message}\n${describeCluster(t.env)}`);
      });
      await until("Upgradeable=True", () => condition(t.env.sim.world.get("co", "lockstep"), "Upgradeable")?.status === "True");
      const check = await t.clients.call(t.clients.skew, t.clients.skew.checkUpgrade, { targetVersion: "4.16.3", force: false });
      expect(check.allowed).toBe(true);
      await t.env.sim.upgrade("4.16.3");
      await until("4.16.3 accepted by the CVO", () => cv(t)?.status?.history?.[0]?.version === "4.16.3");
    } finally {
      await t.stop();
    }
  });
});
