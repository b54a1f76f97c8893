// Integration: kube-sim over HTTP, a real nats-server, the watcher and the skew-enforcer in-process,
// SkewService over real gRPC. The small cluster is seeded by hand (no cluster-sim).
import { credentials, status as grpcStatus, type ServiceError } from "@grpc/grpc-js";
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from "@kubernetes/client-node";
import { closeBus, connectBus, ensureStateBucket } from "@lockstep/bus";
import {
  type CheckScaleUpResponse,
  type CheckUpgradeResponse,
  encode,
  Events,
  EVENTS_STREAM,
  PoolState,
  SkewServiceClient,
  SkewServiceService,
  type GetSkewReportResponse,
} from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeObject, type KubeSim } from "@lockstep/kube-sim";
import type { WorkQueue } from "@lockstep/reconcile";
import { createMetricsRegistry, silentLogger, startGrpcServer, type GrpcServerHandle } from "@lockstep/runtime";
import { TEST_WATCHER_OPTIONS, TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { jetstreamManager } from "@nats-io/jetstream";
import type { NatsConnection } from "@nats-io/transport-node";
import type { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { skewServiceImpl } from "./api/skew-service.js";
import { REASON_HOT_LOOP, type SkewEnforcer } from "./enforcer/enforcer.js";
import { skewEnforcer } from "./runnable.js";
import { DEFAULT_SKEW_SETTINGS } from "@lockstep/skew-rules";

const MCO = "machineconfiguration.openshift.io/";
const OLD = "4.15.9";
const CURRENT = "4.16.5";
const MS_NAMESPACE = "openshift-machine-api";
const MS_NAME = "test-worker-us-east-1a";

const stream = {
  stream: "rhcos-9.4",
  architectures: { x86_64: { images: { aws: { regions: { "us-east-1": { release: "9.4.20250101-0", image: "ami-stream" } } } } } },
};

function node(name: string, role: string, config: string): KubeObject {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: {
      name,
      labels: { [`node-role.kubernetes.io/${role}`]: "", "kubernetes.io/os": "linux" },
      annotations: { [`${MCO}currentConfig`]: config, [`${MCO}desiredConfig`]: config, [`${MCO}state`]: "Done" },
    },
    status: { conditions: [{ type: "Ready", status: "True", reason: "KubeletReady", message: "ready", lastTransitionTime: "2026-01-01T00:00:00Z" }] },
  };
}

function renderedConfig(name: string, release: string): KubeObject {
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfig",
    metadata: { name, annotations: { [`${MCO}release-image-version`]: release, [`${MCO}generated-by-controller-version`]: "abc123" } },
    spec: { config: { ignition: { version: "3.4.0" } } },
  };
}

function pool(name: string, o: { current: string; target: string; paused: boolean; machines: number; updated: number; labels?: Record<string, string> }): KubeObject {
  return {
    apiVersion: "machineconfiguration.openshift.io/v1",
    kind: "MachineConfigPool",
    metadata: { name, labels: o.labels ?? {} },
    spec: { paused: o.paused, nodeSelector: { matchLabels: { [`node-role.kubernetes.io/${name}`]: "" } }, configuration: { name: o.target } },
    status: {
      configuration: { name: o.current },
      machineCount: o.machines,
      updatedMachineCount: o.updated,
      readyMachineCount: o.updated,
      unavailableMachineCount: 0,
      degradedMachineCount: 0,
      conditions: [
        { type: "Degraded", status: "False", reason: "", message: "" },
        { type: "Updated", status: o.current === o.target ? "True" : "False", reason: "", message: "" },
        { type: "Updating", status: "False", reason: "", message: "" },
      ],
    },
  };
}

