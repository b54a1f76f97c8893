// The lease webhook against the other ways a node is disrupted (issue 29), on the real path:
// kube-sim calls the webhook over HTTPS as kube-apiserver does, for a NoExecute taint, a direct
// pod deletion, a BareMetalHost power-on and a medik8s remediation CR, with a maintenance lease
// held by an admin; everything passes again once the lease is released.
import { medik8sCrdManifests } from "@lockstep/kube-sim";
import { OperationType } from "@lockstep/contracts";
import { DEFAULT_POLICY } from "@lockstep/lease-policy";
import { silentLogger } from "@lockstep/runtime";
import { BARE_METAL_HOST_CRD, createTestPki, hasOpenssl, type TestPki, waitFor } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquire, call, eventsOf, startWorld, type World } from "../test-harness.js";
import { DEFAULT_CLASSIFY } from "./disruption.js";
import { KubeNodeLookups } from "./node-lookups.js";
import { DEFAULT_ACTS_FOR } from "./verdict.js";
import { startLeaseWebhook, type LeaseWebhook } from "./webhook.js";

const ADMIN = "kube-admin-token";
const MCD = "system:serviceaccount:openshift-machine-config-operator:machine-config-daemon";
const MACHINES = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines";
const HOSTS = "/apis/metal3.io/v1alpha1/namespaces/openshift-machine-api/baremetalhosts";
const SNRS = "/apis/self-node-remediation.medik8s.io/v1alpha1/namespaces/openshift-workload-availability/selfnoderemediations";
const FARS = "/apis/fence-agents-remediation.medik8s.io/v1alpha1/namespaces/openshift-workload-availability/fenceagentsremediations";


