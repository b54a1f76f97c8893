// The lease webhook with separate processes (issue "Leases honoured by the components that never
// ask"): the lease-coordinator process serves it over HTTPS, kube-sim calls it for every matching
// write as kube-apiserver does, and a maintenance lease then holds the node against the MCO starting
// an update and against a drain, naming the holder; once released, the node is free again.
import { request } from "node:https";
import { onDemoRelease } from "@lockstep/cluster-sim";
import { OperationType } from "@lockstep/contracts";
import { BARE_METAL_HOST_CRD, createTestPki, freePort, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestSystem, until, type TestSystem } from "./system.js";

const SPEC = onDemoRelease({
  name: "webhook",
  pools: [{ name: "worker", size: 2, maxUnavailable: 1 }],
});
const DESIRED = "machineconfiguration.openshift.io/desiredConfig";
const DELETE_MACHINE = "machine.openshift.io/delete-machine";
const BREAK_GLASS_NS = "break-glass";
const MACHINES = "/apis/machine.openshift.io/v1beta1/namespaces/openshift-machine-api/machines";
const HOSTS = "/apis/metal3.io/v1alpha1/namespaces/openshift-machine-api/baremetalhosts";


/** One request to kube-sim's HTTP API, as any client makes it; the status, the parsed body and the API server's warnings. */
async function api(
  base: string,
  method: string,
  path: string,
  body?: object,
  contentType = "application/json",
  token?: string,
): Promise<{ status: number; body: any; warnings: string[] }> {
  const headers: Record<string, string> = { "content-type": contentType, accept: "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const warning = res.headers.get("warning");
  return { status: res.status, body: await res.json().catch(() => undefined), warnings: warning ? [warning] : [] };
}

/** The error an API write got (code and message), or undefined when it passed. */
async function refusal(p: Promise<{ status: number; body: any }>): Promise<{ code: number; message: string } | undefined> {
  const r = await p;
  return r.status >= 200 && r.status < 300 ? undefined : { code: r.status, message: String(r.body?.message) };
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
      serviceEnv: {
        "lease-coordinator": {
          ADMISSION_TLS_CERT: pki.path("server.crt"),
          ADMISSION_TLS_KEY: pki.path("server.key"),
          ADMISSION_PORT: String(port),
          // ServiceAccounts of the namespace "break-glass" stand in for the on-call group.
          ADMISSION_BREAK_GLASS_GROUPS: `system:serviceaccounts:${BREAK_GLASS_NS}`,
        },
      },
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
              { apiGroups: ["machine.openshift.io"], apiVersions: ["v1beta1"], resources: ["machines"], operations: ["UPDATE", "DELETE"] },
              { apiGroups: ["metal3.io"], apiVersions: ["v1alpha1"], resources: ["baremetalhosts"], operations: ["UPDATE"] },
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

  it("refuses deleting the node, deleting or marking its Machine and powering off its host while leased; break-glass passes and is audited", async () => {
    const base = t.env.kube.url;
    const workers = (await api(base, "GET", "/api/v1/nodes?labelSelector=node-role.kubernetes.io%2Fworker")).body.items;
    const node: string = workers[1].metadata.name;
    const machine = `machine-${node}`;
    const host = `host-${node}`;

    // The machine-api links a Machine to its Node in status; metal3 links a host to its Machine in spec.
    expect((await api(base, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", BARE_METAL_HOST_CRD)).status).toBe(201);
    await until("BareMetalHosts to be served", async () => (await api(base, "GET", HOSTS)).status === 200, 15_000);
    const created = await api(base, "POST", MACHINES, { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: machine, namespace: "openshift-machine-api" } });
    expect(created.status).toBe(201);
    const linked = await api(base, "PUT", `${MACHINES}/${machine}/status`, { ...created.body, status: { nodeRef: { kind: "Node", name: node } } });
    expect(linked.status).toBe(200);
    expect(
      (await api(base, "POST", HOSTS, {
        apiVersion: "metal3.io/v1alpha1",
        kind: "BareMetalHost",
        metadata: { name: host, namespace: "openshift-machine-api" },
        spec: { online: true, consumerRef: { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", name: machine, namespace: "openshift-machine-api" } },
      })).status,
    ).toBe(201);

    const granted = await t.clients.call(t.clients.lease, t.clients.lease.acquire, {
      node, holder: "admin/rack-move", operation: OperationType.OPERATION_TYPE_MAINTENANCE, reason: "move to rack B", durationSeconds: 600, waitSeconds: 0, force: false,
    });
    expect(granted.granted).toBe(true);
    const held = new RegExp(`node ${node} is leased to admin/rack-move for Maintenance \\("move to rack B"\\) until `);

    const powerOff = () => api(base, "PATCH", `${HOSTS}/${host}`, { spec: { online: false } }, "application/merge-patch+json");
    const markMachine = () => api(base, "PATCH", `${MACHINES}/${machine}`, { metadata: { annotations: { [DELETE_MACHINE]: "true" } } }, "application/merge-patch+json");
    const refusals = {
      deleteNode: await refusal(api(base, "DELETE", `/api/v1/nodes/${node}`)),
      deleteMachine: await refusal(api(base, "DELETE", `${MACHINES}/${machine}`)),
      markMachine: await refusal(markMachine()),
      powerOff: await refusal(powerOff()),
    };
    expect(refusals.deleteNode).toMatchObject({ code: 403, message: expect.stringMatching(held) });
    expect(refusals.deleteNode?.message).toContain(`may not delete node ${node}`);
    expect(refusals.deleteMachine?.message).toContain(`may not delete machine openshift-machine-api/${machine}`);
    expect(refusals.markMachine?.message).toContain(`may not mark machine openshift-machine-api/${machine} for deletion`);
    expect(refusals.powerOff?.message).toContain(`may not power off bare-metal host openshift-machine-api/${host}`);
    for (const r of Object.values(refusals)) expect(r?.message).toMatch(held);
    // Nothing was written: the node, the Machine and the host are as they were.
    expect((await api(base, "GET", `/api/v1/nodes/${node}`)).status).toBe(200);
    expect((await api(base, "GET", `${MACHINES}/${machine}`)).body.metadata.annotations?.[DELETE_MACHINE]).toBeUndefined();
    expect((await api(base, "GET", `${HOSTS}/${host}`)).body.spec.online).toBe(true);

    // The on-call engineer's ServiceAccount is in the break-glass group: the power-off passes, with a
    // warning to the client and a warning.raised event for the audit trail.
    expect((await api(base, "POST", `/api/v1/namespaces`, { apiVersion: "v1", kind: "Namespace", metadata: { name: BREAK_GLASS_NS } })).status).toBe(201);
    expect((await api(base, "POST", `/api/v1/namespaces/${BREAK_GLASS_NS}/serviceaccounts`, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name: "oncall" } })).status).toBe(201);
    const minted = await api(base, "POST", `/api/v1/namespaces/${BREAK_GLASS_NS}/serviceaccounts/oncall/token`, { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} });
    const token: string = minted.body.status.token;
    const forced = await api(base, "PATCH", `${HOSTS}/${host}`, { spec: { online: false } }, "application/merge-patch+json", token);
    expect(forced.status).toBe(200);
    expect(forced.body.spec.online).toBe(false);
    expect(forced.warnings.join(" ")).toMatch(new RegExp(`break-glass: system:serviceaccount:${BREAK_GLASS_NS}:oncall may power off bare-metal host openshift-machine-api/${host}`));
    const audit = await until(
      "the break-glass audit event",
      () => t.events.events.find((e) => e.fact === "warning.raised" && String(e.text).includes(`system:serviceaccount:${BREAK_GLASS_NS}:oncall`) && String(e.text).includes(host)),
      15_000,
    );
    expect(audit.text).toContain(node);

    // Released: the same operations pass for anyone.
    await t.clients.call(t.clients.lease, t.clients.lease.release, { node, holder: "admin/rack-move" });
    await until("marking the Machine to pass once the lease is released", async () => (await refusal(markMachine())) === undefined, 15_000);
    expect(await refusal(api(base, "DELETE", `${MACHINES}/${machine}`))).toBeUndefined();
  });
});
