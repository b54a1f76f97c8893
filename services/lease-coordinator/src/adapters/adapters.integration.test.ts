// Lease adapters end to end in one process: kube-sim over HTTP (the disruptors' objects in their
// upstream shapes), a real nats-server, the watcher publishing node signals, the coordinator
// recording them as leases, and a real gRPC client competing for the same nodes.
import { AppsV1Api, PatchStrategy, setHeaderOptions } from "@kubernetes/client-node";
import { OperationType, type ListResponse, type ReleaseResponse } from "@lockstep/contracts";
import { medik8sCrdManifests } from "@lockstep/kube-sim";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatMicroTime } from "@lockstep/lease-policy";
import { acquire, call, eventsOf, holdersInApi, startWorld, type World } from "../test-harness.js";

const { UPDATE, MAINTENANCE, FENCE, REBOOT, DEPROVISION } = {
  UPDATE: OperationType.OPERATION_TYPE_UPDATE,
  MAINTENANCE: OperationType.OPERATION_TYPE_MAINTENANCE,
  FENCE: OperationType.OPERATION_TYPE_FENCE,
  REBOOT: OperationType.OPERATION_TYPE_REBOOT,
  DEPROVISION: OperationType.OPERATION_TYPE_DEPROVISION,
};
const merge = () => setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const NM = { group: "nodemaintenance.medik8s.io", version: "v1beta1", plural: "nodemaintenances" };
const SNR = { group: "self-node-remediation.medik8s.io", version: "v1alpha1", plural: "selfnoderemediations", namespace: "openshift-workload-availability" };
const MACHINES = { group: "machine.openshift.io", version: "v1beta1", plural: "machines", namespace: "openshift-machine-api" };

let world: World;
const client = () => world.replicas[0]!.client;
const holder = async (node: string) => (await holdersInApi(world)).get(node);
const leases = () => call<object, ListResponse>(client(), "list", { operation: OperationType.OPERATION_TYPE_UNSPECIFIED, pool: "" });

beforeAll(async () => {
  world = await startWorld({
    nodes: [
      { name: "w1", pool: "worker" },
      { name: "w2", pool: "worker" },
      { name: "n1", pool: "infra" },
      { name: "n2", pool: "infra" },
      { name: "n3", pool: "infra" },
      { name: "n4", pool: "infra" },
      { name: "n5", pool: "infra" },
    ],
    pools: { worker: "1" },
    adapters: { enabled: ["nodemaintenance", "remediation", "kured", "machine", "machineconfig"], durationSeconds: 30, resyncMs: 200 },
  });
  for (const crd of medik8sCrdManifests()) await world.custom.createClusterCustomObject({ group: "apiextensions.k8s.io", version: "v1", plural: "customresourcedefinitions", body: crd });
  for (const ns of ["openshift-workload-availability", "openshift-machine-api", "kube-system"]) await world.core.createNamespace({ body: { metadata: { name: ns } } }).catch(() => undefined);
});

afterAll(async () => {
  await world?.stop();
});

/** Creates once the type is served (a CRD takes a moment after its creation). */
async function create(f: () => Promise<unknown>): Promise<void> {
  await waitFor(() => f().then(() => true, () => false), { what: "object created" });
}

