// Integration: kube-sim over real HTTP (client-node), a real nats-server, the watcher in-process.
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig, type V1Node } from "@kubernetes/client-node";
import type { StateCache } from "@lockstep/bus";
import { HEADER_RESOURCE_VERSION, STATE_BUCKET, stateKey, type PoolState } from "@lockstep/contracts";
import { Kvm, type Bucket } from "@nats-io/kv";
import { connect } from "@nats-io/transport-node";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWatchedState } from "./test-harness.js";

let sim: KubeSim;
let nats: NatsServer;
let kc: KubeConfig;
let core: CoreV1Api;
let cache: StateCache;
const stack = new TestStack();

const N = 1000;
const nodeBody = (i: number): V1Node => ({
  metadata: {
    name: `ip-10-0-${Math.floor(i / 250)}-${i % 250}.ec2.internal`,
    labels: { "node-role.kubernetes.io/worker": "" },
    annotations: { "machineconfiguration.openshift.io/currentConfig": "rendered-worker-1", "machineconfiguration.openshift.io/desiredConfig": "rendered-worker-1", "machineconfiguration.openshift.io/state": "Done" },
  },
  status: { conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: new Date(), lastTransitionTime: new Date("2026-01-01T00:00:00Z"), reason: "KubeletReady", message: "kubelet is posting ready status" }], nodeInfo: { architecture: "amd64" } as never },
});
const nodeName = (i: number) => nodeBody(i).metadata!.name!;

async function inBatches<T>(items: T[], size: number, fn: (t: T) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < items.length; i += size) await Promise.all(items.slice(i, i + size).map(fn));
}

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift", historyLimit: 100_000 }));
  nats = await stack.nats();
  kc = kubeConfigForUrl(sim.url);
  core = kc.makeApiClient(CoreV1Api);
  await inBatches([...Array(N).keys()], 50, (i) => core.createNode({ body: nodeBody(i) }));
  cache = await startWatchedState(stack, { kc, natsUrl: nats.url });
});

afterAll(() => stack.close());

const nodeState = (i: number) => cache.get("node", nodeName(i));

