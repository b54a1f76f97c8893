// Integration: kube-sim over real HTTP, a real nats-server, the watcher and the updater in-process,
// BootImageService over real gRPC. kube-sim is seeded by hand with an AWS cluster.
import { credentials } from "@grpc/grpc-js";
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from "@kubernetes/client-node";
import { closeBus, connectBus, consumeEvents, ensureStateBucket, StateCache } from "@lockstep/bus";
import {
  BootImageServiceClient,
  BootImageServiceService,
  encode,
  EVENT_SUBJECT_PREFIX,
  Events,
  MachineSetState,
  stateKey,
  type BootImageSkipped,
  type BootImageUpdated,
  type BootImageUpdateFailed,
  type DecodedEvent,
  type GetStatusResponse,
  type PreviewResponse,
} from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { createMetricsRegistry, silentLogger, startGrpcServer, type GrpcServerHandle } from "@lockstep/runtime";
import { TEST_WATCHER_OPTIONS, TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { watcherRunnable } from "@lockstep/watcher";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOT_LOOP_LIMIT, hotLoopMessage } from "./bootimages/index.js";
import { awsProviderSpec } from "./bootimages/testdata/provider-specs.js";
import { streamDocument } from "./bootimages/testdata/stream.js";
import { bootImageService } from "./api/boot-image-service.js";
import { bootImageUpdater } from "./runnable.js";
import { PATCH_FAILURES_METRIC } from "./updater/patch-metrics.js";
import type { PassReport } from "./updater/updater.js";

const OLD_AMI = "ami-0c5d3e3b4f3d1c7e2";
const NEW_AMI = "ami-0e0a1b2c3d4e5f601"; // the stream's us-east-1 x86_64 AMI
const NEXT_AMI = "ami-0f0f0f0f0f0f0f0f1";
const CUSTOM_AMI = "ami-0custom000000000";
const MAPI = "openshift-machine-api";
const MCO = "openshift-machine-config-operator";

let sim: KubeSim;
let nats: NatsServer;
let kc: KubeConfig;
let custom: CustomObjectsApi;
let core: CoreV1Api;
let nc: Awaited<ReturnType<typeof connectBus>>;
let state: StateCache;
let grpc: GrpcServerHandle;
let client: InstanceType<typeof BootImageServiceClient>;
const stack = new TestStack();
/** The watcher alone, so a test can stop it and start it again. */
let watcherStop = new AbortController();
const registry = createMetricsRegistry({ defaultMetrics: false });
function startWatcher(): void {
  stack.run(watcherRunnable({ kc, bus: { servers: nats.url }, logger: silentLogger(), ...TEST_WATCHER_OPTIONS, heartbeatIntervalMs: 200 }), watcherStop.signal);
}
const events: DecodedEvent[] = [];
const passes: PassReport[] = [];
/** Every committed MachineSet state: name → AMI ids in commit order. */
const amiWrites = new Map<string, string[]>();
let reverting = false;

const merge = () => setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
const ms = (group: string, version: string, plural: string) => ({ group, version, plural });
const MS = ms("machine.openshift.io", "v1beta1", "machinesets");
const CV = ms("config.openshift.io", "v1", "clusterversions");
const INFRA = ms("config.openshift.io", "v1", "infrastructures");
const BIP = ms("lockstep.io", "v1alpha1", "bootimagepolicies");

function machineSet(name: string, ami: string, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: "machine.openshift.io/v1beta1",
    kind: "MachineSet",
    metadata: { name, namespace: MAPI, labels: { "machine.openshift.io/cluster-api-cluster": "prod-east-x7k2p" }, ...extra },
    spec: { replicas: 2, template: { metadata: { labels: {} }, spec: { providerSpec: { value: awsProviderSpec(ami) } } } },
  };
}
const createMachineSet = (body: object) => custom.createNamespacedCustomObject({ ...MS, namespace: MAPI, body });
const deleteMachineSet = (name: string) => custom.deleteNamespacedCustomObject({ ...MS, namespace: MAPI, name });
const setAmi = (name: string, ami: string) =>
  custom.patchNamespacedCustomObject({ ...MS, namespace: MAPI, name, body: { spec: { template: { spec: { providerSpec: { value: { ami: { id: ami } } } } } } } }, merge());
