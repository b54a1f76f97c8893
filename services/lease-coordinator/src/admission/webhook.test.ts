// The lease webhook over real HTTPS: AdmissionReviews posted as the API server posts them, the
// coordinator's lease view stood in by a table, the pod/machine → node look-ups against kube-sim.
import { request } from "node:https";
import { ApiextensionsV1Api, CoreV1Api, CustomObjectsApi } from "@kubernetes/client-node";
import { OperationType, type NodeLease } from "@lockstep/contracts";
import { kubeConfigForUrl } from "@lockstep/kube/client-node";
import { startKubeSim, type KubeSim } from "@lockstep/kube-sim";
import { silentLogger } from "@lockstep/runtime";
import { createTestPki, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DESIRED_CONFIG } from "./disruption.js";
import { KubeNodeLookups } from "./node-lookups.js";
import { DEFAULT_ACTS_FOR } from "./verdict.js";
import { startLeaseWebhook, type LeaseWebhook, type ReviewOutcome } from "./webhook.js";
import { DEFAULT_POLICY } from "@lockstep/lease-policy";

const NOW = Date.parse("2026-11-25T17:00:00Z");
const MCO = "system:serviceaccount:openshift-machine-config-operator";

function lease(node: string, holder: string, operation: OperationType, reason = ""): NodeLease {
  return {
    node, namespace: "lockstep-leases", leaseName: node, holder, operation, reason, acquireTime: new Date(NOW - 60_000), renewTime: new Date(NOW - 60_000),
    durationSeconds: 3600, transitions: 0, foreign: false, resourceVersion: "1", preemptedBy: "", preemptTime: undefined, preemptionRequestedBy: "",
  };
}

