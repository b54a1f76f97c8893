// Lease adapters with separate processes (issue "Adapters"): other disruptors' own objects — a
// NodeMaintenance, a SelfNodeRemediation, kured's DaemonSet lock, a deleting Machine, the MCO's
// daemon at work — become Lockstep leases. For each: the object is written to kube-sim over HTTP in
// its upstream shape, the watcher process publishes it, the lease-coordinator process records the
// lease (seen through gRPC List and the Lease object), another holder's conflicting Acquire is
// refused, and once the object goes the lease is released. medik8s' CRDs are installed after the
// services started, as when the operator is installed later.
import { onDemoRelease } from "@lockstep/cluster-sim";
import { OperationType, type NodeLease } from "@lockstep/contracts";
import { medik8sCrdManifests } from "@lockstep/kube-sim";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { heldNodeLeases, startTestSystem, until, type TestSystem } from "./system.js";

const SPEC = onDemoRelease({
  name: "adapters",
  pools: [{ name: "worker", size: 3, maxUnavailable: 1 }],
});
const { UPDATE, MAINTENANCE, FENCE, REBOOT, DEPROVISION, UNSPECIFIED } = {
  UPDATE: OperationType.OPERATION_TYPE_UPDATE,
  MAINTENANCE: OperationType.OPERATION_TYPE_MAINTENANCE,
  FENCE: OperationType.OPERATION_TYPE_FENCE,
  REBOOT: OperationType.OPERATION_TYPE_REBOOT,
  DEPROVISION: OperationType.OPERATION_TYPE_DEPROVISION,
  UNSPECIFIED: OperationType.OPERATION_TYPE_UNSPECIFIED,
};