const writesTo = (name: string, ami: string) => (amiWrites.get(name) ?? []).filter((a) => a === ami).length;

async function policy(): Promise<any> {
  try {
    return await custom.getClusterCustomObject({ ...BIP, name: "cluster" });
  } catch {
    return undefined;
  }
}
const condition = (p: any, type: string) => (p?.status?.conditions ?? []).find((c: any) => c.type === type);
const result = (p: any, name: string) => (p?.status?.machineSets ?? []).find((m: any) => m.name === name);

async function setHistory(entries: Array<{ state: string; version: string }>) {
  const history = entries.map((e) => ({ ...e, image: `quay.io/openshift-release-dev/ocp-release:${e.version}`, verified: true, startedTime: "2026-01-01T00:00:00Z", ...(e.state === "Completed" ? { completionTime: "2026-01-01T01:00:00Z" } : {}) }));
  await custom.patchClusterCustomObjectStatus({ ...CV, name: "version", body: { status: { desired: { version: entries[0]!.version }, history } } }, merge());
}

async function setBootImages(data: Record<string, string>): Promise<string> {
  const cm = await core.patchNamespacedConfigMap({ name: "coreos-bootimages", namespace: MCO, body: { data } }, merge());
  return cm.metadata!.resourceVersion!;
}

const eventsOf = <T>(type: { subject: string }) => events.filter((e) => e.type.subject === type.subject).map((e) => e.message as T);
const call = <Res>(method: "preview" | "getStatus") =>
  new Promise<Res>((resolve, reject) => (client[method] as any)({}, (err: Error | null, res: Res) => (err ? reject(err) : resolve(res))));

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift" }));
  nats = await stack.nats();
  kc = kubeConfigForUrl(sim.url);
  custom = kc.makeApiClient(CustomObjectsApi);
  core = kc.makeApiClient(CoreV1Api);

  sim.store.onCommit((t, ev) => {
    if (t.plural !== "machinesets" || ev.type === "DELETED") return;
    const o = ev.entry.obj;
    const name = o.metadata?.name as string;
    const ami = o.spec?.template?.spec?.providerSpec?.value?.ami?.id as string;
    const prev = ev.prev?.obj.spec?.template?.spec?.providerSpec?.value?.ami?.id;
    if (ev.type === "MODIFIED" && prev === ami) return;
    amiWrites.set(name, [...(amiWrites.get(name) ?? []), ami]);
    // "Another actor" undoes every boot image update of this MachineSet.
    if (reverting && name === "reverted" && ami === NEW_AMI) setImmediate(() => void setAmi("reverted", OLD_AMI).catch(() => undefined));
  });

  for (const name of [MAPI, MCO]) await core.createNamespace({ body: { metadata: { name } } });
  await custom.createClusterCustomObject({ ...INFRA, body: { apiVersion: "config.openshift.io/v1", kind: "Infrastructure", metadata: { name: "cluster" }, spec: { platformSpec: { type: "AWS" } } } });
  await custom.patchClusterCustomObjectStatus(
    { ...INFRA, name: "cluster", body: { status: { infrastructureName: "prod-east-x7k2p", controlPlaneTopology: "HighlyAvailable", platform: "AWS", platformStatus: { type: "AWS", aws: { region: "us-east-1" } } } } },
    merge(),
  );
  await custom.createClusterCustomObject({ ...CV, body: { apiVersion: "config.openshift.io/v1", kind: "ClusterVersion", metadata: { name: "version" }, spec: { clusterID: "c0ffee" } } });
  await setHistory([
    { state: "Completed", version: "4.22.1" },
    { state: "Completed", version: "4.12.3" },
  ]);
  await core.createNamespacedConfigMap({
    namespace: MCO,
    body: { metadata: { name: "coreos-bootimages", namespace: MCO }, data: { releaseVersion: "4.22.1", stream: JSON.stringify(streamDocument()) } },
  });
  await createMachineSet(machineSet("worker-us-east-1a", OLD_AMI));
  await createMachineSet(machineSet("hive-managed", OLD_AMI, { ownerReferences: [{ apiVersion: "hive.openshift.io/v1", kind: "MachinePool", name: "pool-a", uid: "5d1e6a3c-0000-4000-8000-000000000001" }] }));
  await createMachineSet(machineSet("custom-ami", CUSTOM_AMI));

  startWatcher();
  const { runnable, updater, freshness } = bootImageUpdater({
    kc,
    bus: { servers: nats.url },
    logger: silentLogger(),
    stateMaxAgeMs: 1_500,
    settings: {
      bootImagesNamespace: MCO,
      bootImagesName: "coreos-bootimages",
      awsAllowedAmis: [OLD_AMI],
      controllerArch: "amd64",
      errorRetryMs: 15 * 60_000,
      staleRecheckMs: 200,
      staleTimeoutMs: 30_000,
    },
    onPass: (p) => passes.push(p),
    registry,
  });
  stack.run(runnable);
  grpc = await startGrpcServer({ port: 0, host: "127.0.0.1", services: [[BootImageServiceService, bootImageService(updater, silentLogger(), freshness)]] });
  stack.defer(() => grpc.stop(100));
  client = new BootImageServiceClient(`127.0.0.1:${grpc.port}`, credentials.createInsecure());
  stack.defer(() => client.close());

  nc = await connectBus({ servers: nats.url });
  stack.defer(() => closeBus(nc));
  state = new StateCache(await ensureStateBucket(nc), { kinds: ["clusterVersion"] });
  stack.defer(() => state.stop());
  await state.start();
  stack.run({
    start: (signal) => consumeEvents(nc, { durable: "bootimage-updater-test", filterSubject: `${EVENT_SUBJECT_PREFIX}.bootimage.>`, signal, handler: (e) => void events.push(e) }),
  });
});