describe.skipIf(!hasOpenssl())("the lease webhook against taints, pod deletions, power-on and remediation", () => {
  let world: World;
  let pki: TestPki;
  let webhook: LeaseWebhook;

  /** One request as the user of `token`: status, body, and the API server's warnings. */
  const api = async (method: string, path: string, body?: object, token = ADMIN, contentType = "application/json") => {
    const res = await fetch(`${world.sim.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, "content-type": contentType, accept: "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any, warnings: res.headers.get("warning") ?? "" };
  };
  const merge = (path: string, body: object, token = ADMIN) => api("PATCH", path, body, token, "application/merge-patch+json");
  const taint = (key: string, token = ADMIN) => merge("/api/v1/nodes/w1", { spec: { taints: [{ key, effect: "NoExecute" }] } }, token);
  const pod = (name: string) => api("POST", "/api/v1/namespaces/apps/pods", { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: "w1", containers: [{ name: "c", image: "x" }] } });
  const remediation = (path: string, kind: string, group: string, spec: object) => api("POST", path, { apiVersion: `${group}/v1alpha1`, kind, metadata: { name: "w1" }, spec });
  const snr = () => remediation(SNRS, "SelfNodeRemediation", "self-node-remediation.medik8s.io", {});
  const far = () => remediation(FARS, "FenceAgentsRemediation", "fence-agents-remediation.medik8s.io", { agent: "fence_ipmilan" });
  const held = /^admission webhook "leases.lockstep.io" denied the request: node w1 is leased to admin\/dimm for Maintenance \("replace a DIMM"\) until /;

  beforeAll(async () => {
    pki = createTestPki();
    world = await startWorld({
      nodes: ["w1", "w2"],
      sim: {
        token: ADMIN,
        users: [
          { token: "t-dev", name: "dev", groups: ["developers"] },
          { token: "t-mcd", name: MCD, groups: ["system:serviceaccounts"] },
          { token: "t-kubelet", name: "system:node:w1", groups: ["system:nodes"] },
        ],
      },
    });
    const replica = world.replicas[0]!;
    webhook = await startLeaseWebhook({
      tls: { cert: pki.pem("server.crt"), key: pki.pem("server.key") },
      port: 0,
      host: "127.0.0.1",
      policy: DEFAULT_POLICY,
      holds: replica.lc,
      lookups: new KubeNodeLookups(world.kc),
      actsFor: DEFAULT_ACTS_FOR,
      breakGlassGroups: ["lockstep:break-glass"],
      classify: DEFAULT_CLASSIFY,
      logger: silentLogger(),
    });
    for (const crd of [...medik8sCrdManifests(), BARE_METAL_HOST_CRD]) expect((await api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd)).status).toBe(201);
    await waitFor(async () => (await api("GET", HOSTS)).status === 200 && (await api("GET", FARS)).status === 200, { what: "the CRDs to be served" });
    const rule = (apiGroups: string[], resources: string[], operations: string[]) => ({ apiGroups, apiVersions: ["*"], resources, operations });
    const created = await api("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name: "lockstep-leases" },
      webhooks: [
        {
          name: "leases.lockstep.io",
          clientConfig: { url: `https://127.0.0.1:${webhook.port}/validate`, caBundle: pki.pem("ca.crt").toString("base64") },
          rules: [
            rule([""], ["nodes"], ["UPDATE"]),
            rule([""], ["pods"], ["DELETE"]),
            rule(["metal3.io"], ["baremetalhosts"], ["UPDATE"]),
            rule(["self-node-remediation.medik8s.io"], ["selfnoderemediations"], ["CREATE"]),
            rule(["fence-agents-remediation.medik8s.io"], ["fenceagentsremediations"], ["CREATE"]),
          ],
          failurePolicy: "Fail",
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds: 5,
        },
      ],
    });
    expect(created.status).toBe(201);
    for (const ns of ["apps", "openshift-machine-api", "openshift-workload-availability"]) await api("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: ns } });
    for (const p of ["web-1", "web-2", "web-3", "web-4"]) expect((await pod(p)).status).toBe(201);
    const m = await api("POST", MACHINES, { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: "m-w1" } });
    expect((await api("PUT", `${MACHINES}/m-w1/status`, { ...m.body, status: { nodeRef: { kind: "Node", name: "w1" } } })).status).toBe(200);
    const host = { apiVersion: "metal3.io/v1alpha1", kind: "BareMetalHost", metadata: { name: "h-w1" }, spec: { online: false, consumerRef: { kind: "Machine", name: "m-w1", namespace: "openshift-machine-api" } } };
    expect((await api("POST", HOSTS, host)).status).toBe(201);

    expect((await acquire(replica.client, { node: "w1", holder: "admin/dimm", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "replace a DIMM", durationSeconds: 600 })).granted).toBe(true);
    await waitFor(() => replica.lc.holdOf("w1"), { what: "the lease in the coordinator's view" });
  }, 90_000);
  afterAll(async () => {
    await webhook?.stop();
    await world?.stop();
    pki?.remove();
  });

  it("refuses another's NoExecute taint (merge and JSON patch) as a drain; admits the lifecycle controller's", async () => {
    const refused = await taint("example.com/drain");
    expect(refused.status).toBe(403);
    expect(refused.body.message).toMatch(held);
    expect(refused.body.message).toContain("kube-sim-admin may not taint w1 example.com/drain:NoExecute until it is released or expires [MaintenanceFlagged]");
    const outOfService = await merge("/api/v1/nodes/w1", { spec: { taints: [{ key: "node.kubernetes.io/out-of-service", value: "nodeshutdown", effect: "NoExecute" }] } });
    expect(outOfService.status).toBe(403);
    expect(outOfService.body.message).toContain("may not taint w1 node.kubernetes.io/out-of-service:NoExecute");
    expect((await taint("node.kubernetes.io/unreachable")).status).toBe(200);
    const jsonPatch = await api("PATCH", "/api/v1/nodes/w1", [{ op: "add", path: "/spec/taints/-", value: { key: "example.com/drain", effect: "NoExecute" } }], ADMIN, "application/json-patch+json");
    expect(jsonPatch.status).toBe(403);
    // The node is as the lifecycle controller left it: only its own taint.
    expect((await api("GET", "/api/v1/nodes/w1")).body.spec.taints).toEqual([{ key: "node.kubernetes.io/unreachable", effect: "NoExecute" }]);
  });

  it("warns of an application owner's pod deletion, refuses a known disruptor's, admits the kubelet's", async () => {
    const byDev = await api("DELETE", "/api/v1/namespaces/apps/pods/web-1", undefined, "t-dev");
    expect(byDev.status).toBe(200);
    expect(byDev.warnings).toMatch(/node w1 is leased to admin\/dimm for Maintenance .*: dev deleted a pod on it/);
    const event = await waitFor(() => eventsOf(world, "warning.raised").find((e) => e.warning?.code === "PodDeleteOnLeasedNode"), { what: "the PodDeleteOnLeasedNode event" });
    expect(event.warning.node).toBe("w1");

    const byMcd = await api("DELETE", "/api/v1/namespaces/apps/pods/web-2", undefined, "t-mcd");
    expect(byMcd.status).toBe(403);
    expect(byMcd.body.message).toMatch(held);
    expect(byMcd.body.message).toContain(`${MCD} may not delete pod apps/web-2`);
    expect((await api("GET", "/api/v1/namespaces/apps/pods/web-2")).status).toBe(200);
    // A deletecollection reviews each pod by its own name; web-1, terminating since dev deleted it, is not judged again.
    const all = await api("DELETE", "/api/v1/namespaces/apps/pods", undefined, "t-mcd");
    expect(all.status).toBe(403);
    expect(all.body.message).toContain(`${MCD} may not delete pod apps/web-2`);
    expect((await api("GET", "/api/v1/namespaces/apps/pods/web-4")).status).toBe(200);

    expect((await api("DELETE", "/api/v1/namespaces/apps/pods/web-3", undefined, "t-kubelet")).status).toBe(200);
  });

  it("refuses powering the host on and creating a remediation for the node", async () => {
    const powerOn = await merge(`${HOSTS}/h-w1`, { spec: { online: true } });
    expect(powerOn.status).toBe(403);
    expect(powerOn.body.message).toContain("may not power on bare-metal host openshift-machine-api/h-w1");
    for (const create of [snr, far]) {
      const r = await create();
      expect(r.status).toBe(403);
      expect(r.body.message).toMatch(held);
      expect(r.body.message).toMatch(/may not remediate w1 \((selfnoderemediations|fenceagentsremediations)\)/);
    }
  });

  it("admits all of it once the lease is released", async () => {
    expect(await call(world.replicas[0]!.client, "release", { node: "w1", holder: "admin/dimm" })).toEqual({ released: true });
    await waitFor(() => world.replicas[0]!.lc.holdOf("w1") === undefined, { what: "the release in the coordinator's view" });
    expect((await taint("example.com/drain")).status).toBe(200);
    const byMcd = await api("DELETE", "/api/v1/namespaces/apps/pods/web-2", undefined, "t-mcd");
    expect(byMcd).toMatchObject({ status: 200, warnings: "" });
    expect((await merge(`${HOSTS}/h-w1`, { spec: { online: true } })).status).toBe(200);
    expect((await snr()).status).toBe(201);
    expect((await far()).status).toBe(201);
  });
});
