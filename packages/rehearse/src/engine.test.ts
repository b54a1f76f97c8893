import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { generateCluster, MCO_ANNOTATIONS as A, parseClusterSpec, renderedName, type KubeObject } from "@lockstep/cluster-sim";
import { encodeLease, nodeLeaseName } from "@lockstep/lease-policy";
import { describe, expect, it } from "vitest";
import { rehearse } from "./engine.js";
import { loadSnapshotDir } from "./load-dir.js";
import { snapshotOf } from "./snapshot.js";

const GOLDEN = fileURLToPath(new URL("../../testing/testdata/oc-upgrade-status/", import.meta.url));
const CASES = readdirSync(GOLDEN)
  .filter((f) => f.endsWith("-cv.yaml"))
  .map((f) => f.slice(0, -"-cv.yaml".length))
  .sort();

describe("rehearse: the oc golden snapshots", () => {
  it("finds every case", () => expect(CASES.length).toBe(11));

  for (const name of CASES) {
    it(`${name}: a forecast, the same for the same seed`, () => {
      const snap = loadSnapshotDir(GOLDEN, name);
      const to = snap.clusterVersion.status.desired.version as string;
      const a = rehearse(snap, { to, seed: 3 });
      const b = rehearse(loadSnapshotDir(GOLDEN, name), { to, seed: 3 });
      expect(b).toEqual(a);
      expect(a.accepted).toBe(true);
      expect(a.pools.map((p) => p.pool)).toEqual(snap.pools.map((p) => p.metadata.name).sort());
      // Every pool with nodes ends done, idle, or blocked by a named blocker.
      // (or by a cluster-wide hold read from the status: issue 33).
      const held = a.blockers.some((bl) => bl.insight !== undefined && bl.kind !== "alert" && bl.pool === undefined);
      for (const p of a.pools.filter((x) => x.state === "blocked")) expect(held || a.blockers.some((bl) => bl.pool === p.pool), p.pool).toBe(true);
      if (name === "4.14.1-paused-worker-pool") expect(a.blockers.map((bl) => `${bl.kind} ${bl.subject}`)).toEqual(["paused-pool worker"]);
      // The dump has the nodes' drain failures but not the PDBs behind them: the nodes are named as degraded.
      else if (name === "4.16.0-ec2-control-plane-updated-pdb-prohibits-draining") {
        // The ClusterVersion is Failing (machine-config degraded): the status says so, the forecast holds it (issue 33).
        expect(new Set(a.blockers.map((bl) => bl.kind))).toEqual(new Set(["degraded", "cvo-failing"]));
        expect(a.blockers.find((bl) => bl.kind === "degraded")!.reason).toMatch(/failed to drain node/);
      } else if (name === "4.14.1-degraded") {
        // Stalled: the operators the status calls degraded or unavailable hold the CVO.
        expect(a.finish).toBeNull();
        expect(a.blockers.map((bl) => `${bl.kind} ${bl.subject}`).sort()).toEqual([
          "cvo-failing version",
          "operator-degraded etcd",
          "operator-degraded kube-apiserver",
          "operator-degraded kube-controller-manager",
          "operator-degraded kube-scheduler",
          "operator-unavailable control-plane-machine-set",
          "stalled version",
        ]);
      } else if (name === "4.15.0-ec2-unavailable-mco-20m") {
        // machine-config unavailable for 20 minutes: the MCO rolls no pool; the firing alerts are risks.
        expect(a.finish).toBeNull();
        expect(a.blockers.map((bl) => bl.kind)).toContain("mco-unavailable");
      } else expect(a.blockers).toEqual([]);
    });
  }
});