afterAll(() => stack.close());

describe("bootimage-updater on an AWS cluster", () => {
  it("creates BootImagePolicy/cluster, patches the plain MachineSet once and reports the skipped ones", async () => {
    const p = await waitFor(
      async () => {
        const p = await policy();
        return result(p, "worker-us-east-1a")?.result === "UpToDate" && p;
      },
      { timeoutMs: 30_000, what: "the plain MachineSet up to date in BootImagePolicy status" },
    );
    const got = (await custom.getNamespacedCustomObject({ ...MS, namespace: MAPI, name: "worker-us-east-1a" })) as any;
    expect(got.spec.template.spec.providerSpec.value.ami).toEqual({ id: NEW_AMI });
    // Only the boot image changed: the rest of the providerSpec is as the installer wrote it.
    expect(got.spec.template.spec.providerSpec.value).toEqual({ ...awsProviderSpec(), ami: { id: NEW_AMI } });
    expect(writesTo("worker-us-east-1a", NEW_AMI)).toBe(1);
    expect(amiWrites.get("hive-managed")).toEqual([OLD_AMI]);
    expect(amiWrites.get("custom-ami")).toEqual([CUSTOM_AMI]);

    expect(result(p, "hive-managed")).toMatchObject({ result: "Skipped", reason: "has OwnerReference (MachinePool/pool-a), skipping boot image update" });
    expect(result(p, "custom-ami")).toMatchObject({ result: "Skipped", reason: `AMI ${CUSTOM_AMI} cannot be verified as a standard RHCOS image without EC2 access` });
    expect(p.status.managedBootImagesStatus.machineManagers).toEqual([{ resource: "machinesets", apiGroup: "machine.openshift.io", selection: { mode: "All" } }]);
    expect(p.metadata.annotations["machineconfiguration.openshift.io/boot-image-updates-opted-in-at"]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(condition(p, "BootImageUpdateDegraded")).toMatchObject({ status: "False" });
    expect(condition(p, "BootImageUpdateProgressing")).toMatchObject({
      status: "False",
      message: "Reconciled 1 of 3 MAPI MachineSets (2 skipped) | Reconciled 0 of 0 ControlPlaneMachineSets | Reconciled 0 of 0 CAPI MachineSets | Reconciled 0 of 0 CAPI MachineDeployments",
    });
    // Skips reset the record to the install version (§4.5).
    expect(p.status.bootImageSkewEnforcementStatus).toEqual({ mode: "Automatic", automatic: { ocpVersion: "4.12.3" } });

    await waitFor(() => eventsOf<BootImageSkipped>(Events.bootImageSkipped).length >= 2 && eventsOf(Events.bootImageUpdated).length >= 1, { what: "events" });
    const updated = eventsOf<BootImageUpdated>(Events.bootImageUpdated);
    expect(updated.map((e) => [e.machineSet?.name, e.previousImage, e.image, e.platform])).toEqual([["worker-us-east-1a", OLD_AMI, NEW_AMI, "AWS"]]);
    expect(Object.fromEntries(eventsOf<BootImageSkipped>(Events.bootImageSkipped).map((e) => [e.machineSet?.name, e.reason]))).toEqual({
      "hive-managed": result(p, "hive-managed").reason,
      "custom-ami": result(p, "custom-ami").reason,
    });
  });

  it("advances the recorded cluster boot image once nothing is skipped, and serves it over gRPC", async () => {
    await deleteMachineSet("hive-managed");
    await deleteMachineSet("custom-ami");
    const p = await waitFor(async () => {
      const p = await policy();
      return p?.status?.bootImageSkewEnforcementStatus?.automatic?.ocpVersion === "4.22.1" && p;
    }, { what: "the record at the release's version" });
    expect(p.status.bootImageSkewEnforcementStatus).toEqual({ mode: "Automatic", automatic: { ocpVersion: "4.22.1" } });
    expect(p.status.clusterBootImageVersion).toBe("4.22.1");
    expect(writesTo("worker-us-east-1a", NEW_AMI)).toBe(1);

    const status = await waitFor(async () => {
      const r = await call<GetStatusResponse>("getStatus");
      return r.status?.clusterBootImageOcpVersion === "4.22.1" ? r.status : undefined;
    });
    expect(status).toMatchObject({ releaseVersion: "4.22.1", skipped: 0, errors: 0 });
    expect(status.machineSets.map((m) => [m.name, m.action, m.currentImage])).toEqual([["worker-us-east-1a", "UpToDate", NEW_AMI]]);
  });

  it("leaves a MachineSet that another actor keeps reverting alone after the hot-loop limit", async () => {
    reverting = true;
    await createMachineSet(machineSet("reverted", OLD_AMI));
    const p = await waitFor(async () => {
      const p = await policy();
      return condition(p, "BootImageUpdateDegraded")?.status === "True" && p;
    }, { timeoutMs: 30_000, what: "Degraded for the hot loop" });
    expect(condition(p, "BootImageUpdateDegraded").message).toBe(
      `1 Degraded MAPI MachineSets | 0 Degraded ControlPlaneMachineSets | 0 Degraded CAPI MachineSets | 0 Degraded CAPI MachineDeployments | Error(s): error syncing MAPI MachineSet reverted: ${hotLoopMessage("reverted")}`,
    );
    expect(result(p, "reverted")).toMatchObject({ result: "Error" });
    expect(writesTo("reverted", NEW_AMI)).toBe(HOT_LOOP_LIMIT);
    // A hot-looping MachineSet makes the pass errored: the record is left alone (§4.5).
    expect(p.status.bootImageSkewEnforcementStatus.automatic).toEqual({ ocpVersion: "4.22.1" });

    // Another trigger re-plans, and the refusal holds.
    const before = passes.length;
    await custom.patchNamespacedCustomObject({ ...MS, namespace: MAPI, name: "reverted", body: { metadata: { labels: { touched: "yes" } } } }, merge());
    await waitFor(() => passes.slice(before).some((x) => x.reason === "MAPIMachineSetUpdated" && x.status === "ran"), { what: "a pass after the label change" });
    expect(writesTo("reverted", NEW_AMI)).toBe(HOT_LOOP_LIMIT);
    const preview = await call<PreviewResponse>("preview");
    expect(preview.plans.find((x) => x.name === "reverted")).toMatchObject({ action: "Error", reason: hotLoopMessage("reverted"), patchJson: "" });
    await waitFor(() => eventsOf<BootImageUpdateFailed>(Events.bootImageUpdateFailed).some((e) => e.machineSet?.name === "reverted" && e.error === hotLoopMessage("reverted")), { what: "update-failed event" });

    reverting = false;
    await deleteMachineSet("reverted");
    await waitFor(async () => condition(await policy(), "BootImageUpdateDegraded")?.status === "False", { what: "Degraded cleared" });
  });

  it("degrades on malformed stream JSON, names the ConfigMap, and recovers", async () => {
    const valid = JSON.stringify(streamDocument());
    await setBootImages({ stream: '{"stream": "rhcos-9.6", "architectures": ' });
    const p = await waitFor(async () => {
      const p = await policy();
      return condition(p, "BootImageUpdateDegraded")?.status === "True" && p;
    }, { what: "Degraded for the malformed stream" });
    expect(condition(p, "BootImageUpdateDegraded").message).toMatch(/Error\(s\): error syncing MAPI MachineSet worker-us-east-1a: coreos-bootimages: stream is not valid JSON: /);
    const failed = await waitFor(() => eventsOf<BootImageUpdateFailed>(Events.bootImageUpdateFailed).find((e) => e.machineSet?.name === "worker-us-east-1a"));
    expect(failed.error).toMatch(/^coreos-bootimages: stream is not valid JSON/);

    await setBootImages({ stream: valid });
    await waitFor(async () => condition(await policy(), "BootImageUpdateDegraded")?.status === "False", { what: "Degraded cleared" });
    expect(writesTo("worker-us-east-1a", NEW_AMI)).toBe(1);
  });

  it("changes no MachineSet while the cluster is mid-update, and catches up when it completes", async () => {
    await setHistory([
      { state: "Partial", version: "4.23.0" },
      { state: "Completed", version: "4.22.1" },
      { state: "Completed", version: "4.12.3" },
    ]);
    // Seen through the state plane before the new images arrive (the watcher's kinds are independent).
    await waitFor(() => state.get("clusterVersion", "version")?.history[0]?.state === "Partial", { what: "Partial in the state plane" });
    const doc = streamDocument() as any;
    doc.architectures.x86_64.images.aws.regions["us-east-1"].image = NEXT_AMI;
    const rv = await setBootImages({ releaseVersion: "4.23.0", stream: JSON.stringify(doc) });
    await waitFor(() => passes.some((x) => x.bootImagesResourceVersion === rv && x.status === "waiting"), { what: "a waiting pass with the new ConfigMap" });
    expect(writesTo("worker-us-east-1a", NEXT_AMI)).toBe(0);

    const before = passes.length;
    await setHistory([
      { state: "Completed", version: "4.23.0" },
      { state: "Completed", version: "4.22.1" },
      { state: "Completed", version: "4.12.3" },
    ]);
    const p = await waitFor(async () => {
      const p = await policy();
      return p?.status?.bootImageSkewEnforcementStatus?.automatic?.ocpVersion === "4.23.0" && p;
    }, { what: "the record at 4.23.0" });
    expect(writesTo("worker-us-east-1a", NEXT_AMI)).toBe(1);
    // The MachineSet written at 4.22.1 is a release AMI, so it moves on without EC2 access.
    expect(p.status.summary).toMatchObject({ skipped: 0, errored: 0, releaseVersion: "4.23.0" });
    expect(passes.slice(before).find((x) => x.patched.length > 0)).toMatchObject({ reason: "ClusterVersionStable", patched: ["worker-us-east-1a"] });
  });

  it("patches no MachineSet from a stale view, and catches up once the watcher is heard again", async () => {
    watcherStop.abort();
    await new Promise((r) => setTimeout(r, 2_000)); // beyond the 1.5 s bound
    // A MachineSet on the old AMI reaches the state plane (the dying watcher's last write, say):
    // a fresh view would patch it at once.
    const created = (await createMachineSet(machineSet("late", OLD_AMI))) as { metadata: { uid: string; resourceVersion: string } };
    const kv = await ensureStateBucket(nc);
    const template = MachineSetState.decode((await kv.get(stateKey("machineSet", "worker-us-east-1a", MAPI)))!.value);
    const late = MachineSetState.fromPartial({ ...template, name: "late", uid: created.metadata.uid, resourceVersion: created.metadata.resourceVersion, providerSpecJson: JSON.stringify(awsProviderSpec(OLD_AMI)) });
    const before = passes.length;
    await kv.put(stateKey("machineSet", "late", MAPI), encode(MachineSetState, late));
    await waitFor(() => passes.slice(before).some((p) => p.status === "stateStale"), { what: "a pass held on the stale view" });
    await new Promise((r) => setTimeout(r, 300));
    expect(amiWrites.get("late")).toEqual([OLD_AMI]); // created, never patched
    expect(passes.slice(before).every((p) => p.patched.length === 0)).toBe(true);
    // GetStatus says how old the view is, so a reader knows the status is held.
    const held = await call<GetStatusResponse>("getStatus");
    expect(held.freshness).toMatchObject({ stale: true, maxAgeSeconds: 1.5, heard: true });
    expect(held.freshness!.ageSeconds).toBeGreaterThan(1.5);
    // So does the plan: it may miss what changed since.
    expect((await call<PreviewResponse>("preview")).freshness).toMatchObject({ stale: true, maxAgeSeconds: 1.5 });

    watcherStop = new AbortController();
    startWatcher();
    // The release's image since the mid-update test.
    // A whole watcher start (discovery, lists, the bucket read, meta.synced, heartbeats): generous on a
    // loaded machine, and a timeout says what the passes since the restart came to.
    const restarted = passes.length;
    await waitFor(() => writesTo("late", NEXT_AMI) === 1, {
      timeoutMs: 60_000,
      what: "late patched once fresh",
      explain: async () =>
        `passes since the restart: ${JSON.stringify(passes.slice(restarted).map((p) => ({ reason: p.reason, status: p.status, patched: p.patched, errors: p.errors })))}; ` +
        `writes to late: ${JSON.stringify(amiWrites.get("late"))}; freshness: ${JSON.stringify((await call<GetStatusResponse>("getStatus")).freshness)}`,
    });
    expect((await call<GetStatusResponse>("getStatus")).freshness).toMatchObject({ stale: false, heard: true });
  });

  it("counts a MachineSet patch the API fails (not a conflict) in lockstep_bootimage_machineset_patch_failures_total", async () => {
    const failures = async () => Number(/reason="request"\} (\d+)/.exec(await registry.getSingleMetricAsString(PATCH_FAILURES_METRIC))?.[1]);
    expect(await failures()).toBe(0);
    sim.faults.add({ errors: [{ code: 500, probability: 1, verb: "patch", resource: "machinesets" }] });
    const since = passes.length;
    try {
      await createMachineSet(machineSet("refused", OLD_AMI));
      await waitFor(async () => (await failures()) >= 1, {
        what: "the failed patch counted",
        explain: () => `passes since: ${JSON.stringify(passes.slice(since).map((p) => ({ reason: p.reason, status: p.status, errors: p.errors })))}`,
      });
      expect(amiWrites.get("refused")).toEqual([OLD_AMI]); // created, never patched
    } finally {
      sim.faults.clear();
    }
    await deleteMachineSet("refused");
  });
});