const cluster: KubeObject[] = [
  node("master-0", "master", "rendered-master-new"),
  node("worker-0", "worker", "rendered-worker-old"),
  node("worker-1", "worker", "rendered-worker-old"),
  renderedConfig("rendered-master-new", CURRENT),
  renderedConfig("rendered-worker-old", OLD),
  renderedConfig("rendered-worker-new", CURRENT),
  pool("master", { current: "rendered-master-new", target: "rendered-master-new", paused: false, machines: 1, updated: 1, labels: { "operator.machineconfiguration.openshift.io/required-for-upgrade": "" } }),
  pool("worker", { current: "rendered-worker-old", target: "rendered-worker-new", paused: true, machines: 2, updated: 0 }),
  {
    apiVersion: "config.openshift.io/v1",
    kind: "ClusterVersion",
    metadata: { name: "version" },
    spec: { channel: "stable-4.16", clusterID: "c0ffee00-0000-4000-8000-000000000001" },
    status: {
      desired: { version: CURRENT, image: "quay.io/openshift-release-dev/ocp-release@sha256:1111" },
      history: [
        { state: "Completed", version: CURRENT, image: "quay.io/openshift-release-dev/ocp-release@sha256:1111", startedTime: "2026-02-01T10:00:00Z", completionTime: "2026-02-01T11:00:00Z", verified: true },
        { state: "Completed", version: OLD, image: "quay.io/openshift-release-dev/ocp-release@sha256:0000", startedTime: "2025-12-01T10:00:00Z", completionTime: "2025-12-01T11:00:00Z", verified: true },
      ],
    },
  },
  {
    apiVersion: "config.openshift.io/v1",
    kind: "Infrastructure",
    metadata: { name: "cluster" },
    spec: {},
    status: { platform: "AWS", platformStatus: { type: "AWS", aws: { region: "us-east-1" } }, controlPlaneTopology: "HighlyAvailable", infrastructureTopology: "HighlyAvailable", infrastructureName: "test-x7k2p" },
  },
  {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "coreos-bootimages", namespace: "openshift-machine-config-operator" },
    data: { stream: JSON.stringify(stream), releaseVersion: CURRENT },
  },
  {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    metadata: { name: MS_NAME, namespace: MS_NAMESPACE },
    spec: {
      replicas: 2,
      template: { spec: { providerSpec: { value: { kind: "AWSMachineProviderConfig", ami: { id: "ami-custom" }, placement: { region: "us-east-1" } } } } },
    },
  },
];

let sim: KubeSim;
let nats: NatsServer;
let kc: KubeConfig;
let core: CoreV1Api;
let custom: CustomObjectsApi;
let nc: NatsConnection;
let grpcServer: GrpcServerHandle;
let client: SkewServiceClient;
let watcherStop = new AbortController();
let watcherRun: Promise<unknown>;
/** kube-sim, nats-server, the watcher and the test's bus connection. */
const stack = new TestStack();

/** The running enforcer; replaced by a restart. The gRPC server always answers from the current one. */
let enforcer: SkewEnforcer;
let queue: WorkQueue;
let registry: Registry;
let enforcerStop: AbortController;
let enforcerRun: Promise<void>;

function startEnforcer(extra: { stateMaxAgeMs?: number } = {}): void {
  registry = createMetricsRegistry({ defaultMetrics: false });
  enforcerStop = new AbortController();
  const started = skewEnforcer({
    kc,
    bus: { servers: nats.url },
    logger: silentLogger(),
    registry,
    settings: DEFAULT_SKEW_SETTINGS,
    namespace: "lockstep",
    operatorVersion: "0.1.0-test",
    ...extra,
  });
  ({ enforcer, queue } = started);
  enforcerRun = started.runnable.start(enforcerStop.signal);
}

