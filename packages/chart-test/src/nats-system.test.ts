// The whole system under the chart's NATS least privilege: nats-server runs the authorization block
// the chart renders, the five services run as processes, each as its own NATS user, and a rolling
// update goes through to the end. Any subject a service's real code path needs beyond its grants
// shows in the server's log as a violation (a kind that holds nothing once left every consumer
// unready this way). nats.test.ts checks each grant one by one; this checks that they are enough.
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onDemoRelease } from "@lockstep/cluster-sim";
import { Clients, startEnvironment, type Environment } from "@lockstep/demo";
import { SERVICE_NAMES, type ServiceName } from "@lockstep/launcher";
import { waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chartDir } from "./paths.js";
import { renderChart } from "./chart.js";

const SPEC = onDemoRelease({
  name: "nats-auth",
  pools: [{ name: "worker", size: 3, maxUnavailable: 1 }],
});
const TARGET = "4.15.14";
const NODES = SPEC.masters + 3;

const passwords = Object.fromEntries(SERVICE_NAMES.map((s) => [s, `p${randomBytes(12).toString("hex")}`])) as Record<ServiceName, string>;
const envName = (s: ServiceName) => `LOCKSTEP_${s.toUpperCase().replace(/-/g, "_")}_NATS_PASSWORD`;

let runDir: string;
let env: Environment;
let clients: Clients;

beforeAll(async () => {
  const { manifests } = renderChart(chartDir, { values: { global: { nats: { authorization: { configMap: true } } } } });
  const cm = manifests.find((m) => m.kind === "ConfigMap" && m.metadata.name.endsWith("-nats-authorization"));
  const conf = (cm as unknown as { data: Record<string, string> }).data["authorization.conf"]!;
  for (const s of SERVICE_NAMES) process.env[envName(s)] = passwords[s];
  runDir = mkdtempSync(join(tmpdir(), "lockstep-nats-system-"));
  const serviceEnv = Object.fromEntries(SERVICE_NAMES.map((s) => [s, { NATS_USER: `lockstep-${s}`, NATS_PASSWORD: passwords[s] }]));
  env = await startEnvironment({ runDir, spec: SPEC, timeScale: 120, natsConfig: conf, serviceEnv });
  clients = new Clients(env.system);
}, 120_000);

afterAll(async () => {
  clients?.close();
  await env?.stop();
  for (const s of SERVICE_NAMES) delete process.env[envName(s)];
  if (runDir) rmSync(runDir, { recursive: true, force: true });
});

describe("the system as the chart's NATS users", () => {
  it("rolls an update to the end with no permission refused", async () => {
    await env.sim.upgrade(TARGET);
    await waitFor(
      async () => {
        const res = await clients.call(clients.status, clients.status.getUpdateStatus, { omitNodes: false });
        const nodes = res.status?.nodes ?? [];
        return nodes.length === NODES && nodes.every((n) => n.record?.assessment === "Completed" && n.record?.phase === "Updated");
      },
      { timeoutMs: 240_000, intervalMs: 500, what: "every node updated, as the aggregator serves it" },
    );
    await waitFor(
      async () => (await clients.call(clients.skew, clients.skew.getSkewReport, {})).report?.updateComplete === true,
      { timeoutMs: 60_000, intervalMs: 500, what: "the skew-enforcer to call the update complete" },
    );
    const violations = env.nats!.log().split("\n").filter((l) => /Violation/.test(l));
    expect(violations).toEqual([]);
  }, 360_000);
});
