// The lease webhook on the real path: kube-sim calls it over HTTPS for every matching write, as
// kube-apiserver does, and it answers from a real lease-coordinator's view of the Leases.
import { CoreV1Api, PatchStrategy, setHeaderOptions, AdmissionregistrationV1Api, type KubeConfig } from "@kubernetes/client-node";
import { OperationType } from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { silentLogger } from "@lockstep/runtime";
import { createTestPki, hasOpenssl, waitFor, type TestPki } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESIRED_CONFIG } from "./disruption.js";
import { KubeNodeLookups } from "./node-lookups.js";
import { DEFAULT_ACTS_FOR } from "./verdict.js";
import type { LeaseWebhook } from "./webhook.js";
import { leaseWebhookPart } from "./webhook-part.js";
import { DEFAULT_POLICY } from "@lockstep/lease-policy";
import { acquire, call, eventsOf, startWorld, type World } from "../test-harness.js";

const ADMIN = "kube-admin-token";
const MCC = "system:serviceaccount:openshift-machine-config-operator:machine-config-controller";

describe.skipIf(!hasOpenssl())("the lease webhook called by the API server", () => {
  let world: World;
  let pki: TestPki;
  let webhook: LeaseWebhook;
  let oncall: KubeConfig;

  const patchNode = (kc: KubeConfig, name: string, patch: object) =>
    kc.makeApiClient(CoreV1Api).patchNode({ name, body: patch }, setHeaderOptions("Content-Type", PatchStrategy.MergePatch));
  const holderOf = (node: string) => {
    const h = world.replicas[0]!.lc.holdOf(node);
    return h && "lease" in h ? h.lease.holder : undefined;
  };
  const failure = (p: Promise<unknown>) => p.then(() => undefined, (e: { code?: number; body?: string }) => ({ code: e.code, message: JSON.parse(e.body ?? "{}").message as string }));

  beforeAll(async () => {
    pki = createTestPki();
    world = await startWorld({
      nodes: ["w1", "w2"],
      sim: { token: ADMIN, users: [{ token: "t-oncall", name: "oncall", groups: ["lockstep:break-glass"] }] },
    });
    const replica = world.replicas[0]!;
    // As main.ts binds it: a service part reading the coordinator's holds.
    webhook = await leaseWebhookPart({
      tls: { cert: pki.pem("server.crt"), key: pki.pem("server.key") },
      port: 0,
      host: "127.0.0.1",
      policy: DEFAULT_POLICY,
      holds: replica.lc,
      lookups: new KubeNodeLookups(world.kc),
      actsFor: DEFAULT_ACTS_FOR,
      breakGlassGroups: ["lockstep:break-glass"],
      logger: silentLogger(),
    }).start();
    const rule = (resources: string[], operations: string[]) => ({ apiGroups: [""], apiVersions: ["v1"], resources, operations });
    await world.kc.makeApiClient(AdmissionregistrationV1Api).createValidatingWebhookConfiguration({
      body: {
        metadata: { name: "lockstep-leases" },
        webhooks: [
          {
            name: "nodes.leases.lockstep.io",
            clientConfig: { url: `https://127.0.0.1:${webhook.port}/validate`, caBundle: pki.pem("ca.crt").toString("base64") },
            rules: [rule(["nodes"], ["UPDATE", "DELETE"]), rule(["pods/eviction"], ["CREATE"])],
            failurePolicy: "Fail",
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            timeoutSeconds: 5,
          },
        ],
      },
    });
    oncall = kubeConfigForUrl(world.sim.url, "t-oncall");
    await world.core.createNamespace({ body: { metadata: { name: "apps" } } });
    await world.core.createNamespacedPod({ namespace: "apps", body: { metadata: { name: "web-1" }, spec: { nodeName: "w1", containers: [{ name: "c", image: "x" }] } } });
  }, 60_000);
  afterAll(async () => {
    await webhook?.stop();
    await world?.stop();
    pki?.remove();
  });

  it("refuses the update of a node under another's maintenance lease and lets it through once released", async () => {
    const client = world.replicas[0]!.client;
    expect((await acquire(client, { node: "w1", holder: "alice", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "disk swap", durationSeconds: 600 })).granted).toBe(true);
    await waitFor(() => world.replicas[0]!.lc.holdOf("w1"), { what: "the lease in the coordinator's view" });

    const refused = await failure(patchNode(world.kc, "w1", { metadata: { annotations: { [DESIRED_CONFIG]: "rendered-worker-b" } } }));
    expect(refused?.code).toBe(403);
    expect(refused?.message).toMatch(/^admission webhook "nodes.leases.lockstep.io" denied the request: node w1 is leased to alice for Maintenance \("disk swap"\) until .* left\): kube-sim-admin may not start an update of w1/);
    expect((await world.core.readNode({ name: "w1" })).metadata?.annotations?.[DESIRED_CONFIG]).toBeUndefined();

    // The node nobody holds is updated as usual; so is w1 once alice releases.
    await patchNode(world.kc, "w2", { metadata: { annotations: { [DESIRED_CONFIG]: "rendered-worker-b" } } });
    expect(await call(client, "release", { node: "w1", holder: "alice" })).toEqual({ released: true });
    await waitFor(() => world.replicas[0]!.lc.holdOf("w1") === undefined, { what: "the release in the coordinator's view" });
    await patchNode(world.kc, "w1", { metadata: { annotations: { [DESIRED_CONFIG]: "rendered-worker-b" } } });
  });

  it("refuses a drain (eviction) and a cordon of a node the MCO updates, except by the MCO itself", async () => {
    const client = world.replicas[0]!.client;
    expect((await acquire(client, { node: "w1", holder: `${MCC}/w1`, operation: OperationType.OPERATION_TYPE_UPDATE, durationSeconds: 600 })).granted).toBe(true);
    await waitFor(() => holderOf("w1") === `${MCC}/w1`, { what: "the update lease in view" });
    const evicted = await failure(world.core.createNamespacedPodEviction({ name: "web-1", namespace: "apps", body: { metadata: { name: "web-1", namespace: "apps" } } }));
    expect(evicted).toMatchObject({ code: 403, message: expect.stringContaining("kube-sim-admin may not evict pod apps/web-1") });
    const cordon = await failure(patchNode(world.kc, "w1", { spec: { unschedulable: true } }));
    expect(cordon).toMatchObject({ code: 403, message: expect.stringContaining("may not cordon w1") });
    expect(await call(client, "release", { node: "w1", holder: `${MCC}/w1` })).toEqual({ released: true });
  });

  it("lets break-glass through and publishes the override", async () => {
    const client = world.replicas[0]!.client;
    expect((await acquire(client, { node: "w2", holder: "bob", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "firmware", durationSeconds: 600 })).granted).toBe(true);
    await waitFor(() => holderOf("w2") === "bob", { what: "bob's lease in view" });
    await patchNode(oncall, "w2", { spec: { unschedulable: true } });
    expect((await world.core.readNode({ name: "w2" })).spec?.unschedulable).toBe(true);
    const warning = await waitFor(() => eventsOf(world, "warning.raised").find((m) => m.warning?.code === "BreakGlass"), { what: "the BreakGlass event" });
    expect(warning.warning.node).toBe("w2");
    expect(warning.warning.message).toMatch(/^break-glass: oncall may cordon w2 although node w2 is leased to bob for Maintenance/);
  });
});