describe("watcher", () => {
  it("publishes the initial sync of 1,000 nodes and then meta.synced", async () => {
    await waitFor(() => cache.synced, { timeoutMs: 30_000, what: "meta.synced" });
    expect(cache.list("node")).toHaveLength(N);
    expect(nodeState(7)).toMatchObject({ roles: ["worker"], architecture: "amd64", mco: { currentConfig: "rendered-worker-1", state: "Done" } });
    expect(cache.synced!.kinds).toContain("node");
    expect(cache.synced!.kinds).toContain("pool");
  });

  it("carries updates and deletes to the KV", async () => {
    await core.patchNode({ name: nodeName(1), body: { spec: { unschedulable: true } } }, setMerge());
    await core.deleteNode({ name: nodeName(2) });
    const custom = kc.makeApiClient(CustomObjectsApi);
    await custom.createClusterCustomObject({
      group: "machineconfiguration.openshift.io",
      version: "v1",
      plural: "machineconfigpools",
      body: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfigPool", metadata: { name: "worker" }, spec: { paused: true, maxUnavailable: "10%", nodeSelector: { matchLabels: { "node-role.kubernetes.io/worker": "" } } } },
    });
    await waitFor(() => nodeState(1)?.unschedulable && !nodeState(2) && cache.get("pool", "worker"));
    expect(cache.get("pool", "worker") as PoolState).toMatchObject({ paused: true, maxUnavailable: "10%", nodeSelectorPresent: true });
  });

  it("stamps each snapshot with the resourceVersion of the object it was made from", async () => {
    const node = await core.readNode({ name: nodeName(1) });
    const nc = await connect({ servers: nats.url });
    try {
      const kv = (await new Kvm(nc).open(STATE_BUCKET)) as Bucket;
      const stored = await kv.jsm.streams.getMessage(kv.bucketName(), { last_by_subj: kv.subjectForKey(stateKey("node", nodeName(1))) });
      expect(stored?.header.get(HEADER_RESOURCE_VERSION)).toBe(node.metadata!.resourceVersion);
    } finally {
      await nc.close();
    }
  });

  it("writes nothing for kubelet heartbeat churn", async () => {
    const before = counts();
    await inBatches([...Array(200).keys()].map((i) => i + 10), 50, (i) =>
      core.patchNodeStatus({ name: nodeName(i), body: { status: { conditions: [{ type: "Ready", status: "True", lastHeartbeatTime: new Date(), lastTransitionTime: new Date("2026-01-01T00:00:00Z"), reason: "KubeletReady", message: "kubelet is posting ready status" }] } } }, setMerge()),
    );
    await core.patchNode({ name: nodeName(5), body: { spec: { unschedulable: true } } }, setMerge()); // a real change after the churn
    await waitFor(() => nodeState(5)?.unschedulable);
    const after = counts();
    expect(after.events - before.events).toBeGreaterThanOrEqual(201);
    expect(after.written - before.written).toBe(1);
  });

  it("recovers after a forced 410 and dropped watches, deleting what vanished meanwhile", async () => {
    sim.faults.add({ goneNextWatch: 1 });
    sim.dropWatches();
    await core.deleteNode({ name: nodeName(3) });
    await core.patchNode({ name: nodeName(4), body: { metadata: { labels: { extra: "yes" } } } }, setMerge());
    await waitFor(() => !nodeState(3) && nodeState(4)?.labels.extra === "yes", { timeoutMs: 20_000 });
    sim.compact();
    sim.dropWatches();
    await core.patchNode({ name: nodeName(6), body: { spec: { unschedulable: true } } }, setMerge());
    await waitFor(() => nodeState(6)?.unschedulable, { timeoutMs: 20_000 });
  });

  it("recovers after an API outage, withholding its heartbeat while the watches are down", async () => {
    let beats = 0;
    const off = cache.onHeartbeat(() => void beats++);
    await waitFor(() => beats >= 2, { what: "heartbeats while healthy" });
    sim.faults.startOutage(1_500, "503");
    sim.dropWatches();
    await new Promise((r) => setTimeout(r, 500)); // a beat may still go out within one interval
    const during = beats;
    await new Promise((r) => setTimeout(r, 800));
    expect(beats).toBe(during);
    await new Promise((r) => setTimeout(r, 300));
    await core.patchNode({ name: nodeName(8), body: { spec: { unschedulable: true } } }, setMerge());
    await waitFor(() => nodeState(8)?.unschedulable, { timeoutMs: 20_000 });
    await waitFor(() => beats > during, { what: "heartbeats after the outage" });
    off();
    expect(cache.heartbeat).toMatchObject({ writer: expect.any(String), time: expect.any(Date), currentAsOf: expect.any(Date) });
  });

  it("converges with nothing lost when nats-server restarts mid-stream", async () => {
    await nats.kill();
    const restarted = new Promise((r) => setTimeout(r, 500)).then(() => nats.restart());
    await inBatches([...Array(100).keys()].map((i) => i + 300), 25, (i) => core.patchNode({ name: nodeName(i), body: { spec: { unschedulable: true } } }, setMerge()));
    await restarted;
    await waitFor(() => [...Array(100).keys()].every((i) => nodeState(i + 300)?.unschedulable), { timeoutMs: 30_000, what: "all 100 changes in the KV" });
    expect(cache.get("node", nodeName(0))).toBeInstanceOf(Object);
  });

  it("reports a malformed object and keeps going", async () => {
    const custom = kc.makeApiClient(CustomObjectsApi);
    await custom.createClusterCustomObject({
      group: "machineconfiguration.openshift.io",
      version: "v1",
      plural: "machineconfigs",
      body: { apiVersion: "machineconfiguration.openshift.io/v1", kind: "MachineConfig", metadata: { name: "bad" }, spec: { config: "not json" } },
    });
    await core.patchNode({ name: nodeName(9), body: { spec: { unschedulable: true } } }, setMerge());
    await waitFor(() => nodeState(9)?.unschedulable);
    expect(cache.get("machineConfig", "bad")).toBeUndefined();
  });
});

// Writes are counted through the cache, API events through kube-sim's commit hook.
let eventsSeen = 0;
let writesSeen = 0;
function counts(): { events: number; written: number } {
  return { events: eventsSeen, written: writesSeen };
}
beforeAll(() => {
  cache.onChange((c) => {
    if (c.parsed.kind === "node") writesSeen++;
  });
  sim.store.onCommit(() => void eventsSeen++);
});

const setMerge = () => setHeaderOptions("Content-Type", PatchStrategy.MergePatch);
