// Integration: a golden case loaded into kube-sim (real HTTP), a real nats-server, the watcher and
// the aggregator in-process behind a real gRPC server, and an alerts API on loopback (a real HTTP
// server) read by the alert source with its bearer token. RenderStatus must equal oc's rules
// (packages/insights, held to oc's golden output) applied to the same objects and the same alerts
// answer; when the alerts API goes away, the alerts leave the status and one warning says why.
// The answer here is written for the case, to walk oc's four paths (an update-affecting alert firing
// before and during the update, another alert firing during it, and the ones oc drops: pending,
// started before the update, severity info); alerts.golden.integration.test.ts holds the service to
// oc's own recorded output on the one golden case with an `-alerts.json`.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { UpdateStatusServiceClient, type RenderStatusResponse } from "@lockstep/contracts";
import { type AlertsResponse, type Details, evaluate, fixtureNow, inputsFromDocuments, render, wallClockNow } from "@lockstep/insights";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { ocUpgradeStatusDir, TestStack, waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Aggregator } from "../aggregator/aggregator.js";
import { serveAggregator } from "../test-harness.js";
import { fetchAlerts } from "./fetch-alerts.js";
import { attachAlertsPoller } from "./wire.js";

const CASE = "4.14.1-workers-started-updating-multiple-pools";
const caseFile = (suffix: string) => join(ocUpgradeStatusDir(), `${CASE}${suffix}`);
const TOKEN = "sha256~monitoring-reader";

const alert = (name: string, severity: string, activeAt: string, state = "firing", extra: Record<string, string> = {}) => ({
  labels: { alertname: name, severity, namespace: "openshift-monitoring", ...extra },
  annotations: { summary: `${name} summary`, description: `${name} description`, runbook_url: `https://runbooks.example/${name}.md` },
  state,
  activeAt,
});

let sim: KubeSim;
let client: UpdateStatusServiceClient;
let alertsServer: Server;
let answer: AlertsResponse;
let now: bigint;
const stack = new TestStack();
const dir = mkdtempSync(join(tmpdir(), "lockstep-alerts-"));
const seenAuth: Array<string | undefined> = [];

const renderStatus = (details: Details) =>
  new Promise<string>((resolve, reject) =>
    client.renderStatus({ details }, (err: Error | null, res: RenderStatusResponse) => (err ? reject(err) : resolve(res.text))),
  );