// A small generated cluster: 3 masters and 4 workers at 4.15.3, rehearsed to 4.15.4 (a z-stream).
const START = new Date("2026-03-02T02:55:00Z");
function cluster(over: { paused?: boolean; pdb?: boolean } = {}): KubeObject[] {
  const spec = parseClusterSpec({
    name: "rh",
    platform: "aws",
    version: "4.15.3",
    history: ["4.14.20"],
    masters: 3,
    pools: [{ name: "worker", size: 4, maxUnavailable: 1, paused: over.paused ?? false }],
    workloads: [{ name: "app", pool: "worker", replicas: 4, pdb: over.pdb ? { minAvailable: 4 } : { maxUnavailable: 1 } }],
    seed: 5,
  });
  return generateCluster(spec, new Date(START.getTime() - 3600_000), 1).objects;
}
const workers = (objs: KubeObject[]) =>
  objs
    .filter((o) => o.kind === "Node" && "node-role.kubernetes.io/worker" in (o.metadata.labels ?? {}))
    .map((o) => o.metadata.name)
    .sort();
const kinds = (f: ReturnType<typeof rehearse>) => f.blockers.map((b) => `${b.kind} ${b.subject}`);

describe("rehearse: generated clusters name exactly their blockers", () => {
  it("no blocker: every pool done, the next minor allowed", () => {
    const f = rehearse(snapshotOf(cluster()), { to: "4.15.4", seed: 1, start: START });
    expect(f.blockers).toEqual([]);
    expect(f.pools.map((p) => [p.pool, p.state])).toEqual([
      ["master", "done"],
      ["worker", "done"],
    ]);
    expect(f.finish).not.toBeNull();
    expect(f.nextMinor).toMatchObject({ version: "4.16.0", allowed: true, kind: "Minor", reasons: [], operators: [] });
    expect(f.update).toMatchObject({ allowed: true, kind: "ZStream" });
  });

  it("a PodDisruptionBudget that cannot be satisfied", () => {
    const f = rehearse(snapshotOf(cluster({ pdb: true })), { to: "4.15.4", seed: 1, start: START });
    expect(kinds(f)).toEqual([`pdb ${f.blockers[0]?.subject}`]);
    expect(f.blockers[0]!.subject).toMatch(/\/app$/);
    expect(f.blockers[0]!.until).toBeNull();
    expect(f.pools.find((p) => p.pool === "worker")!.state).toBe("blocked");
    expect(f.pools.find((p) => p.pool === "master")!.state).toBe("done");
  });

  it("a paused pool", () => {
    const f = rehearse(snapshotOf(cluster({ paused: true })), { to: "4.15.4", seed: 1, start: START });
    expect(kinds(f)).toEqual(["paused-pool worker"]);
    expect(f.nextMinor.allowed).toBe(false);
  });

  it("a maintenance lease held on a worker", () => {
    const objs = cluster();
    const node = workers(objs)[0]!;
    const lease = encodeLease({
      namespace: "lockstep-leases",
      name: nodeLeaseName(node),
      kind: "node",
      node,
      nodeUid: objs.find((o) => o.metadata.name === node)!.metadata.uid ?? "",
      holder: "kubeadm-ops",
      operation: "Maintenance",
      reason: "firmware",
      durationSeconds: 7 * 24 * 3600,
      acquireTime: new Date(START.getTime() - 600_000),
      renewTime: new Date(START.getTime() - 600_000),
      transitions: 0,
    });
    const f = rehearse(snapshotOf([...objs, lease as unknown as KubeObject]), { to: "4.15.4", seed: 1, start: START });
    expect(kinds(f)).toEqual(["lease kubeadm-ops"]);
    expect(f.blockers[0]!.nodes).toEqual([node]);
    expect(f.blockers[0]!.until).toBeNull();
  });

  it("a budget window that closes while the pool rolls", () => {
    // One node per night between 02:00 and 03:00 UTC; the rehearsal starts at 02:55.
    const budget = {
      apiVersion: "lockstep.io/v1alpha1",
      kind: "DisruptionBudget",
      metadata: { name: "nightly" },
      spec: { pool: "worker", maxDisrupted: "0", schedules: [{ cron: "0 2 * * *", duration: "1h", maxDisrupted: "1" }], operations: ["Update"] },
    } as KubeObject;
    const f = rehearse(snapshotOf([...cluster(), budget]), { to: "4.15.4", seed: 1, start: START });
    expect(kinds(f)).toEqual(["window nightly"]);
    const worker = f.pools.find((p) => p.pool === "worker")!;
    // The window closes at 03:00, before the control plane is done: the workers roll, one at a time, the next night.
    expect(worker.state).toBe("done");
    expect(Date.parse(worker.start!)).toBeGreaterThanOrEqual(Date.parse("2026-03-03T02:00:00Z"));
    expect(Date.parse(worker.finish!)).toBeLessThan(Date.parse("2026-03-03T03:00:00Z"));
    expect(Date.parse(f.blockers[0]!.until!)).toBeGreaterThanOrEqual(Date.parse("2026-03-03T02:00:00Z"));
  });

  it("a minor update the skew-enforcer blocks: a paused pool still on 4.14", () => {
    // The worker pool was paused before the 4.15 update: its nodes still run 4.14.20's config.
    const objs = cluster({ paused: true });
    const old = renderedName("worker", "4.14.20");
    const mc = structuredClone(objs.find((o) => o.kind === "MachineConfig" && o.metadata.name === renderedName("worker", "4.15.3"))!);
    mc.metadata = { ...mc.metadata, name: old, uid: "old-worker", annotations: { ...mc.metadata.annotations, [A.releaseImageVersion]: "4.14.20" } };
    const pool = objs.find((o) => o.kind === "MachineConfigPool" && o.metadata.name === "worker")!;
    pool.spec.configuration = { ...pool.spec.configuration, name: old };
    pool.status = { ...pool.status, configuration: { ...pool.status?.configuration, name: old } };
    for (const n of objs.filter((o) => o.kind === "Node" && workers(objs).includes(o.metadata.name))) {
      n.metadata.annotations = { ...n.metadata.annotations, [A.currentConfig]: old, [A.desiredConfig]: old };
    }
    const f = rehearse(snapshotOf([...objs, mc]), { to: "4.16.0", seed: 1, start: START });
    expect(f.update).toMatchObject({ allowed: false, kind: "Minor" });
    expect(f.accepted).toBe(false);
    expect(kinds(f)).toEqual(["skew lockstep"]);
    expect(f.blockers[0]!.reason).toMatch(/Precondition "ClusterVersionUpgradeable" failed/);
    // A z-stream is never blocked by skew: it runs, and the paused pool is what remains.
    const z = rehearse(snapshotOf([...objs, mc]), { to: "4.15.4", seed: 1, start: START });
    expect(z.accepted).toBe(true);
    expect(kinds(z)).toEqual(["paused-pool worker"]);
    expect(z.nextMinor.allowed).toBe(false);
    expect(z.nextMinor.reasons.length).toBeGreaterThan(0);
  });

  it("is deterministic, and the seed moves the stage jitter only", () => {
    const a = rehearse(snapshotOf(cluster()), { to: "4.15.4", seed: 1, start: START });
    expect(rehearse(snapshotOf(cluster()), { to: "4.15.4", seed: 1, start: START })).toEqual(a);
    const b = rehearse(snapshotOf(cluster()), { to: "4.15.4", seed: 2, start: START });
    expect(b.finish).not.toEqual(a.finish);
  });
});

describe("rehearse: input", () => {
  it("refuses a snapshot without a ClusterVersion with a clear error", () => {
    expect(() => snapshotOf(cluster().filter((o) => o.kind !== "ClusterVersion"))).toThrow(/expected one ClusterVersion, found 0/);
  });
  it("names a missing part of a dump", () => {
    expect(() => loadSnapshotDir(join(GOLDEN), "no-such-case")).toThrow(/missing no-such-case-cv.yaml/);
  });
});