describe("lease adapters", () => {
  it("a NodeMaintenance holds its node as Maintenance: listed, refusing others, released when deleted", async () => {
    await create(() => world.custom.createClusterCustomObject({ ...NM, body: { apiVersion: "nodemaintenance.medik8s.io/v1beta1", kind: "NodeMaintenance", metadata: { name: "nm-n1" }, spec: { nodeName: "n1", reason: "replace the NIC" } } }));
    await waitFor(async () => (await holder("n1")) === "adapter:nodemaintenance/nm-n1", { what: "the adapted lease on n1" });
    const listed = (await leases()).leases.find((l) => l.node === "n1");
    expect(listed).toMatchObject({ holder: "adapter:nodemaintenance/nm-n1", operation: MAINTENANCE, reason: "NodeMaintenance nm-n1: replace the NIC" });
    const denied = await acquire(client(), { node: "n1", holder: "mcc", operation: UPDATE });
    expect(denied).toMatchObject({ granted: false, deniedCode: "MaintenanceFlagged", deniedReason: "maintenance flagged: adapter:nodemaintenance/nm-n1, NodeMaintenance nm-n1: replace the NIC" });
    // The upgrade preflight names it as maintenance.
    const pre = await call<object, { warnings: Array<{ code: string; node: string }> }>(client(), "preflightUpgrade", {});
    expect(pre.warnings).toContainEqual(expect.objectContaining({ code: "MaintenanceFlagged", node: "n1" }));
    await world.custom.deleteClusterCustomObject({ ...NM, name: "nm-n1" });
    await waitFor(async () => (await holder("n1")) === undefined, { what: "released with the object" });
    expect(await acquire(client(), { node: "n1", holder: "mcc", operation: UPDATE })).toMatchObject({ granted: true });
    await call<object, ReleaseResponse>(client(), "release", { node: "n1", holder: "mcc" });
  });

  it("NMO's own medik8s Lease appearing beside the adapted one covers the NodeMaintenance: ours steps aside", async () => {
    await create(() => world.custom.createClusterCustomObject({ ...NM, body: { apiVersion: "nodemaintenance.medik8s.io/v1beta1", kind: "NodeMaintenance", metadata: { name: "nm-n5" }, spec: { nodeName: "n5" } } }));
    await waitFor(async () => (await holder("n5")) === "adapter:nodemaintenance/nm-n5", { what: "the adapted lease on n5" });
    await world.core.createNamespace({ body: { metadata: { name: "medik8s-leases" } } }).catch(() => undefined);
    // As NMO writes it (medik8s common lease: namespace medik8s-leases, name node-<node>, holder node-maintenance).
    const now = formatMicroTime(new Date()) as never; // MicroTime: the API server wants six fractional digits
    await world.coord.createNamespacedLease({
      namespace: "medik8s-leases",
      body: { metadata: { name: "node-n5" }, spec: { holderIdentity: "node-maintenance", leaseDurationSeconds: 3600, acquireTime: now, renewTime: now } },
    });
    await waitFor(async () => (await holder("n5")) === undefined, { what: "ours released, covered by NMO's own" });
    expect((await leases()).leases.filter((l) => l.node === "n5")).toEqual([expect.objectContaining({ holder: "node-maintenance", operation: MAINTENANCE, foreign: true })]);
    expect(eventsOf(world, "warning.raised").filter((e) => e.warning?.code === "AdapterConflict" && e.warning.node === "n5")).toEqual([]);
    await world.custom.deleteClusterCustomObject({ ...NM, name: "nm-n5" });
    await world.coord.deleteNamespacedLease({ namespace: "medik8s-leases", name: "node-n5" });
  });

  it("a remediation meeting another holder is not recorded over it: warned once naming both, recorded once free", async () => {
    expect(await acquire(client(), { node: "n2", holder: "mcc", operation: UPDATE, durationSeconds: 60 })).toMatchObject({ granted: true });
    await create(() =>
      world.custom.createNamespacedCustomObject({ ...SNR, body: { apiVersion: "self-node-remediation.medik8s.io/v1alpha1", kind: "SelfNodeRemediation", metadata: { name: "n2" }, spec: { remediationStrategy: "Automatic" } } }),
    );
    const warning = await waitFor(() => eventsOf(world, "warning.raised").find((e) => e.warning?.code === "AdapterConflict" && e.warning.node === "n2"), { what: "the AdapterConflict warning" });
    expect(warning.warning.message).toBe(
      "SelfNodeRemediation openshift-workload-availability/n2 is carrying out Fence on n2 outside Lockstep, but its lease cannot be recorded: n2 is held by mcc (Update) [Held]; recorded as soon as the coordinator allows it",
    );
    await new Promise((r) => setTimeout(r, 1_000)); // several resyncs: the same refusal is not raised again
    expect(eventsOf(world, "warning.raised").filter((e) => e.warning?.code === "AdapterConflict" && e.warning.node === "n2")).toHaveLength(1);
    expect(await holder("n2")).toBe("mcc");
    await call<object, ReleaseResponse>(client(), "release", { node: "n2", holder: "mcc" });
    await waitFor(async () => (await holder("n2")) === "adapter:selfnoderemediation/openshift-workload-availability/n2", { what: "recorded once free" });
    expect((await leases()).leases.find((l) => l.node === "n2")).toMatchObject({ operation: FENCE });
    await world.custom.deleteNamespacedCustomObject({ ...SNR, name: "n2" });
    await waitFor(async () => (await holder("n2")) === undefined, { what: "released with the CR" });
  });

  it("kured's lock counts against the pool's budget while held, and lapses with its TTL", async () => {
    const apps = world.kc.makeApiClient(AppsV1Api);
    const lock = (created: Date, ttlSeconds: number) => JSON.stringify({ nodeID: "w1", metadata: { unschedulable: false }, created: created.toISOString(), TTL: ttlSeconds * 1e9 });
    await apps.createNamespacedDaemonSet({
      namespace: "kube-system",
      body: { metadata: { name: "kured", annotations: { "weave.works/kured-node-lock": lock(new Date(), 3600) } }, spec: { selector: { matchLabels: { name: "kured" } }, template: { metadata: { labels: { name: "kured" } } } } },
    });
    await waitFor(async () => (await holder("w1")) === "adapter:kured/w1", { what: "kured's lease on w1" });
    expect((await leases()).leases.find((l) => l.node === "w1")).toMatchObject({ operation: REBOOT });
    // The worker pool allows one disruption at a time: the adapted reboot takes it.
    expect(await acquire(client(), { node: "w2", holder: "mcc", operation: UPDATE })).toMatchObject({ granted: false, deniedCode: "BudgetExhausted" });
    // A lock taken 2 s ago with a 3 s TTL: the lease goes when the TTL is over, with nobody touching the DaemonSet.
    await apps.patchNamespacedDaemonSet({ namespace: "kube-system", name: "kured", body: { metadata: { annotations: { "weave.works/kured-node-lock": lock(new Date(Date.now() - 2_000), 3) } } } }, merge());
    await waitFor(async () => (await holder("w1")) === undefined, { timeoutMs: 10_000, what: "released when the TTL ran out" });
    expect(await acquire(client(), { node: "w2", holder: "mcc", operation: UPDATE })).toMatchObject({ granted: true });
    await call<object, ReleaseResponse>(client(), "release", { node: "w2", holder: "mcc" });
    const ds = await apps.readNamespacedDaemonSet({ namespace: "kube-system", name: "kured" });
    expect(ds.metadata?.annotations?.["weave.works/kured-node-lock"]).toContain('"nodeID":"w1"'); // never edited by the adapter
  });

  it("a deleting Machine holds its node as Deprovision until it is gone", async () => {
    await create(() => world.custom.createNamespacedCustomObject({ ...MACHINES, body: { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: "m-n3", finalizers: ["machine.machine.openshift.io"] }, spec: {} } }));
    await world.custom.patchNamespacedCustomObjectStatus({ ...MACHINES, name: "m-n3", body: { status: { phase: "Running", nodeRef: { kind: "Node", name: "n3" } } } }, merge());
    await world.custom.deleteNamespacedCustomObject({ ...MACHINES, name: "m-n3" });
    await waitFor(async () => (await holder("n3")) === "adapter:machine/openshift-machine-api/m-n3", { what: "the Deprovision lease" });
    expect((await leases()).leases.find((l) => l.node === "n3")).toMatchObject({ operation: DEPROVISION });
    expect(await acquire(client(), { node: "n3", holder: "mcc", operation: UPDATE })).toMatchObject({ granted: false, deniedCode: "Held" });
    await world.custom.patchNamespacedCustomObject({ ...MACHINES, name: "m-n3", body: { metadata: { finalizers: null } } }, merge());
    await waitFor(async () => (await holder("n3")) === undefined, { what: "released when the Machine is gone" });
  });

  it("the MCO's update is recorded while the daemon works, covered when the MCO holds its own Update lease", async () => {
    const mco = (state: string, desired: string) => ({
      metadata: { annotations: { "machineconfiguration.openshift.io/state": state, "machineconfiguration.openshift.io/currentConfig": "rendered-infra-a", "machineconfiguration.openshift.io/desiredConfig": desired } },
    });
    await world.core.patchNode({ name: "n4", body: mco("Working", "rendered-infra-b") }, merge());
    await waitFor(async () => (await holder("n4")) === "adapter:machineconfig/n4", { what: "the Update lease" });
    expect((await leases()).leases.find((l) => l.node === "n4")).toMatchObject({ operation: UPDATE });
    // A maintenance asked for now meets the update in progress (the maintenance↔update warning).
    expect(await acquire(client(), { node: "n4", holder: "alice", operation: MAINTENANCE, durationSeconds: 600 })).toMatchObject({ granted: false, deniedCode: "UpdateInProgress" });
    await world.core.patchNode({ name: "n4", body: mco("Done", "rendered-infra-b") }, merge());
    await waitFor(async () => (await holder("n4")) === undefined, { what: "released when Done" });
    // An MCO that asks Lockstep itself: its own lease covers the signal, no second holder, no warning.
    expect(await acquire(client(), { node: "n4", holder: "machine-config-controller", operation: UPDATE, durationSeconds: 60 })).toMatchObject({ granted: true });
    const before = eventsOf(world, "warning.raised").filter((e) => e.warning?.node === "n4").length;
    await world.core.patchNode({ name: "n4", body: mco("Working", "rendered-infra-c") }, merge());
    await new Promise((r) => setTimeout(r, 1_000));
    expect(await holder("n4")).toBe("machine-config-controller");
    expect(eventsOf(world, "warning.raised").filter((e) => e.warning?.node === "n4").length).toBe(before);
  });
});