function review(req: Record<string, unknown>): object {
  return { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", request: { uid: "uid-1", userInfo: { username: "nobody", groups: [] }, ...req } };
}

describe.skipIf(!hasOpenssl())("the lease webhook", () => {
  let pki: TestPki;
  let sim: KubeSim;
  let webhook: LeaseWebhook;
  let unavailable: string | undefined;
  const outcomes: ReviewOutcome[] = [];
  const refusals: Array<[string, string]> = [];
  const audits: string[] = [];
  const warned: Array<[string, string, string]> = [];
  const leases = new Map<string, NodeLease>([
    ["w1", lease("w1", "alice", OperationType.OPERATION_TYPE_MAINTENANCE, "disk swap")],
    ["w2", lease("w2", `${MCO}:machine-config-controller/w2`, OperationType.OPERATION_TYPE_UPDATE)],
  ]);

  function post(body: unknown, path = "/validate", method = "POST"): Promise<{ status: number; body: any }> {
    return new Promise((resolve, reject) => {
      const text = typeof body === "string" ? body : JSON.stringify(body);
      const req = request({ host: "127.0.0.1", port: webhook.port, path, method, agent: false, ca: pki.pem("ca.crt"), servername: "localhost", headers: { "content-type": "application/json" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const raw = Buffer.concat(chunks).toString("utf8");
          let parsed: unknown = raw;
          try {
            parsed = JSON.parse(raw);
          } catch {}
          resolve({ status: res.statusCode ?? 0, body: parsed });
        });
      });
      req.on("error", reject);
      req.end(text);
    });
  }

  /** POSTs `total` bytes in 1 MiB chunks without a Content-Length (chunked), as a streaming sender would. */
  function postChunked(total: number): Promise<{ status: number; body: string }> {
    return new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port: webhook.port, path: "/validate", method: "POST", agent: false, ca: pki.pem("ca.crt"), servername: "localhost", headers: { "content-type": "application/json" } }, (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      });
      req.on("error", reject);
      const chunk = Buffer.alloc(1024 * 1024, "x");
      let sent = 0;
      const more = (): void => {
        while (sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", more);
        }
        req.end();
      };
      more();
    });
  }

  beforeAll(async () => {
    pki = createTestPki();
    sim = await startKubeSim({});
    const kc = kubeConfigForUrl(sim.url);
    const core = kc.makeApiClient(CoreV1Api);
    await core.createNamespace({ body: { metadata: { name: "apps" } } });
    await core.createNamespacedPod({ namespace: "apps", body: { metadata: { name: "web-1" }, spec: { nodeName: "w1", containers: [{ name: "c", image: "x" }] } } });
    await core.createNamespacedPod({ namespace: "apps", body: { metadata: { name: "web-3" }, spec: { nodeName: "w3", containers: [{ name: "c", image: "x" }] } } });
    // The machine-api's Machine, reduced to what the look-up reads.
    await kc.makeApiClient(ApiextensionsV1Api).createCustomResourceDefinition({
      body: {
        metadata: { name: "machines.machine.openshift.io" },
        spec: {
          group: "machine.openshift.io",
          scope: "Namespaced",
          names: { plural: "machines", singular: "machine", kind: "Machine", listKind: "MachineList" },
          versions: [{ name: "v1beta1", served: true, storage: true, subresources: { status: {} }, schema: { openAPIV3Schema: { type: "object", "x-kubernetes-preserve-unknown-fields": true } as object } }],
        },
      },
    });
    await core.createNamespace({ body: { metadata: { name: "openshift-machine-api" } } });
    const machines = { group: "machine.openshift.io", version: "v1beta1", namespace: "openshift-machine-api", plural: "machines" };
    const custom = kc.makeApiClient(CustomObjectsApi);
    const created = await custom.createNamespacedCustomObject({ ...machines, body: { apiVersion: "machine.openshift.io/v1beta1", kind: "Machine", metadata: { name: "m1" } } });
    // The machine controller links the Machine to its Node in status.
    await custom.replaceNamespacedCustomObjectStatus({ ...machines, name: "m1", body: { ...created, status: { nodeRef: { kind: "Node", name: "w1" } } } });
    webhook = await startLeaseWebhook({
      tls: { cert: pki.pem("server.crt"), key: pki.pem("server.key") },
      port: 0,
      host: "127.0.0.1",
      policy: DEFAULT_POLICY,
      holds: {
        holdOf: (node) => {
          if (unavailable) return { unavailable };
          const lease = leases.get(node);
          // Renewed a minute before NOW for an hour: 59 minutes left.
          return lease && { lease, expiresInSeconds: 3540, adminHold: false };
        },
        auditBreakGlass: (node, message, code) => (code === undefined ? audits.push(message) : warned.push([node, code, message])),
      },
      lookups: new KubeNodeLookups(kc),
      actsFor: DEFAULT_ACTS_FOR,
      breakGlassGroups: ["lockstep:break-glass"],
      logger: silentLogger(),
      onReview: (o) => outcomes.push(o),
      onRefused: (r) => refusals.push([r.requester, r.operation]),
      clock: () => NOW,
    });
  }, 30_000);
  afterAll(async () => {
    await webhook?.stop();
    await sim?.stop();
    pki?.remove();
  });

  const nodeUpdate = (name: string, user: string, from: string, to: string, groups: string[] = []) =>
    review({
      resource: { group: "", version: "v1", resource: "nodes" }, name, operation: "UPDATE", userInfo: { username: user, groups },
      object: { metadata: { name, annotations: { [DESIRED_CONFIG]: to } } }, oldObject: { metadata: { name, annotations: { [DESIRED_CONFIG]: from } } },
    });

  it("refuses the MCO's update of a node another holder keeps under maintenance, naming holder, operation and term", async () => {
    const res = await post(nodeUpdate("w1", `${MCO}:machine-config-controller`, "rendered-a", "rendered-b"));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "uid-1", allowed: false, status: { code: 403, reason: "Forbidden" } } });
    expect(res.body.response.status.message).toBe(
      `node w1 is leased to alice for Maintenance ("disk swap") until 2026-11-25T17:59:00.000Z (59m left): ${MCO}:machine-config-controller may not start an update of w1 (${DESIRED_CONFIG} rendered-a → rendered-b) until it is released or expires [MaintenanceFlagged]`,
    );
    // Counted for lockstep_webhook_refusals_total: who was refused, for which operation.
    expect(refusals).toEqual([[`${MCO}:machine-config-controller`, "Update"]]);
  });

  it("warns of an application owner's pod deletion (outcome warned, published unless a dry run) and refuses a disruptor's", async () => {
    const podDelete = (username: string, dryRun = false) =>
      review({ resource: { group: "", version: "v1", resource: "pods" }, namespace: "apps", name: "web-1", operation: "DELETE", userInfo: { username, groups: [] }, oldObject: { metadata: { name: "web-1" }, spec: { nodeName: "w1" } }, dryRun });
    const res = await post(podDelete("dev"));
    expect(res.body.response).toEqual({ uid: "uid-1", allowed: true, warnings: [expect.stringMatching(/^node w1 is leased to alice for Maintenance \("disk swap"\) until .*: dev deleted a pod on it/)] });
    expect(outcomes.at(-1)).toBe("warned");
    expect(warned).toEqual([["w1", "PodDeleteOnLeasedNode", res.body.response.warnings[0]]]);
    expect((await post(podDelete("dev", true))).body.response.allowed).toBe(true);
    expect(warned).toHaveLength(1);
    const mcd = await post(podDelete(`${MCO}:machine-config-daemon`));
    expect(mcd.body.response).toMatchObject({ allowed: false, status: { message: expect.stringContaining(`${MCO}:machine-config-daemon may not delete pod apps/web-1`) } });
  });

  it("allows the update of a node nobody holds, and a holder's own work on its node", async () => {
    expect((await post(nodeUpdate("w3", `${MCO}:machine-config-controller`, "a", "b"))).body.response).toEqual({ uid: "uid-1", allowed: true });
    const drain = review({ resource: { group: "", version: "v1", resource: "nodes" }, name: "w2", operation: "UPDATE", userInfo: { username: `${MCO}:machine-config-daemon` }, object: { spec: { unschedulable: true } }, oldObject: { spec: {} } });
    expect((await post(drain)).body.response.allowed).toBe(true);
    expect(refusals).toHaveLength(2); // the two refusals before, none more
  });

  it("looks up the node of an evicted pod and of a deleted Machine", async () => {
    const evict = (pod: string) => review({ resource: { group: "", version: "v1", resource: "pods" }, subResource: "eviction", namespace: "apps", name: pod, operation: "CREATE", userInfo: { username: "bob" } });
    expect((await post(evict("web-1"))).body.response).toMatchObject({ allowed: false, status: { message: expect.stringContaining("bob may not evict pod apps/web-1") } });
    expect((await post(evict("web-3"))).body.response.allowed).toBe(true);
    expect((await post(evict("gone"))).body.response.allowed).toBe(true); // the eviction 404s by itself
    const deleteMachine = review({ resource: { group: "machine.openshift.io", version: "v1beta1", resource: "machines" }, namespace: "openshift-machine-api", name: "m1", operation: "DELETE", userInfo: { username: "scaler" }, oldObject: { metadata: { name: "m1" }, status: { nodeRef: { name: "w1" } } } });
    expect((await post(deleteMachine)).body.response.status.message).toContain("scaler may not delete machine openshift-machine-api/m1");
    const powerOff = review({
      resource: { group: "metal3.io", version: "v1alpha1", resource: "baremetalhosts" }, namespace: "openshift-machine-api", name: "h1", operation: "UPDATE", userInfo: { username: "bmo" },
      object: { spec: { online: false, consumerRef: { kind: "Machine", name: "m1", namespace: "openshift-machine-api" } } }, oldObject: { spec: { online: true } },
    });
    expect((await post(powerOff)).body.response.status.message).toContain("bmo may not power off bare-metal host openshift-machine-api/h1");
  });

  it("lets break-glass through, says so in a warning and reports it for the event log", async () => {
    const res = await post(nodeUpdate("w1", "oncall", "a", "b", ["lockstep:break-glass"]));
    expect(res.body.response).toMatchObject({ allowed: true, warnings: [expect.stringMatching(/^break-glass: oncall may start an update of w1 \(.*\) although node w1 is leased to alice for Maintenance/)] });
    expect(audits).toHaveLength(1);
  });

  it("answers 503 while its lease view cannot be trusted, so the failurePolicy decides", async () => {
    unavailable = "the state plane is stale";
    try {
      expect(await post(nodeUpdate("w1", "x", "a", "b"))).toEqual({ status: 503, body: "the state plane is stale" });
    } finally {
      unavailable = undefined;
    }
  });

  it("answers bad requests with a clear status and keeps serving", async () => {
    expect(await post("{not json")).toMatchObject({ status: 400, body: expect.stringContaining("not JSON") });
    expect(await post({ kind: "Pod" })).toMatchObject({ status: 400, body: expect.stringContaining("expected an admission.k8s.io/v1 AdmissionReview") });
    expect(await post(review({ uid: "" }))).toMatchObject({ status: 400, body: "request.uid is empty" });
    expect(await post({}, "/other")).toMatchObject({ status: 404 });
    expect(await post({}, "/validate", "GET")).toMatchObject({ status: 405 });
    expect(await post("x".repeat(3 * 1024 * 1024 + 1))).toMatchObject({ status: 413, body: expect.stringContaining("over 3145728 bytes") });
    expect((await post(nodeUpdate("w3", "x", "a", "b"))).status).toBe(200);
    expect(outcomes).toContain("error");
  });

  it("answers a 60 MB body with 413, with or without a Content-Length, instead of closing the connection", async () => {
    expect(await post("x".repeat(60 * 1024 * 1024))).toMatchObject({ status: 413, body: expect.stringContaining("over 3145728 bytes") });
    expect(await postChunked(60 * 1024 * 1024)).toMatchObject({ status: 413, body: expect.stringContaining("over 3145728 bytes") });
    expect((await post(nodeUpdate("w3", "x", "a", "b"))).status).toBe(200);
    expect(outcomes).toContain("error");
  });
});
