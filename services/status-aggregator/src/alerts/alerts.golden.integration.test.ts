// Integration: oc's own golden case with firing alerts (4.15.0-ec2-unavailable-mco-20m, an
// `-alerts.json` recorded beside the cluster's objects, copied from openshift/oc) loaded into
// kube-sim over real HTTP, a real nats-server, the watcher and the aggregator in-process behind a
// real gRPC server, and the recorded answer served by an alerts API on loopback. What
// RenderStatus answers — the text `lockstep status` prints — must equal oc's recorded output byte
// for byte, health insights from the alerts included.
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { UpdateStatusServiceClient, type RenderStatusResponse } from "@lockstep/contracts";
import { type Details, fixtureNow, inputsFromDocuments } from "@lockstep/insights";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { ocUpgradeStatusDir, TestStack, waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse } from "yaml";
import { Aggregator } from "../aggregator/aggregator.js";
import { serveAggregator } from "../test-harness.js";
import { fetchAlerts } from "./fetch-alerts.js";
import { attachAlertsPoller } from "./wire.js";

const CASE = "4.15.0-ec2-unavailable-mco-20m";
const caseFile = (suffix: string) => join(ocUpgradeStatusDir(), `${CASE}${suffix}`);
const stack = new TestStack();
let client: UpdateStatusServiceClient;

const renderStatus = (details: Details) =>
  new Promise<string>((resolve, reject) => client.renderStatus({ details }, (err: Error | null, res: RenderStatusResponse) => (err ? reject(err) : resolve(res.text))));

beforeAll(async () => {
  const sim = stack.add(await startKubeSim({ crds: "openshift" }));
  const nats = await stack.nats();
  await sim.load({ files: ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml"].map(caseFile) });
  const yaml = (suffix: string) => parse(readFileSync(caseFile(suffix), "utf8")) as unknown;
  const inputs = inputsFromDocuments({ clusterVersion: yaml("-cv.yaml"), clusterOperators: yaml("-co.yaml"), machineConfigPools: { items: [] }, machineConfigs: { items: [] }, nodes: { items: [] } });
  const now = fixtureNow(inputs.clusterVersion, inputs.clusterOperators);
  const recorded = readFileSync(caseFile("-alerts.json"), "utf8");
  const alertsServer: Server = createServer((_req, res) => res.writeHead(200, { "content-type": "application/json" }).end(recorded));
  await new Promise<void>((resolve) => alertsServer.listen(0, "127.0.0.1", resolve));
  stack.defer(() => new Promise<void>((r) => alertsServer.close(() => r())));
  const url = `http://127.0.0.1:${(alertsServer.address() as { port: number }).port}/api/v1/alerts`;
  const aggregator = new Aggregator({ logger: silentLogger(), clock: () => now, debounceMs: 10 });
  stack.run(attachAlertsPoller(aggregator, silentLogger(), { url, intervalMs: 200, maxAgeMs: 5_000, read: (signal) => fetchAlerts({ url, timeoutMs: 2_000 }, signal) }).runnable());
  const grpcServer = await serveAggregator(stack, { kc: kubeConfigForUrl(sim.url), natsUrl: nats.url, aggregator });
  client = new UpdateStatusServiceClient(`127.0.0.1:${grpcServer.port}`, credentials.createInsecure());
  stack.defer(() => client.close());
  const nodes = ((await (await fetch(`${sim.url}/api/v1/nodes`)).json()) as { items: unknown[] }).items.length;
  await waitFor(() => aggregator.synced && aggregator.view.nodeCount === nodes, { timeoutMs: 30_000, what: `aggregator synced with ${nodes} nodes` });
});

afterAll(() => stack.close());

describe(`alert source on oc's golden case ${CASE}`, () => {
  it.each([
    ["none", ".output"],
    ["all", ".detailed-output"],
  ] as const)("RenderStatus(%s) equals oc's %s, the alerts' health insights included", async (details, suffix) => {
    const expected = readFileSync(caseFile(suffix), "utf8");
    expect(expected).toContain("Alert is firing");
    const got = await waitFor(async () => ((await renderStatus(details)) === expected ? expected : undefined), {
      timeoutMs: 20_000,
      what: `RenderStatus(${details}) equal to oc's ${suffix}`,
      explain: async () => `got:\n${await renderStatus(details)}\nexpected:\n${expected}`,
    });
    expect(got).toBe(expected);
  });
});
