// The lease webhook against the other ways a node is disrupted (issue 29), with separate processes:
// the lease-coordinator process serves the webhook, kube-sim calls it under the chart's own
// registration (the demo's copy, CEL matchConditions included) and, with a maintenance lease held
// by an admin, another's NoExecute taint, a known disruptor's direct pod deletion, a power-on and a
// remediation CR are refused; the lifecycle controller's taint and an application owner's pod
// deletion (warned, ADMISSION_POD_DELETE=Warn, the default) pass; all pass once released.
import { request } from "node:https";
import { onDemoRelease } from "@lockstep/cluster-sim";
import { OperationType } from "@lockstep/contracts";
import { leaseWebhookConfiguration } from "@lockstep/demo";
import { medik8sCrdManifests } from "@lockstep/kube-sim";
import { BARE_METAL_HOST_CRD, createTestPki, freePort, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, until, type TestSystem } from "./system.js";

const SPEC = onDemoRelease({ name: "webhook-disruptions", pools: [{ name: "worker", size: 2, maxUnavailable: 1 }] });
const MACHINES = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines";
const HOSTS = "/apis/metal3.io/v1alpha1/namespaces/openshift-machine-api/baremetalhosts";
const SNRS = "/apis/self-node-remediation.medik8s.io/v1alpha1/namespaces/openshift-workload-availability/selfnoderemediations";
const MCO_NS = "openshift-machine-config-operator";
const MCD = `system:serviceaccount:${MCO_NS}:machine-config-daemon`;


