// Whole-system test of "freshness, fail closed" (issue "Lease safety"): with the watcher killed, a
// worker marked NotReady through the Kubernetes API is invisible to the state plane; every Update
// lease on other workers of its pool must then be refused with StateStale (not granted against a
// budget that no longer holds), the lease-coordinator must be unready, `lockstep status` must warn;
// within seconds of the watcher's return grants resume and the budget counts the NotReady node.
import { onDemoRelease } from "@lockstep/cluster-sim";
import { OperationType, type AcquireResponse } from "@lockstep/contracts";
import { describe, expect, it } from "vitest";
import { heardTheWatcher, lockstepCli, startTestSystem, until, type TestSystem } from "./system.js";

const SPEC = onDemoRelease({
  name: "fresh",
  pools: [{ name: "worker", size: 5, maxUnavailable: 3 }],
});
// Short, so the test is quick: stale 3 s after the watcher's last heartbeat (every 500 ms).
const SERVICE_ENV = { "*": { STATE_MAX_AGE: "3s", HEARTBEAT_INTERVAL: "500ms" } };
const STALE = /^StateStale: the watcher has not been heard from for \d+ s; no disruption is granted until it is$/;

function acquireUpdate(t: TestSystem, node: string): Promise<AcquireResponse> {
  return t.clients.call(t.clients.lease, t.clients.lease.acquire, {
    node,
    holder: `e2e-admin/${node}`,
    operation: OperationType.OPERATION_TYPE_UPDATE,
    reason: "freshness e2e",
    durationSeconds: 300,
    waitSeconds: 0,
    force: false,
  });
}

async function readyz(t: TestSystem, service: "lease-coordinator"): Promise<{ status: number; body: string }> {
  const res = await fetch(`${t.env.system.httpUrl(service)}/readyz`);
  return { status: res.status, body: await res.text() };
}

/** Ready=False on a node's status, through kube-sim's HTTP API as an admin (or a kubelet) would. */
async function markNotReady(t: TestSystem, node: string): Promise<void> {
  const url = `${t.env.kube.url}/api/v1/nodes/${node}/status`;
  const headers = { authorization: "Bearer e2e" };
  const current = (await (await fetch(url.replace(/\/status$/, ""), { headers })).json()) as { status?: { conditions?: Array<{ type: string }> } };
  const now = new Date().toISOString();
  const conditions = [
    ...(current.status?.conditions ?? []).filter((c) => c.type !== "Ready"),
    { type: "Ready", status: "False", reason: "KubeletNotReady", message: "marked NotReady by the e2e test", lastHeartbeatTime: now, lastTransitionTime: now },
  ];
  const res = await fetch(url, { method: "PATCH", headers: { ...headers, "content-type": "application/merge-patch+json" }, body: JSON.stringify({ status: { conditions } }) });
  expect(res.status).toBe(200);
}

describe("freshness, fail closed", () => {
  it("refuses every grant with StateStale while the watcher is dead, and resumes within seconds of its return", async () => {
    const t = await startTestSystem({ spec: SPEC, serviceEnv: SERVICE_ENV });
    try {
      const workers = (t.env.sim.poolMembers().get("worker") ?? []).map((n) => n.metadata!.name!).sort();
      expect(workers).toHaveLength(5);
      const [down, a, b, c] = workers as [string, string, string, string];
      await until("the lease-coordinator fresh and ready", async () => (await readyz(t, "lease-coordinator")).status === 200, 60_000);
      // Both have *heard* the watcher: a service is fresh for its first STATE_MAX_AGE before any
      // heartbeat arrived, and one that never heard it words its warnings otherwise.
      await until("the lease-coordinator and the aggregator heard the watcher", () =>
        heardTheWatcher(lockstepCli(t, "lease-coordinator", "preflight", "-o", "json")) && heardTheWatcher(lockstepCli(t, "status-aggregator", "status", "-o", "json")), 60_000);

      // The watcher dies; then a worker goes NotReady, which only the dead watcher could have seen.
      const watcher = t.env.system.processes.get("watcher")!;
      await watcher.stop("SIGKILL");
      await markNotReady(t, down);

      // Within the bound (3 s) plus a check, the coordinator says it is not ready, and why.
      const unready = await until("the lease-coordinator unready", async () => {
        const r = await readyz(t, "lease-coordinator");
        return r.status !== 200 && r;
      }, 15_000);
      expect(unready.body).toContain("state-fresh");
      expect(unready.body).toContain("the watcher has not been heard from for");

      // Without freshness all three were granted: 4 disrupted nodes in a pool whose budget is 3.
      for (const node of [a, b, c]) {
        const res = await acquireUpdate(t, node);
        expect(res.granted, `${node}: ${res.deniedReason}`).toBe(false);
        expect(res.deniedReason).toMatch(STALE);
      }

      // `lockstep status` still answers, says its view is old, and exits 3 so no script takes it as current.
      const status = lockstepCli(t, "status-aggregator", "status");
      expect(status.code).toBe(3);
      expect(status.stderr).toMatch(/^warning: Lockstep's view of the cluster is \d+ s old \(the watcher has not been heard from\); what follows may be out of date$/m);
      expect(status.stdout).not.toContain("warning:");

      // The watcher returns: grants resume within seconds, and the budget now sees the NotReady node.
      const back = Date.now();
      watcher.start();
      const first = await until("a grant after the watcher's return", async () => {
        const res = await acquireUpdate(t, a);
        if (!res.granted) expect(res.deniedReason).toMatch(STALE);
        return res.granted && res;
      }, 30_000);
      const resumedMs = Date.now() - back;
      expect(first.granted).toBe(true);
      expect(resumedMs).toBeLessThan(20_000);
      expect((await readyz(t, "lease-coordinator")).status).toBe(200);
      expect(await acquireUpdate(t, b)).toMatchObject({ granted: true });
      const third = await acquireUpdate(t, c);
      expect(third.granted).toBe(false);
      expect(third.deniedReason).not.toMatch(/StateStale/);
      expect(third.deniedReason).toMatch(/worker/);
      console.log(`freshness e2e: grants resumed ${resumedMs} ms after the watcher was restarted; third denied: ${third.deniedReason}`);
    } finally {
      await t.stop();
    }
  });
});
