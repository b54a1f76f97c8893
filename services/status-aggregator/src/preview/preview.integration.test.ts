// Integration: DisruptionService on the state plane filled by the watcher from kube-sim. A rule
// added as a NodeDisruptionPolicy object through client-node changes the next preview.
import { credentials } from "@grpc/grpc-js";
import { CoreV1Api, CustomObjectsApi, type KubeConfig } from "@kubernetes/client-node";
import {
  DisruptionServiceClient,
  type ListEffectivePoliciesResponse,
  type PreviewConfigChangeRequest,
  type PreviewConfigChangeResponse,
} from "@lockstep/contracts";
import { loadPolicyManifests } from "@lockstep/disruption";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger, type GrpcServerHandle } from "@lockstep/runtime";
import { TestStack, waitFor, type NatsServer } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Aggregator } from "../aggregator/aggregator.js";
import { serveAggregator } from "../test-harness.js";

let sim: KubeSim;
let nats: NatsServer;
let kc: KubeConfig;
let grpcServer: GrpcServerHandle;
let client: DisruptionServiceClient;
let aggregator: Aggregator;
const stack = new TestStack();

const MCO = "machineconfiguration.openshift.io";
const dataUrl = (s: string) => `data:,${encodeURIComponent(s)}`;
const renderedWorker = {
  apiVersion: `${MCO}/v1`,
  kind: "MachineConfig",
  metadata: { name: "rendered-worker-1", annotations: { [`${MCO}/release-image-version`]: "4.16.1" } },
  spec: { config: { ignition: { version: "3.4.0" }, storage: { files: [{ path: "/etc/base.conf", contents: { source: dataUrl("base") }, mode: 420 }] } } },
};
const proposed = `
apiVersion: ${MCO}/v1
kind: MachineConfig
metadata:
  name: 99-worker-app
  labels:
    ${MCO}/role: worker
spec:
  config:
    ignition:
      version: 3.4.0
    storage:
      files:
        - path: /etc/example/app.conf
          mode: 420
          contents:
            source: ${dataUrl("setting=1")}
`;

const preview = (req: PreviewConfigChangeRequest) =>
  new Promise<PreviewConfigChangeResponse>((resolve, reject) => client.previewConfigChange(req, (err, res) => (err ? reject(err) : resolve(res))));

beforeAll(async () => {
  sim = stack.add(await startKubeSim({ crds: "openshift" }));
  nats = await stack.nats();
  kc = kubeConfigForUrl(sim.url);
  const custom = kc.makeApiClient(CustomObjectsApi);
  await custom.createClusterCustomObject({ group: MCO, version: "v1", plural: "machineconfigs", body: renderedWorker });
  await custom.createClusterCustomObject({
    group: MCO,
    version: "v1",
    plural: "machineconfigpools",
    body: { apiVersion: `${MCO}/v1`, kind: "MachineConfigPool", metadata: { name: "worker" }, spec: { nodeSelector: { matchLabels: { "node-role.kubernetes.io/worker": "" } } } },
  });
  const core = kc.makeApiClient(CoreV1Api);
  for (const name of ["worker-a", "worker-b"]) {
    await core.createNode({
      body: {
        metadata: {
          name,
          labels: { "node-role.kubernetes.io/worker": "" },
          annotations: { [`${MCO}/currentConfig`]: "rendered-worker-1", [`${MCO}/desiredConfig`]: "rendered-worker-1", [`${MCO}/state`]: "Done" },
        },
      },
    });
  }
  aggregator = new Aggregator({ logger: silentLogger(), debounceMs: 10, shippedPolicies: await loadPolicyManifests() });
  grpcServer = await serveAggregator(stack, { kc, natsUrl: nats.url, aggregator });
  client = new DisruptionServiceClient(`127.0.0.1:${grpcServer.port}`, credentials.createInsecure());
  stack.defer(() => client.close());
  await waitFor(() => aggregator.synced && aggregator.view.nodeCount === 2, { timeoutMs: 30_000, what: "aggregator synced" });
});

afterAll(() => stack.close());

describe("DisruptionService", () => {
  it("previews a pool: an unknown file reboots under the shipped defaults", async () => {
    const res = await preview({ target: { $case: "pool", value: "worker" }, machineConfig: proposed });
    expect(res.nodes.map((n) => [n.node, n.pool, n.currentConfig, n.error])).toEqual([
      ["worker-a", "worker", "rendered-worker-1", ""],
      ["worker-b", "worker", "rendered-worker-1", ""],
    ]);
    expect(res.nodes[0]!.decision).toMatchObject({ reboot: true, drain: true, actions: [{ type: "Reboot" }] });
    expect(res.nodes[0]!.decision!.trace).toEqual([expect.objectContaining({ kind: "file", key: "/etc/example/app.conf", policy: "" })]);
  });

  it("a NodeDisruptionPolicy created through the API changes the next preview", async () => {
    await kc.makeApiClient(CustomObjectsApi).createClusterCustomObject({
      group: "lockstep.io",
      version: "v1alpha1",
      plural: "nodedisruptionpolicies",
      body: {
        apiVersion: "lockstep.io/v1alpha1",
        kind: "NodeDisruptionPolicy",
        metadata: { name: "admin-app" },
        spec: { files: [{ path: "/etc/example", actions: [{ type: "Restart", restart: { serviceName: "app.service" } }] }] },
      },
    });
    let res: PreviewConfigChangeResponse | undefined;
    await waitFor(
      async () => {
        res = await preview({ target: { $case: "node", value: "worker-b" }, machineConfig: proposed });
        return res.nodes[0]?.decision?.reboot === false;
      },
      { timeoutMs: 20_000, what: "preview reflecting the new policy" },
    );
    expect(res!.nodes).toHaveLength(1);
    expect(res!.nodes[0]!.decision).toMatchObject({ reboot: false, drain: false, actions: [{ type: "Restart", serviceName: "app.service" }] });
    expect(res!.nodes[0]!.decision!.trace[0]).toMatchObject({ policy: "admin-app", key: "/etc/example/app.conf" });

    const policies = await new Promise<ListEffectivePoliciesResponse>((resolve, reject) => client.listEffectivePolicies({}, (e, r) => (e ? reject(e) : resolve(r))));
    expect(policies.rules).toContainEqual(expect.objectContaining({ kind: "file", key: "/etc/example", policy: "admin-app", default: false }));
    expect(policies.rules.some((r) => r.default)).toBe(true);
  });

  it("rejects bad requests with INVALID_ARGUMENT and a clear message", async () => {
    await expect(preview({ target: undefined, machineConfig: proposed })).rejects.toThrow(/INVALID_ARGUMENT: set exactly one target/);
    await expect(preview({ target: { $case: "pool", value: "nope" }, machineConfig: proposed })).rejects.toThrow(/pool "nope" does not exist/);
    await expect(preview({ target: { $case: "node", value: "worker-a" }, machineConfig: "a: [unclosed" })).rejects.toThrow(/not valid YAML or JSON/);
    await expect(preview({ target: { $case: "node", value: "worker-a" }, machineConfig: "kind: Pod\nmetadata: {name: x}" })).rejects.toThrow(/expected MachineConfig/);
    await expect(preview({ target: { $case: "node", value: "worker-a" }, machineConfig: "" })).rejects.toThrow(/machine_config is empty/);
  });
});