async function stopEnforcer(): Promise<void> {
  enforcerStop.abort();
  await enforcerRun;
}

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift", objects: cluster }));
  nats = await stack.nats();
  kc = kubeConfigForUrl(sim.url);
  core = kc.makeApiClient(CoreV1Api);
  custom = kc.makeApiClient(CustomObjectsApi);
  watcherRun = stack.run(watcherRunnable({ kc, bus: { servers: nats.url }, logger: silentLogger(), ...TEST_WATCHER_OPTIONS, heartbeatIntervalMs: 200 }), watcherStop.signal);
  startEnforcer();
  grpcServer = await startGrpcServer({
    port: 0,
    host: "127.0.0.1",
    services: [[SkewServiceService, skewServiceImpl({ evaluate: () => enforcer.evaluate(), viewFreshness: () => enforcer.viewFreshness(), machineSet: (ns, n) => enforcer.machineSet(ns, n), bootImages: () => enforcer.bootImages() }, silentLogger())]],
  });
  client = new SkewServiceClient(`127.0.0.1:${grpcServer.port}`, credentials.createInsecure());
  nc = await connectBus({ servers: nats.url });
  stack.defer(() => closeBus(nc));
});

afterAll(async () => {
  client?.close();
  await grpcServer?.stop(500);
  await stopEnforcer();
  await stack.close();
});

// --- helpers -------------------------------------------------------------------------------

const merge = () => setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const MCP = { group: "machineconfiguration.openshift.io", version: "v1", plural: "machineconfigpools" };
const BIP = { group: "lockstep.io", version: "v1alpha1", plural: "bootimagepolicies" };
const CO = { group: "config.openshift.io", version: "v1", plural: "clusteroperators" };

function call<Req, Res>(method: (req: Req, cb: (err: ServiceError | null, res: Res) => void) => unknown, req: Req): Promise<Res> {
  return new Promise((resolve, reject) => method.call(client, req, (err: ServiceError | null, res: Res) => (err ? reject(err) : resolve(res))));
}
const checkUpgrade = (targetVersion: string, force = false) => call<{ targetVersion: string; force: boolean }, CheckUpgradeResponse>(client.checkUpgrade, { targetVersion, force });
const checkScaleUp = (namespace: string, machineSet: string) => call<{ namespace: string; machineSet: string }, CheckScaleUpResponse>(client.checkScaleUp, { namespace, machineSet });
const reportResponse = () => call<object, GetSkewReportResponse>(client.getSkewReport, {});
const report = async () => (await reportResponse()).report!;

interface Cond {
  type: string;
  status: string;
  reason: string;
  message: string;
}
async function clusterOperator(): Promise<{ conditions: Cond[]; versions: unknown[]; relatedObjects: unknown[] } | undefined> {
  try {
    const co = (await custom.getClusterCustomObject({ ...CO, name: "lockstep" })) as { status?: { conditions?: Cond[]; versions?: unknown[]; relatedObjects?: unknown[] } };
    return { conditions: co.status?.conditions ?? [], versions: co.status?.versions ?? [], relatedObjects: co.status?.relatedObjects ?? [] };
  } catch {
    return undefined;
  }
}
async function condition(type: string): Promise<Cond | undefined> {
  return (await clusterOperator())?.conditions.find((c) => c.type === type);
}
async function waitForCondition(type: string, match: Partial<Cond>): Promise<Cond> {
  return waitFor(
    async () => {
      const c = await condition(type);
      return c && Object.entries(match).every(([k, v]) => c[k as keyof Cond] === v) ? c : undefined;
    },
    { timeoutMs: 20_000, what: `ClusterOperator lockstep ${type} ${JSON.stringify(match)}` },
  );
}

async function counter(name: string, labels: Record<string, string> = {}): Promise<number> {
  const metric = await registry.getSingleMetric(name)?.get();
  return (metric?.values ?? []).filter((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l)).reduce((n, v) => n + v.value, 0);
}

async function eventsOn(subject: string): Promise<number> {
  const jsm = await jetstreamManager(nc);
  const info = await jsm.streams.info(EVENTS_STREAM, { subjects_filter: subject });
  return info.state.subjects?.[subject] ?? 0;
}

async function lastEvent<T>(type: { subject: string; codec: { decode(b: Uint8Array): T } }): Promise<T | undefined> {
  const jsm = await jetstreamManager(nc);
  const m = await jsm.streams.getMessage(EVENTS_STREAM, { last_by_subj: type.subject });
  return m ? type.codec.decode(m.data) : undefined;
}

