// The --nats source end to end: an oc golden dump loaded into kube-sim (real HTTP), the watcher
// fills a real nats-server's state plane, and the rehearsal read back from it forecasts as the dump.
import { join } from "node:path";
import { kubeConfigForUrl } from "@lockstep/cluster-sim";
import { startKubeSim } from "@lockstep/kube-sim";
import { ocUpgradeStatusDir, startNatsServer, TEST_WATCHER_OPTIONS } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { describe, expect, it } from "vitest";
import { disruptionRules } from "./disruption-rules.js";
import { rehearse } from "./engine.js";
import { loadSnapshotDir } from "./load-dir.js";
import { loadSnapshotNats } from "./load-nats.js";
import type { RehearsalSnapshot } from "./snapshot.js";

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined, debug: () => undefined, trace: () => undefined, fatal: () => undefined, child: () => quiet } as unknown as Parameters<typeof watcherRunnable>[0]["logger"];

/** The case as the state plane has it, once the watcher has published every node. */
async function throughStatePlane(name: string, nodes: number): Promise<RehearsalSnapshot> {
  const sim = await startKubeSim({ crds: "openshift" });
  const nats = await startNatsServer();
  const stop = new AbortController();
  let running: Promise<void> | undefined;
  try {
    await sim.load({ files: ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml"].map((s) => join(ocUpgradeStatusDir(), `${name}${s}`)) });
    running = watcherRunnable({
      kc: kubeConfigForUrl(sim.url),
      bus: { servers: nats.url },
      logger: quiet,
      ...TEST_WATCHER_OPTIONS,
    }).start(stop.signal);
    // Until the watcher has created the bucket, synced, and published every node.
    for (let i = 0; ; i++) {
      const snap = await loadSnapshotNats({ servers: nats.url }, { syncTimeoutMs: 1_000 }).catch((err: unknown) => (i < 40 ? undefined : Promise.reject(err)));
      if (snap && snap.nodes.length >= nodes) return snap;
      await new Promise((r) => setTimeout(r, 250));
    }
  } finally {
    stop.abort();
    await running?.catch(() => undefined);
    await nats.stop();
    await sim.stop();
  }
}

describe("loadSnapshotNats", () => {
  for (const name of ["4.14.1-paused-worker-pool", "4.16.0-compact"]) {
    it(`${name}: the state plane's snapshot forecasts as the dump it came from`, async () => {
      const dump = loadSnapshotDir(ocUpgradeStatusDir(), name);
      const live = await throughStatePlane(name, dump.nodes.length);
      expect(live.nodes.length).toBe(dump.nodes.length);
      const to = dump.clusterVersion.status.desired.version as string;
      // The state plane keeps no heartbeat times: both start at the same instant.
      const o = { to, seed: 2, start: new Date("2030-01-01T00:00:00Z"), disruption: await disruptionRules() };
      const fromDump = rehearse(dump, o);
      const fromPlane = rehearse(live, o);
      expect(fromPlane.pools).toEqual(fromDump.pools);
      expect(fromPlane.blockers).toEqual(fromDump.blockers);
      expect(fromPlane.nextMinor).toEqual(fromDump.nextMinor);
      expect(fromPlane.finish).toEqual(fromDump.finish);
    }, 60_000);
  }

  it("says so when nothing answers", async () => {
    await expect(loadSnapshotNats({ servers: "nats://127.0.0.1:1", timeoutMs: 500 })).rejects.toThrow();
  });
});
