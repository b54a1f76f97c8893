// The lease webhook with separate processes (issue "Leases honoured by the components that never
// ask"): the lease-coordinator process serves it over HTTPS, kube-sim calls it for every matching
// write as kube-apiserver does, and a maintenance lease then holds the node against the MCO starting
// an update and against a drain, naming the holder; once released, the node is free again.
import { request } from "node:https";
import { parseClusterSpec } from "@lockstep/cluster-sim";
import { OperationType } from "@lockstep/contracts";
import { createTestPki, freePort, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, until, type TestSystem } from "./system.js";

const SPEC = parseClusterSpec({
  name: "webhook",
  platform: "aws",
  region: "us-east-2",
  version: "4.15.12",
  history: ["4.14.20"],
  masters: 3,
  pools: [{ name: "worker", size: 2, maxUnavailable: 1 }],
  bootImageVersion: "4.15.12",
});
const DESIRED = "machineconfiguration.openshift.io/desiredConfig";

/** One request to kube-sim's HTTP API, as any client makes it; the status and the parsed body. */
async function api(base: string, method: string, path: string, body?: object, contentType = "application/json"): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, { method, headers: { "content-type": contentType, accept: "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => undefined) };
}

describe.skipIf(!hasOpenssl())("the lease webhook, served by the lease-coordinator process and called by kube-sim", () => {
  let pki: TestPki;
  let t: TestSystem;
  let port: number;

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
    const created = await api(t.env.kube.url, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
        apiVersion: "admissionregistration.k8s.io/v1",
        kind: "ValidatingWebhookConfiguration",
        metadata: { name: "lockstep-leases" },
        webhooks: [
          {
            name: "leases.lockstep.io",
            clientConfig: { url: `https://127.0.0.1:${port}/validate`, caBundle: pki.pem("ca.crt").toString("base64") },
            rules: [
              { apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE", "DELETE"] },
              { apiGroups: [""], apiVersions: ["v1"], resources: ["pods/eviction"], operations: ["CREATE"] },
            ],
            failurePolicy: "Fail",
            sideEffects: "None",
            admissionReviewVersions: ["v1"],
            timeoutSeconds: 5,
          },
        ],
    });
    expect(created.status).toBe(201);
  }, 120_000);
  afterAll(async () => {
    await t?.stop();
    pki?.remove();
  });

  it("refuses the MCO's update and the drain of a node under maintenance, naming the holder, and lets them through once released", async () => {
    const base = t.env.kube.url;
    const workers = (await api(base, "GET", "/api/v1/nodes?labelSelector=node-role.kubernetes.io%2Fworker")).body.items;
    const node: string = workers[0].metadata.name;
    const granted = await t.clients.call(t.clients.lease, t.clients.lease.acquire, {
      node, holder: "admin/maintenance", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "replace a DIMM", durationSeconds: 600, waitSeconds: 0, force: false,
    });
    expect(granted.granted).toBe(true);

    const patch = (body: object) => api(base, "PATCH", `/api/v1/nodes/${node}`, body, "application/merge-patch+json");
    const refusal = async (p: Promise<{ status: number; body: any }>) => {
      const r = await p;
      return r.status >= 200 && r.status < 300 ? undefined : { code: r.status, message: String(r.body?.message) };
    };

    const update = await refusal(patch({ metadata: { annotations: { [DESIRED]: "rendered-worker-next" } } }));
    expect(update?.code).toBe(403);
    expect(update?.message).toMatch(new RegExp(`^admission webhook "leases.lockstep.io" denied the request: node ${node} is leased to admin/maintenance for Maintenance \\("replace a DIMM"\\) until .*: .* may not start an update of ${node}`));

    const pods = (await api(base, "GET", `/api/v1/pods?fieldSelector=spec.nodeName%3D${node}`)).body.items;
    expect(pods.length).toBeGreaterThan(0);
    const pod = pods[0].metadata;
    const evicted = await refusal(
      api(base, "POST", `/api/v1/namespaces/${pod.namespace}/pods/${pod.name}/eviction`, { apiVersion: "policy/v1", kind: "Eviction", metadata: { name: pod.name, namespace: pod.namespace } }),
    );
    expect(evicted).toMatchObject({ code: 403, message: expect.stringContaining(`may not evict pod ${pod.namespace}/${pod.name}`) });
    expect(await refusal(patch({ spec: { unschedulable: true } }))).toMatchObject({ code: 403, message: expect.stringContaining(`may not cordon ${node}`) });

    await t.clients.call(t.clients.lease, t.clients.lease.release, { node, holder: "admin/maintenance" });
    await until("the cordon to pass once the lease is released", async () => (await refusal(patch({ spec: { unschedulable: true } }))) === undefined, 15_000);
    await patch({ spec: { unschedulable: false } });
  });
});