async function offline(details: Details, alerts: AlertsResponse | undefined): Promise<string> {
  const get = async (path: string) => (await fetch(`${sim.url}${path}`)).json();
  const inputs = inputsFromDocuments({
    clusterVersion: await get("/apis/config.openshift.io/v1/clusterversions"),
    clusterOperators: await get("/apis/config.openshift.io/v1/clusteroperators"),
    machineConfigPools: await get("/apis/machineconfiguration.openshift.io/v1/machineconfigpools"),
    machineConfigs: await get("/apis/machineconfiguration.openshift.io/v1/machineconfigs"),
    nodes: await get("/api/v1/nodes"),
    ...(alerts ? { alerts } : {}),
  });
  return render(evaluate(inputs, { now, wallClock: wallClockNow() }), details);
}

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift" }));
  const nats = await stack.nats();
  const kc = kubeConfigForUrl(sim.url);
  await sim.load({ files: ["-cv.yaml", "-co.yaml", "-mc.yaml", "-mcp.yaml", "-node.yaml"].map(caseFile) });
  const cv = (await (await fetch(`${sim.url}/apis/config.openshift.io/v1/clusterversions`)).json()) as { items: Array<{ status: { history: Array<{ startedTime: string }> } }> };
  const started = Date.parse(cv.items[0]!.status.history[0]!.startedTime);
  const iso = (ms: number) => new Date(ms).toISOString();
  answer = {
    status: "success",
    data: {
      alerts: [
        alert("PodDisruptionBudgetAtLimit", "warning", iso(started - 3_600_000), "firing", { poddisruptionbudget: "app" }),
        alert("PodDisruptionBudgetLimit", "critical", iso(started + 60_000)),
        alert("KubeNodeNotReady", "warning", iso(started + 120_000)),
        alert("KubePodCrashLooping", "warning", iso(started + 180_000), "pending"),
        alert("Watchdog", "none", iso(started - 60_000)),
        alert("KubeletDown", "critical", iso(started - 60_000)),
        alert("InfoOnly", "info", iso(started + 60_000)),
      ],
    },
  } as AlertsResponse;
  const inputs = inputsFromDocuments({
    clusterVersion: cv,
    clusterOperators: await (await fetch(`${sim.url}/apis/config.openshift.io/v1/clusteroperators`)).json(),
    machineConfigPools: { items: [] },
    machineConfigs: { items: [] },
    nodes: { items: [] },
  });
  now = fixtureNow(inputs.clusterVersion, inputs.clusterOperators);

  alertsServer = createServer((req, res) => {
    seenAuth.push(req.headers.authorization);
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(answer));
  });
  await new Promise<void>((resolve) => alertsServer.listen(0, "127.0.0.1", resolve));
  stack.defer(() => new Promise<void>((r) => alertsServer.close(() => r())));
  const url = `http://127.0.0.1:${(alertsServer.address() as { port: number }).port}/api/v1/alerts`;
  const tokenFile = join(dir, "token");
  writeFileSync(tokenFile, TOKEN);

  const aggregator = new Aggregator({ logger: silentLogger(), clock: () => now, debounceMs: 10 });
  const poller = attachAlertsPoller(aggregator, silentLogger(), { url, intervalMs: 200, maxAgeMs: 1_000, read: (signal) => fetchAlerts({ url, tokenFile, timeoutMs: 1_000 }, signal) });
  stack.run(poller.runnable());
  const grpcServer = await serveAggregator(stack, { kc, natsUrl: nats.url, aggregator });
  client = new UpdateStatusServiceClient(`127.0.0.1:${grpcServer.port}`, credentials.createInsecure());
  stack.defer(() => client.close());
  await waitFor(() => aggregator.synced && aggregator.view.nodeCount === 7, { timeoutMs: 30_000, what: "aggregator synced with 7 nodes" });
});

afterAll(async () => {
  await stack.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("alert source on a golden case", () => {
  it("renders the same health insights as oc's rules on the same alerts answer, read with the bearer token", async () => {
    for (const details of ["none", "all"] as const) {
      const expected = await offline(details, answer);
      const got = await waitFor(async () => ((await renderStatus(details)) === expected ? expected : undefined), {
        timeoutMs: 15_000,
        what: `RenderStatus(${details}) equal to oc's rules with the alerts`,
        explain: async () => `got:\n${await renderStatus(details)}\nexpected:\n${expected}`,
      });
      expect(got).toBe(expected);
    }
    const text = await renderStatus("all");
    // What oc's rules make of each alert: kept, with oc's wording, or dropped.
    expect(text).toContain("Alert is firing: PodDisruptionBudgetAtLimit summary");
    expect(text).toContain("Alert known to affect updates has been firing since before the update started. The alert description is: PodDisruptionBudgetAtLimit description");
    expect(text).toContain("Alert known to affect updates started firing during the update.");
    expect(text).toContain("Alert started firing during the update. The alert description is: KubeNodeNotReady description");
    for (const dropped of ["KubePodCrashLooping", "Watchdog", "KubeletDown", "InfoOnly"]) expect(text).not.toContain(dropped);
    expect(text).not.toBe(await offline("all", undefined));
    expect(seenAuth.at(-1)).toBe(`Bearer ${TOKEN}`);
  });

  it("drops the alerts at once and warns when the alerts API stops answering", async () => {
    answer = { status: "error" } as AlertsResponse;
    const text = await waitFor(async () => {
      const t = await renderStatus("all");
      return t.includes("Cannot read firing alerts from the cluster's monitoring") ? t : undefined;
    }, { timeoutMs: 15_000, what: "the unreachable-monitoring warning" });
    expect(text).not.toContain("Alert is firing");
    expect(text).toContain('are not available (the answer has status "error")');
  });
});
