// Mid-upgrade snapshots fed to the status rules (@lockstep/insights) show every node phase the status
// spec knows, plus Degraded and Unavailable nodes.
import { evaluate, inputsFromDocuments } from "@lockstep/insights";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim } from "@lockstep/kube-sim";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "yaml";
import { expect, it } from "vitest";
import { parseClusterSpec } from "./spec.js";
import { startSimulation } from "./simulation.js";
import { snapshotDocuments, writeSnapshot, type ClusterSnapshot } from "./snapshot.js";
import { DEFAULT_TIMING, mergeTiming } from "./timing.js";

function phasesOf(snap: ClusterSnapshot): { phases: Set<string>; assessments: Set<string> } {
  const inputs = inputsFromDocuments(snapshotDocuments(snap));
  const now = BigInt(Date.now()) * 1_000_000n;
  const ev = evaluate(inputs, { now, wallClock: now });
  const nodes = [...(ev.masterPool?.nodes ?? []), ...ev.workerPools.flatMap((p) => p.nodes)];
  return { phases: new Set(nodes.map((n) => n.phase)), assessments: new Set(nodes.map((n) => n.assessment)) };
}

it("mid-upgrade snapshots contain Pending, Draining, Updating, Rebooting, Paused, Updated, Degraded and Unavailable nodes", async () => {
  const ks = await startKubeSim({ crds: "openshift" });
  const spec = parseClusterSpec({
    version: "4.15.3",
    history: ["4.15.1"],
    masters: 3,
    pools: [
      { name: "worker", size: 8, maxUnavailable: 3 },
      { name: "infra", size: 2, paused: true },
    ],
  });
  const timing = mergeTiming(DEFAULT_TIMING, { drainTimeout: 900, boot: { duration: 60, jitter: 60 } });
  const sim = await startSimulation({ kc: kubeConfigForUrl(ks.url), spec, timeScale: 300, timing });
  const phases = new Set<string>();
  const assessments = new Set<string>();
  let evaluations = 0;
  const wanted = ["Pending", "Draining", "Updating", "Rebooting", "Paused", "Updated"];
  const seenAll = () => wanted.every((p) => phases.has(p)) && assessments.has("Degraded") && assessments.has("Unavailable");
  let mid: ClusterSnapshot | undefined;
  let lastErr: unknown;
  sim.world.onChange((kind) => {
    try {
      if (kind !== "node" || seenAll()) return;
      const snap = sim.snapshot();
      const r = phasesOf(snap);
      evaluations++;
      const before = phases.size + assessments.size;
      for (const p of r.phases) phases.add(p);
      for (const a of r.assessments) assessments.add(a);
      if (phases.size + assessments.size > before) mid = snap;
    } catch (err) {
      lastErr = err;
    }
  });
  try {
    await sim.inject("drain-blocked", { pool: "worker", count: 1 });
    await sim.inject("disk-pressure", { pool: "infra", count: 1 });
    await sim.upgrade("4.15.5");
    await sim.waitFor(seenAll, 40_000, "every phase").catch((err) => {
      throw new Error(`${(err as Error).message}; seen phases ${[...phases]} assessments ${[...assessments]}; last evaluation error: ${String(lastErr)}`);
    });
  } finally {
    await sim.stop();
    await ks.stop();
  }
  expect([...phases].sort()).toEqual([...wanted].sort());
  expect(assessments).toContain("Degraded");
  expect(assessments).toContain("Unavailable");
  expect(evaluations).toBeGreaterThan(10);

  // The snapshot files have the fixtures' shape (a v1 List per file).
  const dir = await mkdtemp(join(tmpdir(), "cluster-sim-"));
  try {
    const paths = await writeSnapshot(dir, "mid", mid!);
    expect(paths.map((p) => p.slice(dir.length + 1))).toEqual(["mid-cv.yaml", "mid-co.yaml", "mid-mc.yaml", "mid-mcp.yaml", "mid-node.yaml"]);
    const nodes = parse(await readFile(join(dir, "mid-node.yaml"), "utf8"));
    expect(nodes).toMatchObject({ apiVersion: "v1", kind: "List", metadata: { resourceVersion: "" } });
    expect(nodes.items).toHaveLength(13);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