describe.skipIf(!hasOpenssl())("the lease webhook against taints, pod deletions, power-on and remediation, served by the lease-coordinator process", () => {
  let pki: TestPki;
  let t: TestSystem;
  let port: number;
  let node: string;
  const tokens: Record<string, string> = {};

  /** One request to kube-sim's HTTP API as any client makes it: status, parsed body, the API server's warnings. */
  const api = async (method: string, path: string, body?: object, token?: string, contentType = "application/json") => {
    const headers: Record<string, string> = { "content-type": contentType, accept: "application/json" };
    if (token) headers.authorization = `Bearer ${token}`;
    const res = await fetch(`${t.env.kube.url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    return { status: res.status, body: (await res.json().catch(() => undefined)) as any, warnings: res.headers.get("warning") ?? "" };
  };
  const merge = (path: string, body: object, token?: string) => api("PATCH", path, body, token, "application/merge-patch+json");
  const taint = (key: string) => merge(`/api/v1/nodes/${node}`, { spec: { taints: [{ key, effect: "NoExecute" }] } });
  const pod = (name: string) => api("POST", "/api/v1/namespaces/shop/pods", { apiVersion: "v1", kind: "Pod", metadata: { name }, spec: { nodeName: node, containers: [{ name: "c", image: "shop" }] } });
  const deletePod = (name: string, token: string) => api("DELETE", `/api/v1/namespaces/shop/pods/${name}`, undefined, token);
  const powerOn = () => merge(`${HOSTS}/host-${node}`, { spec: { online: true } });
  const remediate = () => api("POST", SNRS, { apiVersion: "self-node-remediation.medik8s.io/v1alpha1", kind: "SelfNodeRemediation", metadata: { name: node }, spec: {} });
  /** A ServiceAccount's token (the account and its namespace made if missing). */
  const tokenOf = async (namespace: string, name: string) => {
    await api("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: namespace } });
    await api("POST", `/api/v1/namespaces/${namespace}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name } });
    const minted = await api("POST", `/api/v1/namespaces/${namespace}/serviceaccounts/${name}/token`, { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} });
    expect(minted.status).toBe(201);
    return minted.body.status.token as string;
  };
  const healthy = () =>
    new Promise<boolean>((resolve) => {
      const req = request({ host: "127.0.0.1", port, path: "/healthz", ca: pki.pem("ca.crt"), servername: "localhost", agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode === 200);
      });
      req.on("error", () => resolve(false));
      req.end();
    });

  beforeAll(async () => {
    pki = createTestPki();
    port = await freePort();
    t = await startTestSystem({
      spec: SPEC,
      serviceEnv: { "lease-coordinator": { ADMISSION_TLS_CERT: pki.path("server.crt"), ADMISSION_TLS_KEY: pki.path("server.key"), ADMISSION_PORT: String(port) } },
    });
    await until("the webhook to answer", healthy, 30_000);
    // The chart's registration, reaching the process by URL (kube-sim has no Service network).
    const config = leaseWebhookConfiguration(pki.pem("ca.crt")) as { webhooks: Array<{ clientConfig: Record<string, unknown> }> };
    for (const w of config.webhooks) w.clientConfig = { url: `https://127.0.0.1:${port}/validate`, caBundle: pki.pem("ca.crt").toString("base64") };
    expect((await api("POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", config)).status).toBe(201);

    for (const crd of [...medik8sCrdManifests(), BARE_METAL_HOST_CRD]) await api("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd);
    await until("the CRDs to be served", async () => (await api("GET", HOSTS)).status === 200 && (await api("GET", SNRS.replace("/namespaces/openshift-workload-availability", ""))).status === 200, 15_000);
    node = (await api("GET", "/api/v1/nodes?labelSelector=node-role.kubernetes.io%2Fworker")).body.items[0].metadata.name;
    tokens.owner = await tokenOf("shop", "owner");
    tokens.mcd = await tokenOf(MCO_NS, "machine-config-daemon");
    await api("POST", "/api/v1/namespaces", { apiVersion: "v1", kind: "Namespace", metadata: { name: "openshift-workload-availability" } });
    for (const p of ["cart-1", "cart-2"]) expect((await pod(p)).status).toBe(201);
    const m = await api("POST", MACHINES, { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: `machine-${node}`, namespace: "openshift-machine-api" } });
    expect(m.status).toBe(201);
    expect((await api("PUT", `${MACHINES}/machine-${node}/status`, { ...m.body, status: { nodeRef: { kind: "Node", name: node } } })).status).toBe(200);
    const host = { apiVersion: "metal3.io/v1alpha1", kind: "BareMetalHost", metadata: { name: `host-${node}`, namespace: "openshift-machine-api" }, spec: { online: false, consumerRef: { kind: "Machine", name: `machine-${node}`, namespace: "openshift-machine-api" } } };
    expect((await api("POST", HOSTS, host)).status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    pki?.remove();
  });

  it("holds a node under an admin's maintenance against them, and lets them all through once released", async () => {
    const granted = await t.clients.call(t.clients.lease, t.clients.lease.acquire, {
      node, holder: "admin/dimm", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "replace a DIMM", durationSeconds: 600, waitSeconds: 0, force: false,
    });
    expect(granted.granted).toBe(true);
    const held = new RegExp(`^admission webhook "[a-z-]+\\.leases\\.lockstep\\.io" denied the request: node ${node} is leased to admin/dimm for Maintenance \\("replace a DIMM"\\) until `);

    // Another's NoExecute taint is a drain; the node lifecycle controller's own passes.
    const tainted = await taint("example.com/evacuate");
    expect(tainted.status).toBe(403);
    expect(tainted.body.message).toMatch(held);
    expect(tainted.body.message).toContain(`may not taint ${node} example.com/evacuate:NoExecute`);
    expect((await taint("node.kubernetes.io/unreachable")).status).toBe(200);
    expect((await merge(`/api/v1/nodes/${node}`, { spec: { taints: null } })).status).toBe(200);

    // A known disruptor's direct pod deletion is refused; the application owner's own passes, warned and audited.
    const byMcd = await deletePod("cart-1", tokens.mcd!);
    expect(byMcd.status).toBe(403);
    expect(byMcd.body.message).toMatch(held);
    expect(byMcd.body.message).toContain(`${MCD} may not delete pod shop/cart-1`);
    const byOwner = await deletePod("cart-2", tokens.owner!);
    expect(byOwner.status).toBe(200);
    expect(byOwner.warnings).toMatch(new RegExp(`node ${node} is leased to admin/dimm .*: system:serviceaccount:shop:owner deleted a pod on it`));
    await until("the PodDeleteOnLeasedNode event", () => t.events.events.find((e) => e.fact === "warning.raised" && (e.message as any)?.warning?.code === "PodDeleteOnLeasedNode"), 15_000);

    const on = await powerOn();
    expect(on.status).toBe(403);
    expect(on.body.message).toContain(`may not power on bare-metal host openshift-machine-api/host-${node}`);
    const snr = await remediate();
    expect(snr.status).toBe(403);
    expect(snr.body.message).toMatch(held);
    expect(snr.body.message).toContain(`may not remediate ${node} (selfnoderemediations)`);

    await t.clients.call(t.clients.lease, t.clients.lease.release, { node, holder: "admin/dimm" });
    await until("the taint to pass once the lease is released", async () => (await taint("example.com/evacuate")).status === 200, 15_000);
    expect((await merge(`/api/v1/nodes/${node}`, { spec: { taints: null } })).status).toBe(200);
    expect(await deletePod("cart-1", tokens.mcd!)).toMatchObject({ status: 200, warnings: "" });
    expect((await powerOn()).status).toBe(200);
    expect((await remediate()).status).toBe(201);
  });
});
