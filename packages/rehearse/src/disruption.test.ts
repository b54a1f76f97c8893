// A pending config change within the release, applied as the node disruption policies say: the
// default policy's `None` for the pull secret means no drain and no reboot; a kubelet.conf change
// reboots. Without policies every change drains and reboots (cluster-sim's daemon).
import { generateCluster, parseClusterSpec, renderedName, type KubeObject } from "@lockstep/cluster-sim";
import { beforeAll, describe, expect, it } from "vitest";
import type { EffectiveRules } from "@lockstep/disruption";
import { disruptionRules } from "./disruption-rules.js";
import { rehearse } from "./engine.js";
import { snapshotOf } from "./snapshot.js";

const START = new Date("2026-03-02T10:00:00Z");

/** A generated cluster whose worker pool is about to roll out a new config that changes `path`. */
function pendingChange(path: string): KubeObject[] {
  const spec = parseClusterSpec({ name: "ndp", platform: "aws", version: "4.15.3", masters: 3, pools: [{ name: "worker", size: 3 }], workloads: [{ name: "app", pool: "worker", replicas: 3, pdb: { maxUnavailable: 1 } }], seed: 4 });
  const objs = generateCluster(spec, new Date(START.getTime() - 3600_000), 1).objects;
  const current = objs.find((o) => o.kind === "MachineConfig" && o.metadata.name === renderedName("worker", "4.15.3"))!;
  const next = structuredClone(current);
  next.metadata = { ...next.metadata, name: "rendered-worker-pending", uid: "pending" };
  const files = next.spec.config.storage?.files ?? [];
  next.spec.config.storage = { ...(next.spec.config.storage ?? {}), files: [...files.filter((f: { path: string }) => f.path !== path), { path, mode: 420, overwrite: true, contents: { source: "data:,changed" } }] };
  const pool = objs.find((o) => o.kind === "MachineConfigPool" && o.metadata.name === "worker")!;
  pool.spec.configuration = { ...pool.spec.configuration, name: "rendered-worker-pending" };
  return [...objs, next];
}

const worker = (f: ReturnType<typeof rehearse>) => f.pools.find((p) => p.pool === "worker")!;

describe("rehearse: node disruption policies for a pending config change", () => {
  let rules: EffectiveRules;
  beforeAll(async () => {
    rules = await disruptionRules();
  });

  it("the pull secret (default policy None): no drain, no reboot, a short rollout", () => {
    const f = rehearse(snapshotOf(pendingChange("/var/lib/kubelet/config.json")), { to: "4.15.3", seed: 1, start: START, disruption: rules });
    expect(worker(f).configChange).toMatchObject({ from: renderedName("worker", "4.15.3"), to: "rendered-worker-pending", actions: ["None"], drain: false, reboot: false });
    expect(worker(f).state).toBe("done");
    expect(f.blockers).toEqual([]);
    const rebooting = rehearse(snapshotOf(pendingChange("/var/lib/kubelet/config.json")), { to: "4.15.3", seed: 1, start: START });
    expect(worker(rebooting).configChange).toBeUndefined();
    // Three nodes one at a time: without the reboot (and its boot stage) the rollout is much shorter.
    expect(worker(f).durationSeconds!).toBeLessThan(worker(rebooting).durationSeconds! / 3);
  });

  it("kubelet.conf (no rule): drain and reboot", () => {
    const f = rehearse(snapshotOf(pendingChange("/etc/kubernetes/kubelet.conf")), { to: "4.15.3", seed: 1, start: START, disruption: rules });
    expect(worker(f).configChange).toMatchObject({ actions: ["Reboot"], drain: true, reboot: true });
    const plain = rehearse(snapshotOf(pendingChange("/etc/kubernetes/kubelet.conf")), { to: "4.15.3", seed: 1, start: START });
    expect(worker(f).durationSeconds).toBe(worker(plain).durationSeconds);
  });
});