/** Forces a re-evaluation (a harmless node label) and waits until the enforcer has made it. */
async function nudge(): Promise<void> {
  const before = await counter("lockstep_skew_evaluations_total");
  await core.patchNode({ name: "master-0", body: { metadata: { labels: { "lockstep.test/nudge": String(Date.now()) } } } }, merge());
  await waitFor(async () => (await counter("lockstep_skew_evaluations_total")) > before, { timeoutMs: 20_000, what: "a new evaluation" });
  await queue.idle();
}

// --- cases ---------------------------------------------------------------------------------

describe("skew-enforcer", () => {
  it("creates ClusterOperator lockstep with Upgradeable=False PausedPoolLagging for a paused worker pool a minor behind", async () => {
    const upgradeable = await waitForCondition("Upgradeable", { status: "False", reason: "PausedPoolLagging" });
    expect(upgradeable.message).toContain(`lag behind the control plane release ${CURRENT}`);
    expect(upgradeable.message).toContain(
      `paused pool worker: 0 of 2 nodes updated, on rendered-worker-old (release ${OLD}), target rendered-worker-new (release ${CURRENT})`,
    );
    expect(upgradeable.message).toContain(`oc patch mcp worker --type merge -p '{"spec":{"paused":false}}'`);
    const co = (await clusterOperator())!;
    expect(co.versions).toEqual([{ name: "operator", version: "0.1.0-test" }]);
    expect(co.relatedObjects).toEqual(
      expect.arrayContaining([
        { group: "", resource: "namespaces", name: "lockstep" },
        { group: "machineconfiguration.openshift.io", resource: "machineconfigpools", name: "worker" },
      ]),
    );
    expect(co.conditions.map((c) => `${c.type}=${c.status}`).sort()).toEqual(["Available=True", "Degraded=False", "Progressing=True", "Upgradeable=False"]);
    expect((await condition("Progressing"))!.message).toContain("pool worker is paused: 0 of 2 nodes at 4.16.5");
    expect(await counter("lockstep_skew_upgradeable")).toBe(0);

    await waitFor(() => eventsOn(Events.upgradeableChanged.subject), { what: "upgradeable.changed" });
    expect(await lastEvent(Events.upgradeableChanged)).toMatchObject({ upgradeable: false, reason: "PausedPoolLagging" });
    expect((await lastEvent(Events.skewEvaluated))?.report).toMatchObject({ upgradeable: false, controlPlaneVersion: CURRENT, incompletePools: ["worker"] });
    expect((await report()).completionMessage).toBe(
      `update to ${CURRENT} is not complete: pool worker is paused: 0 of 2 nodes at ${CURRENT}; unpause it to finish the update`,
    );
  });

  it("refuses the next minor over the lagging pool and lets a z-stream through; force bypasses and is recorded", async () => {
    const minor = await checkUpgrade("4.17.0");
    expect(minor).toMatchObject({ allowed: false, kind: "Minor", reasons: ["PausedPoolLagging"], forced: false });
    expect(minor.message).toContain("paused pool worker");
    expect(await checkUpgrade("4.16.6")).toMatchObject({ allowed: true, kind: "ZStream", reasons: [] });
    const forced = await checkUpgrade("4.17.0", true);
    expect(forced).toMatchObject({ allowed: true, forced: true, reasons: ["PausedPoolLagging"] });
    expect(forced.message).toMatch(/^Forced through blocking failures: PausedPoolLagging/);
    const r = await report();
    expect(r.laggingPools).toEqual([
      { pool: "worker", reason: "PausedPoolLagging", poolVersion: OLD, machineCount: 2, updatedMachineCount: 0, degradedMachineCount: 0, paused: true },
    ]);
  });

  it("answers bad input with INVALID_ARGUMENT and an unknown MachineSet with NOT_FOUND", async () => {
    await expect(checkUpgrade("")).rejects.toMatchObject({ code: grpcStatus.INVALID_ARGUMENT });
    await expect(checkUpgrade("four.seventeen")).rejects.toMatchObject({ code: grpcStatus.INVALID_ARGUMENT });
    await expect(checkScaleUp("", MS_NAME)).rejects.toMatchObject({ code: grpcStatus.INVALID_ARGUMENT });
    await expect(checkScaleUp(MS_NAMESPACE, "Not_A_Name")).rejects.toMatchObject({ code: grpcStatus.INVALID_ARGUMENT });
    await expect(checkScaleUp(MS_NAMESPACE, "no-such-machineset")).rejects.toMatchObject({ code: grpcStatus.NOT_FOUND });
  });

  it("survives malformed objects in the state plane", async () => {
    const kv = await ensureStateBucket(nc);
    await kv.put("pool.garbage", new Uint8Array([0xff, 0xff, 0xff, 0x07]));
    // Decodable but nonsensical: an unknown selector operator and configs that do not exist.
    const odd = PoolState.fromPartial({
      name: "odd",
      paused: true,
      nodeSelector: { matchExpressions: [{ key: "x", operator: "Sometimes", values: [] }] },
      currentConfig: "rendered-missing",
      targetConfig: "rendered-also-missing",
      counters: { machineCount: -5 },
    });
    await kv.put("pool.odd", encode(PoolState, odd));
    await nudge();
    expect(enforcer.synced).toBe(true);
    const r = await report();
    expect(r.reason).toBe("PausedPoolLagging");
    expect(r.laggingPools.map((p) => p.pool)).toEqual(["odd", "worker"]);
    expect(await checkUpgrade("4.16.6")).toMatchObject({ allowed: true });
    await kv.delete("pool.odd");
    await kv.delete("pool.garbage");
    await waitFor(async () => (await report()).laggingPools.length === 1, { what: "the odd pool gone" });
  });

  it("re-reads and decides again after a 409 on its ClusterOperator status write", async () => {
    sim.faults.add({ errors: [{ code: 409, probability: 1, verb: "update", resource: "clusteroperators/status" }] });
    try {
      // Unpausing changes the verdict: the worker pool now lags as an unfinished rollout.
      await custom.patchClusterCustomObject({ ...MCP, name: "worker", body: { spec: { paused: false } } }, merge());
      await waitFor(async () => (await counter("lockstep_skew_cluster_operator_writes_total", { result: "conflict" })) >= 2, { what: "conflicts" });
      expect((await condition("Upgradeable"))?.reason).toBe("PausedPoolLagging");
    } finally {
      sim.faults.clear();
    }
    const upgradeable = await waitForCondition("Upgradeable", { status: "False", reason: "PoolUpdating" });
    expect(upgradeable.message).toContain("pool worker: 0 of 2 nodes updated");
  });

  it("turns Upgradeable=True once the pool finished and publishes update.completed exactly once", async () => {
    expect(await eventsOn(Events.updateCompleted.subject)).toBe(0);
    for (const name of ["worker-0", "worker-1"]) {
      await core.patchNode(
        { name, body: { metadata: { annotations: { [`${MCO}currentConfig`]: "rendered-worker-new", [`${MCO}desiredConfig`]: "rendered-worker-new", [`${MCO}state`]: "Done" } } } },
        merge(),
      );
    }
    await custom.patchClusterCustomObjectStatus(
      { ...MCP, name: "worker", body: { status: { configuration: { name: "rendered-worker-new" }, updatedMachineCount: 2, readyMachineCount: 2 } } },
      merge(),
    );
    await waitForCondition("Upgradeable", { status: "True", reason: "AsExpected" });
    await waitForCondition("Progressing", { status: "False" });
    await waitFor(() => eventsOn(Events.updateCompleted.subject), { what: "update.completed" });
    expect(await lastEvent(Events.updateCompleted)).toMatchObject({ version: CURRENT, pools: ["master", "worker"], nodes: 3 });
    expect(await lastEvent(Events.upgradeableChanged)).toMatchObject({ upgradeable: true, reason: "AsExpected" });
    expect(await checkUpgrade("4.17.0")).toMatchObject({ allowed: true, kind: "Minor", reasons: [] });
    expect(await counter("lockstep_skew_upgradeable")).toBe(1);

    // Further evaluations, and a restarted enforcer, do not repeat the fact; an unchanged report is not re-announced.
    const evaluated = await eventsOn(Events.skewEvaluated.subject);
    await nudge();
    expect(await eventsOn(Events.skewEvaluated.subject)).toBe(evaluated);
    await stopEnforcer();
    startEnforcer();
    await waitFor(() => enforcer.synced, { what: "restarted enforcer synced" });
    await nudge();
    expect(await eventsOn(Events.updateCompleted.subject)).toBe(1);
  });

  it("blocks on a boot image record below the limit, refuses the MachineSet's scale-up, and allows both once the record is raised", async () => {
    await custom.createClusterCustomObject({
      ...BIP,
      body: {
        apiVersion: "lockstep.io/v1alpha1",
        kind: "BootImagePolicy",
        metadata: { name: "cluster" },
        spec: { managedBootImages: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }] } },
      },
    });
    const recordStatus = (ocpVersion: string) => ({
      status: {
        managedBootImagesStatus: { machineManagers: [{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }] },
        bootImageSkewEnforcementStatus: { mode: "Automatic", automatic: { ocpVersion } },
        conditions: [
          { type: "BootImageUpdateProgressing", status: "False", reason: "Completed", message: "", lastTransitionTime: "2026-02-01T12:00:00Z" },
          { type: "BootImageUpdateDegraded", status: "False", reason: "AsExpected", message: "", lastTransitionTime: "2026-02-01T12:00:00Z" },
        ],
      },
    });
    await custom.patchClusterCustomObjectStatus({ ...BIP, name: "cluster", body: recordStatus("4.12.0") }, merge());

    const blocked = await waitForCondition("Upgradeable", { status: "False", reason: "ClusterBootImageSkewError" });
    expect(blocked.message).toBe(
      "Upgrades have been disabled because the cluster is using OCP boot image version 4.12.0, which is below the minimum required version 4.13.0. " +
        "To enable upgrades, please update your boot images or disable boot image skew enforcement by following the documentation at " +
        "https://docs.redhat.com/en/documentation/openshift_container_platform/4.16/html/machine_configuration/mco-update-boot-skew-mgmt",
    );
    expect((await condition("Degraded"))?.status).toBe("False");
    expect(await checkUpgrade("4.17.0")).toMatchObject({ allowed: false, reasons: ["ClusterBootImageSkewError"] });
    expect(await checkUpgrade("4.16.6")).toMatchObject({ allowed: true, kind: "ZStream" });
    const refused = await checkScaleUp(MS_NAMESPACE, MS_NAME);
    expect(refused).toMatchObject({ allowed: false, reason: "BootImageTooOld" });
    expect(refused.message).toContain("the cluster boot image record is OCP 4.12.0, below the minimum 4.13.0");
    expect((await report()).bootImage).toMatchObject({ mode: "Automatic", ocpVersion: "4.12.0", violated: true });

    await custom.patchClusterCustomObjectStatus({ ...BIP, name: "cluster", body: recordStatus(CURRENT) }, merge());
    await waitForCondition("Upgradeable", { status: "True", reason: "AsExpected" });
    expect(await checkScaleUp(MS_NAMESPACE, MS_NAME)).toMatchObject({ allowed: true, reason: "AsExpected" });
    expect(await checkUpgrade("4.17.0")).toMatchObject({ allowed: true });
  });

  it("refuses the same status write a third time and reports the hot loop as Degraded", async () => {
    // Another writer keeps undoing Lockstep's status.
    const meddle = async () => {
      const co = (await custom.getClusterCustomObject({ ...CO, name: "lockstep" })) as { metadata: Record<string, unknown>; status: { conditions: Cond[] } };
      const conditions = co.status.conditions.map((c) => (c.type === "Upgradeable" ? { ...c, status: "False", reason: "Meddled", message: "someone else" } : c));
      await custom.replaceClusterCustomObjectStatus({ ...CO, name: "lockstep", body: { ...co, status: { ...co.status, conditions } } });
    };
    for (let round = 1; round <= 2; round++) {
      await meddle();
      await waitForCondition("Upgradeable", { status: "True", reason: "AsExpected" });
    }
    await meddle();
    const degraded = await waitForCondition("Degraded", { status: "True", reason: REASON_HOT_LOOP });
    expect(degraded.message).toContain("keeps being undone");
    expect(await counter("lockstep_skew_cluster_operator_writes_total", { result: "refused" })).toBeGreaterThanOrEqual(1);
  });

  it("fails closed while the watcher is silent: Upgradeable=False StateStale, the rest held, no facts; back once heard", async () => {
    await stopEnforcer();
    startEnforcer({ stateMaxAgeMs: 1_000 });
    await waitForCondition("Upgradeable", { status: "True", reason: "AsExpected" });
    await new Promise((r) => setTimeout(r, 600)); // heartbeats (every 200 ms) heard live
    const progressing = await condition("Progressing");
    const completed = await eventsOn(Events.updateCompleted.subject);

    watcherStop.abort();
    await watcherRun;
    const stale = await waitForCondition("Upgradeable", { status: "False", reason: "StateStale" });
    expect(stale.message).toMatch(/the watcher has not been heard from since \S+Z\. Minor upgrades are blocked until it is heard from again/);
    expect(await condition("Progressing")).toEqual(progressing);
    expect(await counter("lockstep_state_age_seconds")).toBeGreaterThan(1);
    // The answers fail closed as the ClusterOperator does, in its words, and say how old the view is.
    const refused = await checkUpgrade("4.17.0");
    expect(refused).toMatchObject({ allowed: false, kind: "Minor", reasons: ["StateStale"], message: stale.message, freshness: { stale: true, maxAgeSeconds: 1, heard: true } });
    expect(refused.freshness!.ageSeconds).toBeGreaterThan(1);
    expect(await checkUpgrade("4.16.6")).toMatchObject({ allowed: true, kind: "ZStream", message: "z-stream update from 4.16.5 to 4.16.6 is not blocked by StateStale", freshness: { stale: true } });
    expect(await report()).toMatchObject({ upgradeable: false, reason: "StateStale", message: stale.message });
    expect((await reportResponse()).freshness).toMatchObject({ stale: true, maxAgeSeconds: 1 });
    const scaleUp = await checkScaleUp(MS_NAMESPACE, MS_NAME);
    expect(scaleUp).toMatchObject({ allowed: false, reason: "StateStale", freshness: { stale: true, maxAgeSeconds: 1 } });
    expect(scaleUp.message).toMatch(/the watcher has not been heard from since \S+Z\. Scaling up is refused until it is heard from again/);

    watcherStop = new AbortController();
    watcherRun = stack.run(watcherRunnable({ kc, bus: { servers: nats.url }, logger: silentLogger(), ...TEST_WATCHER_OPTIONS, heartbeatIntervalMs: 200 }), watcherStop.signal);
    await waitForCondition("Upgradeable", { status: "True", reason: "AsExpected" });
    expect(await checkUpgrade("4.17.0")).toMatchObject({ allowed: true, kind: "Minor", reasons: [], freshness: { stale: false } });
    expect(await reportResponse()).toMatchObject({ report: { upgradeable: true, reason: "AsExpected" }, freshness: { stale: false, heard: true } });
    expect(await eventsOn(Events.updateCompleted.subject)).toBe(completed);
  });

  it("re-creates ClusterOperator lockstep when it is deleted", async () => {
    await custom.deleteClusterCustomObject({ ...CO, name: "lockstep" });
    await waitForCondition("Upgradeable", { status: "True", reason: "AsExpected" });
    expect((await clusterOperator())?.versions).toEqual([{ name: "operator", version: "0.1.0-test" }]);
    expect(await counter("lockstep_skew_cluster_operator_writes_total", { result: "created" })).toBeGreaterThanOrEqual(1);
  });
});
