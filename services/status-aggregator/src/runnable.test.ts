// Integration: a golden fixture case loaded into kube-sim (real HTTP), a real nats-server, the
// watcher and the aggregator in-process, and a real gRPC client. The gRPC answers must agree with
// the offline rules applied to the same objects (listed from kube-sim) at the same "now".
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { credentials, type ClientReadableStream } from "@grpc/grpc-js";
import { CoreV1Api, CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from "@kubernetes/client-node";
import { closeBus, connectBus, consumeEvents } from "@lockstep/bus";
import {
  Events,
  UpdateStatusServiceClient,
  type GetUpdateStatusResponse,
  type InsightChanged,
  type ListNodeInsightsResponse,
  type NodeInsight,
  type RenderStatusResponse,
  type WatchUpdateStatusResponse,
} from "@lockstep/contracts";
import { type Details, type StatusInputs, evaluate, fixtureNow, inputsFromDocuments, render, wallClockNow } from "@lockstep/insights";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger, type GrpcServerHandle } from "@lockstep/runtime";
import { ocUpgradeStatusDir, TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import type { NatsConnection } from "@nats-io/transport-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Aggregator } from "./aggregator/aggregator.js";
import { serveAggregator } from "./test-harness.js";

const CASE = "4.14.1-workers-started-updating-multiple-pools";
const caseFile = (suffix: string) => join(ocUpgradeStatusDir(), `${CASE}${suffix}`);

let sim: KubeSim;
let nats: NatsServer;
let kc: KubeConfig;
let grpcServer: GrpcServerHandle;
let client: UpdateStatusServiceClient;
let nc: NatsConnection;
let aggregator: Aggregator;
let now: bigint;
const stack = new TestStack();

const unary = <Req, Res>(fn: (req: Req, cb: (err: Error | null, res: Res) => void) => unknown, req: Req): Promise<Res> =>
  new Promise((resolve, reject) => fn(req, (err, res) => (err ? reject(err) : resolve(res))));

/** Lists the objects `oc` reads, from kube-sim through client-node, as plain JSON documents. */
async function listInputs(): Promise<StatusInputs> {
  const custom = kc.makeApiClient(CustomObjectsApi);
  const list = (group: string, plural: string) => custom.listClusterCustomObject({ group, version: "v1", plural });
  const plain = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;
  return inputsFromDocuments({
    clusterVersion: await list("config.openshift.io", "clusterversions"),
    clusterOperators: await list("config.openshift.io", "clusteroperators"),
    machineConfigPools: await list("machineconfiguration.openshift.io", "machineconfigpools"),
    machineConfigs: await list("machineconfiguration.openshift.io", "machineconfigs"),
    nodes: plain(await kc.makeApiClient(CoreV1Api).listNode()),
  });
}

async function offline(details: Details): Promise<{ text: string; inputs: StatusInputs }> {
  const inputs = await listInputs();
  return { text: render(evaluate(inputs, { now, wallClock: wallClockNow() }), details), inputs };
}

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift" }));
  nats = await stack.nats();
  kc = kubeConfigForUrl(sim.url);
  await sim.load({ files: ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml"].map(caseFile) });
  const inputs = await listInputs();
  now = fixtureNow(inputs.clusterVersion, inputs.clusterOperators);

  aggregator = new Aggregator({ logger: silentLogger(), clock: () => now, debounceMs: 10 });
  grpcServer = await serveAggregator(stack, { kc, natsUrl: nats.url, aggregator });
  client = new UpdateStatusServiceClient(`127.0.0.1:${grpcServer.port}`, credentials.createInsecure());
  stack.defer(() => client.close());
  nc = await connectBus({ servers: nats.url });
  stack.defer(() => closeBus(nc));
  await waitFor(() => aggregator.synced && aggregator.view.nodeCount === 7, { timeoutMs: 30_000, what: "aggregator synced with 7 nodes" });
});

afterAll(() => stack.close());

describe("status-aggregator on a golden case", () => {
  it("RenderStatus is the offline rules' text in both detail levels", async () => {
    for (const details of ["none", "all"] as const) {
      const res = await unary<{ details: string }, RenderStatusResponse>(client.renderStatus.bind(client), { details });
      expect(res.text).toBe((await offline(details)).text);
    }
    // The golden file lists pools in file order (master, worker, infra); an API server lists them by
    // name, so through kube-sim the infra section comes first and the rows are otherwise the same.
    const golden = await readFile(caseFile(".detailed-output"), "utf8");
    const res = await unary<{ details: string }, RenderStatusResponse>(client.renderStatus.bind(client), { details: "all" });
    expect(res.text.split("\n").sort()).toEqual(golden.split("\n").sort());
  });

  it("GetUpdateStatus carries the same pools, rows and control plane as the offline evaluation", async () => {
    const { inputs } = await offline("none");
    const e = evaluate(inputs, { now, wallClock: wallClockNow() });
    const res = await unary<{ omitNodes: boolean }, GetUpdateStatusResponse>(client.getUpdateStatus.bind(client), { omitNodes: false });
    const s = res.status!;
    expect(s.updating).toBe(!e.notUpdating);
    expect(s.controlPlane).toMatchObject({ assessment: e.controlPlane.assessment, targetVersion: e.controlPlane.targetVersionText, completed: e.controlPlane.completed });
    const pools = [e.masterPool!, ...e.workerPools];
    expect(s.pools.map((p) => [p.name, p.assessment, p.total, p.available, p.progressing, p.draining])).toEqual(
      pools.map((p) => [p.name, p.empty ? "Empty" : p.assessment, p.counters.total, p.counters.available, p.counters.progressing, p.counters.draining]),
    );
    const rows = pools.flatMap((p) => p.nodes).sort((a, b) => (a.name < b.name ? -1 : 1));
    expect(s.nodes.map((n) => [n.name, n.pool, n.record!.assessment, n.record!.phase, n.record!.versionCell, n.record!.estCell, n.record!.messageCell])).toEqual(
      rows.map((r) => [r.name, r.pool, r.assessment, r.phase, r.version || "?", r.estimate, r.message]),
    );
    expect(s.health.map((h) => h.summary)).toEqual(e.health.insights.map((h) => h.summary));
    expect(s.health.some((h) => h.lockstep)).toBe(false);
  });

  it("ListNodeInsights filters by pool and assessment and pages with tokens", async () => {
    const list = (req: { pool: string; assessment: string; pageSize: number; pageToken: string }) =>
      unary<typeof req, ListNodeInsightsResponse>(client.listNodeInsights.bind(client), req);
    const all: NodeInsight[] = [];
    let token = "";
    let pages = 0;
    do {
      const page = await list({ pool: "", assessment: "", pageSize: 3, pageToken: token });
      all.push(...page.nodes);
      token = page.nextPageToken;
      pages++;
    } while (token !== "");
    expect(pages).toBe(3);
    expect(all.map((n) => n.name)).toEqual(aggregator.current()!.names);
    const infra = await list({ pool: "infra", assessment: "", pageSize: 0, pageToken: "" });
    expect(infra.nodes.length).toBeGreaterThan(0);
    expect(infra.nodes.every((n) => n.pool === "infra")).toBe(true);
    const progressing = await list({ pool: "", assessment: "Progressing", pageSize: 0, pageToken: "" });
    expect(progressing.nodes.map((n) => n.name)).toEqual(all.filter((n) => n.record!.assessment === "Progressing").map((n) => n.name));
    await expect(list({ pool: "", assessment: "Sideways", pageSize: 0, pageToken: "" })).rejects.toThrow(/INVALID_ARGUMENT|assessment must be one of/);
    const first = await list({ pool: "", assessment: "", pageSize: 2, pageToken: "" });
    await expect(list({ pool: "worker", assessment: "", pageSize: 2, pageToken: first.nextPageToken })).rejects.toThrow(/different pool or assessment filter/);
    await expect(unary<{ details: string }, RenderStatusResponse>(client.renderStatus.bind(client), { details: "everything" })).rejects.toThrow(/details must be one of/);
  });

  it("WatchUpdateStatus delivers a node change and insight.changed is published", async () => {
    const events: InsightChanged[] = [];
    const consumer = new AbortController();
    const consuming = consumeEvents(nc, {
      durable: "status-aggregator-test",
      filterSubject: Events.insightChanged.subject,
      signal: consumer.signal,
      handler: (e) => void events.push(e.message as InsightChanged),
    });

    const messages: WatchUpdateStatusResponse[] = [];
    const stream: ClientReadableStream<WatchUpdateStatusResponse> = client.watchUpdateStatus({ omitNodes: false });
    stream.on("data", (m: WatchUpdateStatusResponse) => messages.push(m));
    stream.on("error", () => undefined);
    await waitFor(() => messages.length >= 1, { what: "initial watch message" });
    expect(messages[0]!.status!.nodes).toHaveLength(7);

    // Pick a node that is progressing and finish its update: currentConfig = desiredConfig, Done.
    const target = messages[0]!.status!.nodes.find((n) => n.record!.assessment === "Progressing")!;
    const core = kc.makeApiClient(CoreV1Api);
    const current = await core.readNode({ name: target.name });
    const ann = current.metadata!.annotations!;
    await core.patchNode(
      {
        name: target.name,
        body: {
          metadata: {
            annotations: {
              "machineconfiguration.openshift.io/currentConfig": ann["machineconfiguration.openshift.io/desiredConfig"],
              "machineconfiguration.openshift.io/state": "Done",
              "machineconfiguration.openshift.io/lastAppliedDrain": ann["machineconfiguration.openshift.io/desiredDrain"],
            },
          },
          spec: { unschedulable: false },
        },
      },
      setHeaderOptions("Content-Type", PatchStrategy.MergePatch),
    );

    await waitFor(() => messages.some((m) => m.changedNodes.some((n) => n.name === target.name && n.record!.phase === "Updated")), {
      timeoutMs: 20_000,
      what: "watch message with the updated node",
    });
    const change = messages.find((m) => m.changedNodes.some((n) => n.name === target.name))!;
    expect(change.status!.nodes).toEqual([]); // later messages carry the delta, not the whole list
    await waitFor(() => events.some((e) => e.node === target.name), { timeoutMs: 20_000, what: "insight.changed event" });
    const event = events.find((e) => e.node === target.name)!;
    expect(event).toMatchObject({ previousAssessment: "Progressing", previousPhase: target.record!.phase, insight: { name: target.name, record: { phase: "Updated" } } });
    expect(event.meta!.id).toMatch(/^insight\.changed\.[0-9a-f]{32}$/);

    // And the answers still agree with the offline rules on the changed cluster.
    const res = await unary<{ details: string }, RenderStatusResponse>(client.renderStatus.bind(client), { details: "all" });
    expect(res.text).toBe((await offline("all")).text);

    stream.cancel();
    consumer.abort();
    await consuming.catch(() => undefined);
  });
});
