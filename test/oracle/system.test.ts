// The whole system against a real kube-apiserver (the oracle, scripts/oracle/): the CRDs kube-sim
// serves applied with kubectl (server-side), cluster-sim generating a small cluster and driving an
// update, nats-server and the five services as processes (as `lockstep up` starts them), and what the
// e2e story asserts that means something here. Run by `npm run test:oracle:system` (not by `npm test`).
// The oracle is Kubernetes 1.20: PodDisruptionBudgets and Evictions are policy/v1beta1 there, picked
// through discovery; it has no controller-manager, so disruption.ts keeps PDB status.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OperationType } from "@lockstep/contracts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, CURRENT, kubectl, LEASE_NAMESPACE, startOracleSystem, TARGET, TOTAL, until, type OracleSystem } from "./harness.js";

describe.skipIf(kubectl.skip)("whole system against kube-apiserver (the oracle)", () => {
  let t: OracleSystem;
  beforeAll(async () => {
    t = await startOracleSystem({ leases: "cooperate" });
  }, 240_000);
  afterAll(() => t?.stop(), 120_000);

  it("serves PDBs and Evictions as the 1.20 server does, chosen through discovery", async () => {
    const policy = await t.http.request<{ versions: Array<{ version: string }> }>("GET", "/apis/policy");
    const servesV1 = policy.versions.some((v) => v.version === "v1");
    const expected = servesV1 ? "policy/v1" : "policy/v1beta1";
    if (t.oracle.version.startsWith("1.20")) expect(expected).toBe("policy/v1beta1");
    // cluster-sim created its PDB in that version, and the watcher published it from that version's list.
    const pdbs = await t.http.request<{ items: any[] }>("GET", `/apis/${expected}/poddisruptionbudgets`);
    expect(pdbs.items.map((p) => `${p.metadata.namespace}/${p.metadata.name}`)).toContain("sim-workloads/app-worker");
    await until("the watcher's PDB snapshot", () => t.cache.list("podDisruptionBudget").some((p) => p.name === "app-worker"), 60_000);
  });

  it("syncs the generated cluster: every node in the aggregator, a skew report, upgradeable", async () => {
    await until(`${TOTAL} nodes in the status`, async () => (await t.records()).length === TOTAL, 120_000, t.explain);
    const report = await until("a skew report", async () => (await t.clients.call(t.clients.skew, t.clients.skew.getSkewReport, {})).report, 60_000);
    expect(report).toMatchObject({ controlPlaneVersion: CURRENT, upgradeable: true });
  });

  it("grants a maintenance lease, refuses a second holder, releases it", async () => {
    const node = t.sim.poolMembers().get("worker")![0]!.metadata.name;
    const ask = (holder: string) =>
      t.clients.call(t.clients.lease, t.clients.lease.acquire, { node, operation: OperationType.OPERATION_TYPE_MAINTENANCE, holder, reason: "oracle test", durationSeconds: 600, waitSeconds: 0, force: false });
    expect(await ask(ADMIN)).toMatchObject({ granted: true });
    const denied = await ask("someone-else");
    expect(denied.granted).toBe(false);
    expect(denied.deniedReason).toContain(ADMIN);
    // The Lease object in kube-apiserver names the holder (in the namespace the coordinator made itself).
    const lease = await t.http.request<any>("GET", `/apis/coordination.k8s.io/v1/namespaces/${LEASE_NAMESPACE}/leases/${node}`);
    expect(lease.spec.holderIdentity).toContain(ADMIN);
    expect((await t.clients.call(t.clients.lease, t.clients.lease.release, { node, holder: ADMIN })).released).toBe(true);
    await until("lease.granted and lease.denied events", () => t.events.count("lease.granted", (m) => m.lease?.holder === ADMIN) === 1 && t.events.count("lease.denied", (m) => m.node === node) === 1, 30_000);
  });

  it("updates every node through leases and evictions, and reports the update complete once", async () => {
    const started = Date.now();
    await t.sim.upgrade(TARGET);
    await until("some node updating", async () => (await t.records()).some((r) => r.phase !== "Updated"), 120_000, t.explain);
    await until("every node updated in the aggregator's view", async () => {
      const recs = await t.records();
      return recs.length === TOTAL && recs.every((r) => r.assessment === "Completed" && r.phase === "Updated");
    }, 300_000, t.explain);
    await until("update.completed for the target", () => t.events.count("update.completed", (m) => m.version === TARGET) > 0, 120_000, t.explain);
    t.timings.update = (Date.now() - started) / 1000;
    expect(t.events.count("update.completed", (m) => m.version === TARGET)).toBe(1);

    // The MCO (cluster-sim, cooperating) held an Update lease for each node it updated, none left behind.
    const mco = (m: any) => m.lease?.holder === "machine-config-controller/update";
    const holders = t.events.events.filter((e) => e.fact === "lease.granted").map((e) => (e.message as any).lease?.holder);
    expect(t.events.count("lease.granted", mco), JSON.stringify(holders)).toBeGreaterThanOrEqual(TOTAL);
    await until("all update leases released", async () => (await t.heldLeases()).length === 0, 60_000, t.explain);

    // Drains evicted the workload pods through the PDB (status kept by the stand-in).
    const stats = t.sim.stats();
    expect(stats.byVerb["create pods/eviction"] ?? 0).toBeGreaterThanOrEqual(4);
    expect(t.controller.writes()).toBeGreaterThan(0);

    // Skew evaluated on the way and the end state upgradeable; per-node insights published.
    expect(t.events.count("skew.evaluated")).toBeGreaterThan(0);
    expect(t.events.count("insight.changed")).toBeGreaterThanOrEqual(TOTAL);
    const skew = await t.clients.call(t.clients.skew, t.clients.skew.getSkewReport, {});
    expect(skew.report).toMatchObject({ upgradeable: true, updateComplete: true });
    const cv = await t.http.request<any>("GET", "/apis/config.openshift.io/v1/clusterversions/version");
    expect(cv.status.history[0]).toMatchObject({ version: TARGET, state: "Completed" });
    // No service crashed on the way.
    for (const [name, p] of t.system.processes) expect(p.running, name).toBe(true);
    if (t.oracle.version.startsWith("1.20")) expect(readFileSync(join(t.runDir, "watcher.log"), "utf8")).toContain("older API version chosen through discovery");
  });
});
