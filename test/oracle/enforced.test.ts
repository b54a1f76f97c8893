// The lease webhook against a real kube-apiserver (the oracle, 1.20): enforcement, not cooperation, as
// in the demo's story. cluster-sim's MCO asks no one and writes as its own ServiceAccounts; the chart's
// ValidatingWebhookConfiguration is registered in kube-apiserver, which calls the lease-coordinator over
// TLS. An admin's Maintenance lease must keep the MCO's update off that node (its drain's evictions
// refused), while every other node updates; once released, the node updates too.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MCO_CONTROLLER_SA, serviceAccountUser } from "@lockstep/cluster-sim";
import { maintenanceLease } from "@lockstep/demo";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ADMIN, kubectl, startOracleSystem, TARGET, TOTAL, until, type OracleSystem } from "./harness.js";

describe.skipIf(kubectl.skip)("the lease webhook in kube-apiserver (the oracle), enforced mode", () => {
  let t: OracleSystem;
  beforeAll(async () => {
    t = await startOracleSystem({ leases: "enforced" });
  }, 240_000);
  afterAll(() => t?.stop(), 120_000);

  /** The lease-coordinator's own record of the refusals kube-apiserver asked it about. */
  const refusals = (node: string) =>
    readFileSync(join(t.runDir, "lease-coordinator.log"), "utf8")
      .split("\n")
      .filter((l) => l.includes("admission refused"))
      .map((l) => JSON.parse(l))
      .filter((e) => e.node === node);

  it("keeps the MCO off the node under maintenance until the lease is released", async () => {
    await until(`${TOTAL} nodes in the status`, async () => (await t.records()).length === TOTAL, 120_000, t.explain);
    const node = t.sim.poolMembers().get("worker")![0]!.metadata.name;
    // The demo story's lease, taken the same way.
    const held = await t.clients.call(t.clients.lease, t.clients.lease.acquire, maintenanceLease(node));
    expect(held.granted).toBe(true);

    const before = await t.http.request<any>("GET", `/api/v1/nodes/${node}`);
    const config = (n: any, k: string) => n.metadata.annotations?.[`machineconfiguration.openshift.io/${k}`];
    await t.sim.upgrade(TARGET);
    await until("some node updating", async () => (await t.records()).some((r) => r.phase !== "Updated"), 120_000, t.explain);
    const others = async () => (await t.records()).filter((r) => r.name !== node);
    await until("every other node updated", async () => (await others()).every((r) => r.assessment === "Completed" && r.phase === "Updated"), 300_000, t.explain);
    // The MCO's drain of the leased node, as its controller's ServiceAccount: kube-apiserver asked the
    // webhook about each eviction and kept to its refusal.
    await until("the MCO's evictions from the leased node refused", () => refusals(node).some((e) => e.user === serviceAccountUser(MCO_CONTROLLER_SA) && e.subResource === "eviction"), 60_000, t.explain);
    // Not updated, not rebooted: its running config is the one from before. (1.20 lets the MCO's
    // desiredConfig write itself through: it hands webhooks an UPDATE's oldObject equal to the new object, so
    // no desiredConfig change is seen — see scripts/oracle/README.md; current Kubernetes refuses that write.)
    const leased = (await t.records()).find((r) => r.name === node)!;
    expect(leased.phase).not.toBe("Updated");
    const now = await t.http.request<any>("GET", `/api/v1/nodes/${node}`);
    expect(config(now, "currentConfig")).toBe(config(before, "currentConfig"));
    expect(t.events.count("update.completed", (m) => m.version === TARGET)).toBe(0);

    expect((await t.clients.call(t.clients.lease, t.clients.lease.release, { node, holder: ADMIN })).released).toBe(true);
    await until("every node updated", async () => {
      const recs = await t.records();
      return recs.length === TOTAL && recs.every((r) => r.assessment === "Completed" && r.phase === "Updated");
    }, 300_000, t.explain);
    await until("update.completed for the target", () => t.events.count("update.completed", (m) => m.version === TARGET) > 0, 120_000, t.explain);
    expect(t.events.count("update.completed", (m) => m.version === TARGET)).toBe(1);
    // Nobody asked for a lease but the admin: the MCO's Update leases are the machineconfig adapter's record.
    const adapted = (m: any) => String(m.lease?.holder).startsWith("adapter:machineconfig/");
    expect(t.events.count("lease.granted", (m) => m.lease?.holder !== ADMIN && !adapted(m))).toBe(0);
    expect(t.events.count("lease.granted", adapted)).toBeGreaterThan(0);
  });
});