/** One request to kube-sim's HTTP API, as any client makes it; the status and the parsed body. */
async function api(base: string, method: string, path: string, body?: object, contentType = "application/json"): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method, headers: { "content-type": contentType, accept: "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

describe("lease adapters, with the services as processes", () => {
  let t: TestSystem;
  let base: string;
  let workers: string[];
  let masters: string[];
  let kuredVersion = "";

  const ok = async (p: Promise<{ status: number; body: any }>) => {
    const r = await p;
    if (r.status >= 300) throw new Error(`HTTP ${r.status}: ${r.body?.message}`);
    return r.body;
  };
  const merge = (path: string, body: object) => ok(api(base, "PATCH", path, body, "application/merge-patch+json"));
  /** The node's lease as `lockstep leases` shows it (gRPC List). */
  const listed = async (node: string): Promise<NodeLease | undefined> =>
    (await t.clients.call(t.clients.lease, t.clients.lease.list, { operation: UNSPECIFIED, pool: "" })).leases.find((l) => l.node === node);
  const heldBy = (node: string) => heldNodeLeases(t.env).find((l) => l.node === node)?.holder;
  const other = (node: string, operation: OperationType) =>
    t.clients.call(t.clients.lease, t.clients.lease.acquire, { node, holder: "e2e/other", operation, reason: "e2e", durationSeconds: 300, waitSeconds: 0, force: false });

  /** Created → recorded (List and the Lease object) → a conflicting acquire refused; returns the lease. */
  async function recorded(node: string, holder: string, operation: OperationType, conflicting: OperationType, code: string, timeoutMs = 60_000): Promise<NodeLease> {
    const lease = await until(`${holder} recorded on ${node}`, async () => {
      const l = await listed(node);
      return l?.holder === holder ? l : undefined;
    }, timeoutMs);
    expect(lease).toMatchObject({ holder, operation, namespace: "lockstep-leases" });
    expect(heldBy(node)).toBe(holder);
    const refused = await other(node, conflicting);
    expect(refused).toMatchObject({ granted: false, deniedCode: code, current: expect.objectContaining({ holder }) });
    return lease;
  }

  const released = (node: string, holder: string) => until(`${holder} released on ${node}`, async () => (await listed(node))?.holder !== holder && heldBy(node) !== holder, 30_000);

  beforeAll(async () => {
    t = await startTestSystem({
      spec: SPEC,
      // Slower simulated time: the MCO's daemon stays Working long enough to compete with.
      timeScale: 20,
      serviceEnv: { "lease-coordinator": { LEASE_ADAPTERS: "nodemaintenance,remediation,kured,machine,machineconfig", LEASE_ADAPTER_RESYNC: "500ms" } },
    });
    base = t.env.kube.url;
    const nodes = (await ok(api(base, "GET", "/api/v1/nodes"))).items as any[];
    const named = (role: string) => nodes.filter((n) => `node-role.kubernetes.io/${role}` in (n.metadata.labels ?? {})).map((n) => n.metadata.name as string).sort();
    workers = named("worker");
    masters = named("master");
    expect(workers.length).toBe(3);
    expect(masters.length).toBe(3);
    for (const crd of medik8sCrdManifests()) await ok(api(base, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd));
    for (const ns of ["openshift-workload-availability", "openshift-machine-api", "kube-system"]) {
      const r = await api(base, "POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
      expect([201, 409]).toContain(r.status);
    }
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
  });

  it("NodeMaintenance → a Maintenance lease while it exists (CRD installed after the services started)", async () => {
    const node = workers[0]!;
    await ok(api(base, "POST", "/apis/nodemaintenance.medik8s.io/v1beta1/nodemaintenances", {
      apiVersion: "nodemaintenance.medik8s.io/v1beta1",
      kind: "NodeMaintenance",
      metadata: { name: `nm-${node}` },
      spec: { nodeName: node, reason: "replace a DIMM" },
    }));
    // The watcher looks for an absent CRD again every 30 s.
    const lease = await recorded(node, `adapter:nodemaintenance/nm-${node}`, MAINTENANCE, UPDATE, "MaintenanceFlagged", 90_000);
    expect(lease.reason).toBe(`NodeMaintenance nm-${node}: replace a DIMM`);
    await ok(api(base, "DELETE", `/apis/nodemaintenance.medik8s.io/v1beta1/nodemaintenances/nm-${node}`));
    await released(node, `adapter:nodemaintenance/nm-${node}`);
  });

  it("SelfNodeRemediation → a Fence lease while it exists", async () => {
    const node = workers[1]!;
    const path = "/apis/self-node-remediation.medik8s.io/v1alpha1/namespaces/openshift-workload-availability/selfnoderemediations";
    await until("the SelfNodeRemediation created", async () => (await api(base, "POST", path, {
      apiVersion: "self-node-remediation.medik8s.io/v1alpha1",
      kind: "SelfNodeRemediation",
      metadata: { name: node, annotations: { "remediation.medik8s.io/node-name": node } },
      spec: { remediationStrategy: "Automatic" },
    })).status === 201, 30_000);
    await recorded(node, `adapter:selfnoderemediation/openshift-workload-availability/${node}`, FENCE, UPDATE, "Held", 90_000);
    await ok(api(base, "DELETE", `${path}/${node}`));
    await released(node, `adapter:selfnoderemediation/openshift-workload-availability/${node}`);
  });

  it("kured's DaemonSet lock → a Reboot lease while the annotation names the node", async () => {
    const node = workers[2]!;
    const lock = JSON.stringify({ nodeID: node, metadata: { unschedulable: false }, created: new Date().toISOString(), TTL: 0 });
    await ok(api(base, "POST", "/apis/apps/v1/namespaces/kube-system/daemonsets", {
      apiVersion: "apps/v1",
      kind: "DaemonSet",
      metadata: { name: "kured", annotations: { "weave.works/kured-node-lock": lock } },
      spec: { selector: { matchLabels: { name: "kured" } }, template: { metadata: { labels: { name: "kured" } }, spec: { containers: [{ name: "kured", image: "ghcr.io/kubereboot/kured" }] } } },
    }));
    // A reboot counts as an update in progress for the maintenance warning.
    await recorded(node, `adapter:kured/${node}`, REBOOT, MAINTENANCE, "UpdateInProgress");
    kuredVersion = (await merge("/apis/apps/v1/namespaces/kube-system/daemonsets/kured", { metadata: { annotations: { "weave.works/kured-node-lock": null } } })).metadata.resourceVersion;
    await released(node, `adapter:kured/${node}`);
  });

  it("a deleting Machine → a Deprovision lease until it is gone", async () => {
    const node = masters[0]!;
    const path = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines";
    await ok(api(base, "POST", path, { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: "e2e-machine", finalizers: ["machine.machine.openshift.io"] }, spec: {} }));
    await merge(`${path}/e2e-machine/status`, { status: { phase: "Deleting", nodeRef: { kind: "Node", name: node } } });
    await ok(api(base, "DELETE", `${path}/e2e-machine`));
    await recorded(node, "adapter:machine/openshift-machine-api/e2e-machine", DEPROVISION, UPDATE, "Held");
    await merge(`${path}/e2e-machine`, { metadata: { finalizers: null } });
    await released(node, "adapter:machine/openshift-machine-api/e2e-machine");
  });

  it("the MCO's daemon at work (state Working, desiredConfig ≠ currentConfig) → an Update lease until Done", async () => {
    const node = masters[1]!;
    const n = await ok(api(base, "GET", `/api/v1/nodes/${node}`));
    const current = n.metadata.annotations["machineconfiguration.openshift.io/currentConfig"];
    // An update started outside Lockstep (as by an MCO that does not ask): the simulated daemon applies it.
    await merge(`/api/v1/nodes/${node}`, { metadata: { annotations: { "machineconfiguration.openshift.io/desiredConfig": `${current}-e2e` } } });
    await recorded(node, `adapter:machineconfig/${node}`, UPDATE, MAINTENANCE, "UpdateInProgress");
    await released(node, `adapter:machineconfig/${node}`);
    const done = await ok(api(base, "GET", `/api/v1/nodes/${node}`));
    expect(done.metadata.annotations["machineconfiguration.openshift.io/state"]).not.toBe("Working");
  });

  it("raised the maintenance↔update warning for the refused maintenance, and never touched the disruptors' objects", async () => {
    await until("UpdateInProgress warning", () => t.events.count("warning.raised", (m: any) => m.warning?.code === "UpdateInProgress" && m.warning.node === masters[1]) > 0, 15_000);
    const ds = await ok(api(base, "GET", "/apis/apps/v1/namespaces/kube-system/daemonsets/kured"));
    expect(ds.metadata.annotations?.["weave.works/kured-node-lock"]).toBeUndefined(); // removed by the test, left alone by Lockstep
    expect(ds.metadata.resourceVersion).toBe(kuredVersion);
  });
});
