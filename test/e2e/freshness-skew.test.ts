// Whole-system test of "freshness, fail closed" for the skew answers (issue 29): with the watcher
// killed, `lockstep check-upgrade` of the next minor must be refused with StateStale (exit 3, the
// ClusterOperator's message, a warning on stderr), `lockstep skew -o json` must say Upgradeable
// False (StateStale) and carry freshness with stale true; once the watcher is back both answer as
// before. Without it the enforcer went on answering "allowed" from a view nobody vouched for. The
// lease-coordinator's `lockstep preflight` of that minor likewise exits 3 with a StateStale warning
// first (a maintenance hold written since could be missing), and "No warnings" once fresh.
import { onDemoRelease } from "@lockstep/cluster-sim";
import { describe, expect, it } from "vitest";
import { heardTheWatcher, lockstepCli, startTestSystem, until, type TestSystem } from "./system.js";

// 4.15.12 with every pool on it: the next minor is allowed while the view is fresh.
const SPEC = onDemoRelease({ name: "fresh-skew", pools: [{ name: "worker", size: 2, maxUnavailable: 1 }], workloads: [] });
const NEXT_MINOR = "4.16.3";
const Z_STREAM = "4.15.13";
// Short, so the test is quick: stale 3 s after the watcher's last heartbeat (every 500 ms).
const SERVICE_ENV = { "*": { STATE_MAX_AGE: "3s", HEARTBEAT_INTERVAL: "500ms" } };
const WARNING = /^warning: Lockstep's view of the cluster is \d+ s old \(the watcher has not been heard from\); what follows may be out of date$/m;

const lockstep = (t: TestSystem, ...args: string[]) => lockstepCli(t, "skew-enforcer", ...args);

const upgradeableOf = (t: TestSystem) => ((t.env.sim.world.get("co", "lockstep") as any)?.status?.conditions ?? []).find((c: any) => c.type === "Upgradeable");

describe("freshness, fail closed: skew answers", () => {
  it("refuses the next minor with StateStale and reports stale while the watcher is dead, and answers as before once it is back", async () => {
    const t = await startTestSystem({ spec: SPEC, serviceEnv: SERVICE_ENV });
    try {
      // Both services have *heard* the watcher, not only answered fresh: a service counts as fresh
      // for its first STATE_MAX_AGE before any heartbeat arrived, and one killed then would warn
      // "not heard from since it started" (seen in CI on a loaded machine). The warnings below are
      // those of a service whose watcher went quiet.
      await until("the next minor allowed on a view that heard the watcher", () => heardTheWatcher(lockstep(t, "check-upgrade", NEXT_MINOR, "-o", "json")), 120_000);
      const fresh = lockstep(t, "check-upgrade", NEXT_MINOR);
      expect(fresh.code).toBe(0);
      expect(fresh.stdout).toContain(`Update to ${NEXT_MINOR} (Minor): allowed`);
      expect(fresh.stderr).toBe("");
      await until("the preflight fresh on a view that heard the watcher", () => heardTheWatcher(lockstepCli(t, "lease-coordinator", "preflight", NEXT_MINOR, "-o", "json")), 120_000);

      const watcher = t.env.system.processes.get("watcher")!;
      await watcher.stop("SIGKILL");

      // Within the bound (3 s) plus a check the minor is refused, in the ClusterOperator's words.
      const refused = await until("the next minor refused", () => {
        const r = lockstep(t, "check-upgrade", NEXT_MINOR);
        return r.code !== 0 && r;
      }, 20_000);
      expect(refused.code).toBe(3);
      expect(refused.stdout).toContain(`Update to ${NEXT_MINOR} (Minor): blocked`);
      expect(refused.stdout).toContain("Reasons:        StateStale");
      expect(refused.stderr).toMatch(WARNING);
      const json = lockstep(t, "check-upgrade", NEXT_MINOR, "-o", "json");
      expect(json.code).toBe(3);
      const answer = JSON.parse(json.stdout);
      expect(answer).toMatchObject({ allowed: false, kind: "Minor", reasons: ["StateStale"], freshness: { stale: true, maxAgeSeconds: 3, heard: true } });
      const co = await until("ClusterOperator lockstep Upgradeable=False StateStale", () => {
        const u = upgradeableOf(t);
        return u?.status === "False" && u.reason === "StateStale" && u;
      }, 20_000);
      expect(answer.message).toBe(co.message);

      // A z-stream is not gated by Upgradeable: allowed, and still warned of.
      const z = lockstep(t, "check-upgrade", Z_STREAM);
      expect(z.code).toBe(0);
      expect(z.stdout).toContain("is not blocked by StateStale");
      expect(z.stderr).toMatch(WARNING);

      const skew = lockstep(t, "skew", "-o", "json");
      expect(skew.code).toBe(0);
      expect(skew.stderr).toMatch(WARNING);
      expect(JSON.parse(skew.stdout)).toMatchObject({ upgradeable: false, reason: "StateStale", message: co.message, freshness: { stale: true, maxAgeSeconds: 3 } });

      const preflight = lockstepCli(t, "lease-coordinator", "preflight", NEXT_MINOR);
      expect(preflight.code).toBe(3);
      expect(preflight.stderr).toMatch(WARNING);
      expect(preflight.stdout).toMatch(/^WARNING \[StateStale\]: Lockstep's view of the cluster is stale \(the watcher has not been heard from for \d+ s\)/m);

      // The watcher returns: both answer as before.
      watcher.start();
      const back = await until("the next minor allowed again", () => {
        const r = lockstep(t, "check-upgrade", NEXT_MINOR);
        return r.code === 0 && r;
      }, 60_000);
      expect(back.stderr).toBe("");
      const skewBack = lockstep(t, "skew", "-o", "json");
      expect(skewBack.stderr).toBe("");
      expect(JSON.parse(skewBack.stdout)).toMatchObject({ upgradeable: true, freshness: { stale: false, heard: true } });
      const preflightBack = await until("the preflight fresh again", () => {
        const r = lockstepCli(t, "lease-coordinator", "preflight", NEXT_MINOR);
        return r.code === 0 && r;
      }, 60_000);
      expect(preflightBack.stderr).toBe("");
      expect(preflightBack.stdout).toBe(`No warnings for an upgrade to ${NEXT_MINOR}: no node is held.\n`);
    } finally {
      await t.stop();
    }
  });
});
