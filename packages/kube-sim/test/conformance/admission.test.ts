// Validating admission webhooks as Lockstep's lease webhook will meet them: a real HTTPS webhook
// server started here (certificates from openssl), ValidatingWebhookConfigurations created through
// @kubernetes/client-node, and every refusal checked in the exact shape kube-apiserver gives it.
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import type { TLSSocket } from "node:tls";
import * as k8s from "@kubernetes/client-node";
import { createTestPki, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { kubeConfigFor, type KubeSim } from "../../src/index.js";
import { apiError, call, conformanceServer, onRealServer, realServerBefore, settled, SIM_ONLY, until } from "../helpers.js";

const ADMIN_TOKEN = "admin-token";
const NS = "lockstep-admission";
const SERVICE_HOST = `coordinator.${NS}.svc`;
const MERGE = k8s.setHeaderOptions("Content-Type", k8s.PatchStrategy.MergePatch);
const DESIRED = "machineconfiguration.openshift.io/desiredConfig";
// How webhook call errors read: 1.20 says neither "failed to call webhook: " nor "received invalid webhook response: ".
const CALL_FAILED = realServerBefore(21) ? "" : "failed to call webhook: ";
const INVALID_RESPONSE = realServerBefore(21) ? "" : "received invalid webhook response: ";

type Review = { apiVersion: string; kind: string; request: Record<string, any> };
/** A raw HTTP answer of the test webhook server (anything else a decision returns is the `response`). */
type Answer = { http: { status?: number; body?: unknown; delayMs?: number } };
type Decide = (r: Review) => Answer | Record<string, unknown>;

let pki: TestPki;
let otherPki: TestPki;
let server: Server;
let webhookUrl: string;
let sim: KubeSim;
let core: k8s.CoreV1Api;
let admission: k8s.AdmissionregistrationV1Api;
const received: Review[] = [];
let adminUser = "";
// A real server loads webhook configurations through an informer: configure() adds a canary webhook there and waits
// until the server calls it, so the configuration is in force (the canary's reviews are not in `received`).
const canariesSeen = new Set<string>();
let canaries = 0;
let decide: Decide = () => ({ allowed: true });

/** An allowing/denying `response` for a review (uid echoed). */
const respond = (r: Review, response: Record<string, unknown>): Answer => ({
  http: { body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: r.request.uid, ...response } } },
});

function startWebhookServer(): Promise<Server> {
  // The server certificate is valid for 127.0.0.1 (url webhooks) and for the service DNS name.
  const ssl = (...args: string[]) => execFileSync("openssl", args, { cwd: pki.dir, stdio: "pipe" });
  writeFileSync(`${pki.dir}/webhook.ext`, `subjectAltName=IP:127.0.0.1,DNS:${SERVICE_HOST}\n`);
  ssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", "webhook.key", "-out", "webhook.csr", "-subj", "/CN=webhook");
  ssl("x509", "-req", "-in", "webhook.csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial", "-out", "webhook.crt", "-days", "1", "-extfile", "webhook.ext");
  const s = createServer({ key: pki.pem("webhook.key"), cert: pki.pem("webhook.crt") }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const review = JSON.parse(Buffer.concat(chunks).toString("utf8")) as Review;
      if (req.url?.startsWith("/canary/")) {
        canariesSeen.add(req.url.split("?")[0]!);
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end(JSON.stringify(respond(review, { allowed: true }).http.body));
        return;
      }
      review.request.path = req.url;
      review.request.sni = (req.socket as TLSSocket).servername;
      received.push(review);
      const out = decide(review);
      const answer = ("http" in out ? (out as Answer) : respond(review, out)).http;
      const send = () => {
        if (res.destroyed) return;
        const text = typeof answer.body === "string" ? answer.body : JSON.stringify(answer.body ?? {});
        res.writeHead(answer.status ?? 200, { "Content-Type": "application/json" });
        res.end(text);
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  return new Promise((resolve) => s.listen(0, "127.0.0.1", () => resolve(s)));
}

interface HookSpec {
  name?: string;
  rules?: k8s.V1RuleWithOperations[];
  failurePolicy?: "Fail" | "Ignore";
  timeoutSeconds?: number;
  url?: string;
  service?: k8s.AdmissionregistrationV1ServiceReference;
  caBundle?: string;
  namespaceSelector?: k8s.V1LabelSelector;
  objectSelector?: k8s.V1LabelSelector;
}

const NODE_RULES: k8s.V1RuleWithOperations[] = [{ operations: ["UPDATE", "DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] }];

async function configure(...hooks: HookSpec[]): Promise<k8s.V1ValidatingWebhookConfiguration> {
  const canary = `/canary/${++canaries}`;
  const canaryHook: HookSpec = {
    name: "canary.lockstep.io",
    url: `${webhookUrl}${canary}`,
    rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }],
    objectSelector: { matchLabels: { "lockstep.io/canary": "true" } },
  };
  const created = await admission.createValidatingWebhookConfiguration({
    body: {
      metadata: { name: hooks.length ? "lockstep-leases" : "lockstep-canary" },
      webhooks: [...hooks, ...(onRealServer ? [canaryHook] : [])].map((h, i) => ({
        name: h.name ?? `lease-${i}.lockstep.io`,
        rules: h.rules ?? NODE_RULES,
        failurePolicy: h.failurePolicy,
        timeoutSeconds: h.timeoutSeconds,
        sideEffects: "None",
        admissionReviewVersions: ["v1"],
        namespaceSelector: h.namespaceSelector,
        objectSelector: h.objectSelector,
        clientConfig: {
          ...(h.service ? { service: h.service } : { url: h.url ?? `${webhookUrl}/validate` }),
          caBundle: h.caBundle ?? pki.pem("ca.crt").toString("base64"),
        },
      })),
    },
  });
  if (onRealServer) {
    const probe = { metadata: { generateName: "canary-", labels: { "lockstep.io/canary": "true" } } };
    await until(async () => {
      await core.createNamespacedConfigMap({ namespace: NS, dryRun: "All", body: probe }).catch(() => undefined);
      return canariesSeen.has(canary);
    }, "the webhook configuration in force");
    received.length = 0; // the probes, where a test's own webhook matched them too
  }
  return created;
}

/** Removes every webhook configuration; on a real server waits until none is in force (a canary-only one). */
async function unconfigure(): Promise<void> {
  await admission.deleteCollectionValidatingWebhookConfiguration({});
  if (onRealServer) await configure();
}

const annotate = (name: string, annotations: Record<string, string>, api = core) => api.patchNode({ name, body: { metadata: { annotations } } }, MERGE);

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const { createServer: tcp } = await import("node:net");
  const s = tcp();
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

// The 1.20 oracle sends an UPDATE's oldObject equal to its object (README, "Known differences"): there the
// webhook can judge by the new object alone (no node here has a desiredConfig to begin with).
const ORACLE_OLD_IS_NEW = realServerBefore(21);
const denyDesiredConfig: Decide = (r) => {
  const before = ORACLE_OLD_IS_NEW ? undefined : r.request.oldObject?.metadata?.annotations?.[DESIRED];
  const after = r.request.object?.metadata?.annotations?.[DESIRED];
  if (r.request.operation === "UPDATE" && before === after) return { allowed: true };
  return { allowed: false, status: { code: 403, reason: "Forbidden", message: `node ${r.request.name} is leased by admin (Maintenance) for 10m` } };
};

describe.skipIf(!hasOpenssl())("validating admission webhooks", () => {
  beforeAll(async () => {
    pki = createTestPki();
    otherPki = createTestPki();
    server = await startWebhookServer();
    webhookUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
    sim = await conformanceServer({ token: ADMIN_TOKEN, webhookServices: { [`${NS}/coordinator`]: webhookUrl } });
    const kc = kubeConfigFor(sim, k8s.KubeConfig);
    core = kc.makeApiClient(k8s.CoreV1Api);
    admission = kc.makeApiClient(k8s.AdmissionregistrationV1Api);
    adminUser = (await kc.makeApiClient(k8s.AuthenticationV1Api).createTokenReview({ body: { spec: { token: sim.token! } } })).status!.user!.username!;
    await core.createNamespace({ body: { metadata: { name: NS } } });
    for (const name of ["worker-0", "worker-1"]) await core.createNode({ body: { metadata: { name, labels: { "node-role.kubernetes.io/worker": "" } } } });
  });

  afterEach(async () => {
    await unconfigure();
    received.length = 0;
    if (!onRealServer) sim.admission.clear();
    decide = () => ({ allowed: true });
  });

  afterAll(async () => {
    await sim?.stop();
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    pki?.remove();
    otherPki?.remove();
  });

  it("serves ValidatingWebhookConfiguration (discovery, defaulting, validation)", async () => {
    const res = await call(sim, "GET", "/apis/admissionregistration.k8s.io/v1");
    expect(res.json.resources).toContainEqual(expect.objectContaining({ name: "validatingwebhookconfigurations", namespaced: false, kind: "ValidatingWebhookConfiguration" }));
    const created = await configure({});
    const w = created.webhooks![0]!;
    expect(w).toMatchObject({ failurePolicy: "Fail", matchPolicy: "Equivalent", timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {} });
    expect(w.rules![0]!.scope).toBe("*");
    expect(created.metadata?.generation).toBe(1);
    const bad = await apiError(
      admission.createValidatingWebhookConfiguration({ body: { metadata: { name: "bad" }, webhooks: [{ name: "a.b.c", clientConfig: { url: "https://x" }, admissionReviewVersions: ["v1"] } as any] } }),
    );
    expect(bad.code).toBe(422);
    expect(bad.body.message).toBe('ValidatingWebhookConfiguration.admissionregistration.k8s.io "bad" is invalid: webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun');
  });

  it("a Node desiredConfig change is denied with the webhook's message; other changes pass; the review is complete", async () => {
    decide = denyDesiredConfig;
    await configure({});
    const err = await apiError(annotate("worker-0", { [DESIRED]: "rendered-worker-2" }));
    expect(err.code).toBe(403);
    expect(err.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'admission webhook "lease-0.lockstep.io" denied the request: node worker-0 is leased by admin (Maintenance) for 10m',
      reason: "Forbidden",
      code: 403,
    });
    expect((await core.readNode({ name: "worker-0" })).metadata?.annotations?.[DESIRED]).toBeUndefined();

    const node = await annotate("worker-0", { "example.com/note": "fine" });
    expect(node.metadata?.annotations?.["example.com/note"]).toBe("fine");

    const [denied, allowed] = received.map((r) => r.request);
    expect(received[0]!.apiVersion).toBe("admission.k8s.io/v1");
    expect(received[0]!.kind).toBe("AdmissionReview");
    expect(denied).toMatchObject({
      kind: { group: "", version: "v1", kind: "Node" },
      resource: { group: "", version: "v1", resource: "nodes" },
      requestKind: { group: "", version: "v1", kind: "Node" },
      requestResource: { group: "", version: "v1", resource: "nodes" },
      name: "worker-0",
      operation: "UPDATE",
      userInfo: { username: adminUser, groups: ["system:masters", "system:authenticated"] },
      dryRun: false,
      options: { kind: "UpdateOptions", apiVersion: "meta.k8s.io/v1" },
      path: "/validate?timeout=10s",
    });
    expect(denied!.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(denied!.namespace).toBeUndefined();
    expect(denied!.subResource).toBeUndefined();
    expect(denied!.object.metadata.annotations[DESIRED]).toBe("rendered-worker-2");
    if (!ORACLE_OLD_IS_NEW) expect(denied!.oldObject.metadata.annotations?.[DESIRED]).toBeUndefined();
    // The final object: what is then stored (same resourceVersion base, uid, timestamps).
    expect(allowed!.object.metadata.uid).toBe(node.metadata?.uid);
    if (onRealServer) return; // the rest reads kube-sim's own record of the calls
    expect(sim.admission.denials().map((c) => [c.webhook, c.outcome, c.code])).toEqual([["lease-0.lockstep.io", "denied", 403]]);
    const viaHttp = await call(sim, "GET", "/_sim/admission?denials=true");
    expect(viaHttp.json.calls).toMatchObject([{ webhook: "lease-0.lockstep.io", outcome: "denied", code: 403, name: "worker-0", operation: "UPDATE" }]);
    expect(viaHttp.json.calls[0].request).toBeUndefined();
    expect(sim.admission.calls.map((c) => c.outcome)).toEqual(["denied", "allowed"]);
  });

  it("a Node DELETE is denied (object null, oldObject the node, DeleteOptions)", async () => {
    decide = denyDesiredConfig;
    await configure({});
    const err = await apiError(core.deleteNode({ name: "worker-1", body: { propagationPolicy: "Background" } }));
    expect(err.code).toBe(403);
    expect(err.body.message).toBe('admission webhook "lease-0.lockstep.io" denied the request: node worker-1 is leased by admin (Maintenance) for 10m');
    expect((await core.readNode({ name: "worker-1" })).metadata?.name).toBe("worker-1");
    const r = received[0]!.request;
    expect(r).toMatchObject({ operation: "DELETE", name: "worker-1", object: null, options: { kind: "DeleteOptions", apiVersion: "meta.k8s.io/v1", propagationPolicy: "Background" } });
    expect(r.oldObject.metadata.name).toBe("worker-1");
  });

  it("the status subresource and deletecollection go through admission (per object)", async () => {
    // A deletecollection reviews each object with the collection's attributes: no name; the object is oldObject.
    decide = (r) => (r.request.operation === "DELETE" && r.request.oldObject?.metadata?.name === "cm-b" ? { allowed: false, status: { code: 403, message: "keep cm-b" } } : { allowed: true });
    await configure({
      rules: [
        { operations: ["UPDATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes/status"] },
        { operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] },
      ],
    });
    await core.patchNodeStatus({ name: "worker-0", body: { status: { phase: "Running" } } }, MERGE);
    expect(received[0]!.request).toMatchObject({ operation: "UPDATE", subResource: "status", requestSubResource: "status", name: "worker-0" });
    for (const name of ["cm-a", "cm-b", "cm-c"]) await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name } } });
    expect(received).toHaveLength(1); // CREATE does not match
    const err = await apiError(core.deleteCollectionNamespacedConfigMap({ namespace: NS }));
    expect(err.code).toBe(403);
    expect(err.body.message).toBe('admission webhook "lease-0.lockstep.io" denied the request: keep cm-b');
    const left = (await core.listNamespacedConfigMap({ namespace: NS })).items.map((c) => c.metadata?.name);
    expect(left).toEqual(["cm-b", "cm-c"]); // one worker, as kube-apiserver's default: stops at the first refusal
    expect(received.slice(1).map((r) => [r.request.operation, r.request.name, r.request.namespace, r.request.oldObject.metadata.name])).toEqual([
      ["DELETE", undefined, NS, "cm-a"],
      ["DELETE", undefined, NS, "cm-b"],
    ]);
    await unconfigure();
    await core.deleteCollectionNamespacedConfigMap({ namespace: NS });
  });

  it("a pod eviction is denied: the object is the Eviction, name and namespace the pod's", async () => {
    decide = (r) => ({ allowed: false, status: { code: 429, reason: "TooManyRequests", message: "node worker-0 is leased by admin (Maintenance) for 10m" } });
    await configure({ rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["pods/eviction"], scope: "Namespaced" }] });
    await core.createNamespacedPod({ namespace: NS, body: { metadata: { name: "web-1", labels: { app: "web" } }, spec: { nodeName: "worker-0", containers: [{ name: "c", image: "x" }] } } });
    expect(received).toHaveLength(0); // pods CREATE is not pods/eviction
    const err = await apiError(core.createNamespacedPodEviction({ name: "web-1", namespace: NS, body: { metadata: { name: "web-1", namespace: NS } } }));
    expect(err.code).toBe(429);
    expect(err.body).toMatchObject({ reason: "TooManyRequests", message: 'admission webhook "lease-0.lockstep.io" denied the request: node worker-0 is leased by admin (Maintenance) for 10m' });
    expect((await core.readNamespacedPod({ name: "web-1", namespace: NS })).metadata?.deletionTimestamp).toBeUndefined();
    // policy/v1 Eviction is served from 1.22; 1.20 reviews a policy/v1beta1 one.
    const evictionVersion = realServerBefore(22) ? "v1beta1" : "v1";
    expect(received[0]!.request).toMatchObject({
      kind: { group: "policy", version: evictionVersion, kind: "Eviction" },
      resource: { group: "", version: "v1", resource: "pods" },
      subResource: "eviction",
      name: "web-1",
      namespace: NS,
      operation: "CREATE",
      object: { apiVersion: `policy/${evictionVersion}`, kind: "Eviction", metadata: { name: "web-1", namespace: NS } },
      oldObject: null,
      options: { kind: "CreateOptions", apiVersion: "meta.k8s.io/v1" },
    });
    decide = () => ({ allowed: true });
    await core.createNamespacedPodEviction({ name: "web-1", namespace: NS, body: { metadata: { name: "web-1", namespace: NS } } });
    expect((await core.readNamespacedPod({ name: "web-1", namespace: NS })).metadata?.deletionTimestamp).toBeDefined();
    await core.deleteNamespacedPod({ name: "web-1", namespace: NS, gracePeriodSeconds: 0 });
  });

  it("with the webhook down, failurePolicy Ignore lets the request through and Fail refuses it with 500 InternalError", async () => {
    const port = await closedPort();
    const url = `https://127.0.0.1:${port}/validate`;
    await configure({ url, failurePolicy: "Ignore" });
    await annotate("worker-0", { [DESIRED]: "rendered-worker-3" });
    if (!onRealServer) {
      expect(sim.admission.calls).toMatchObject([{ outcome: "error", ignored: true }]);
      expect(sim.admission.denials()).toEqual([]);
    }

    await unconfigure();
    await configure({ url });
    const err = await apiError(annotate("worker-0", { [DESIRED]: "rendered-worker-4" }));
    const text = `failed calling webhook "lease-0.lockstep.io": ${CALL_FAILED}Post "${url}?timeout=10s": dial tcp 127.0.0.1:${port}: connect: connection refused`;
    expect(err.code).toBe(500);
    expect(err.body).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: `Internal error occurred: ${text}`,
      reason: "InternalError",
      details: { causes: [{ message: text }] },
      code: 500,
    });
    expect((await core.readNode({ name: "worker-0" })).metadata?.annotations?.[DESIRED]).toBe("rendered-worker-3");
  });

  it("a webhook slower than timeoutSeconds is a call error (context deadline exceeded)", async () => {
    decide = () => ({ http: { delayMs: 1500, body: {} } });
    await configure({ timeoutSeconds: 1 });
    const started = Date.now();
    const err = await apiError(annotate("worker-0", { [DESIRED]: "rendered-worker-5" }));
    if (!onRealServer) expect(Date.now() - started).toBeLessThan(1400);
    expect(err.code).toBe(500);
    expect(err.body.message).toBe(
      `Internal error occurred: failed calling webhook "lease-0.lockstep.io": ${CALL_FAILED}Post "${webhookUrl}/validate?timeout=1s": context deadline exceeded`,
    );
    await unconfigure();
    await configure({ timeoutSeconds: 1, failurePolicy: "Ignore" });
    await annotate("worker-0", { [DESIRED]: "rendered-worker-5" });
  });

  it("a server certificate not signed by the caBundle is a call error: Fail refuses", async () => {
    await configure({ caBundle: otherPki.pem("ca.crt").toString("base64") });
    const err = await apiError(annotate("worker-0", { "example.com/x": "1" }));
    expect(err.code).toBe(500);
    // Go 1.20+ (Kubernetes 1.27+) words it "tls: failed to verify certificate: …"; the 1.20 oracle is built with Go 1.19.
    if (realServerBefore(27)) expect(err.body.message).toContain(`Post "${webhookUrl}/validate?timeout=10s": x509: certificate signed by unknown authority`);
    else
      expect(err.body.message).toBe(
        `Internal error occurred: failed calling webhook "lease-0.lockstep.io": failed to call webhook: Post "${webhookUrl}/validate?timeout=10s": tls: failed to verify certificate: x509: certificate signed by unknown authority`,
      );
    expect(received).toHaveLength(0);
  });

  it("a service webhook is reached through the resolver with the service's DNS name as TLS server name", async (ctx) => {
    ctx.skip(onRealServer, "kube-sim only: its webhookServices resolver stands in for cluster DNS");
    decide = (r) => ({ allowed: false, status: { code: 403, message: `seen at ${r.request.path}` } });
    await configure({ service: { namespace: NS, name: "coordinator", path: "/leases", port: 8443 } });
    const err = await apiError(annotate("worker-0", { "example.com/x": "2" }));
    expect(err.body.message).toBe('admission webhook "lease-0.lockstep.io" denied the request: seen at /leases?timeout=10s');
    expect(sim.admission.calls[0]!.url).toBe(`https://${SERVICE_HOST}:8443/leases?timeout=10s`);
    expect(received[0]!.request.sni).toBe(SERVICE_HOST);

    // Unresolved service: the real name is dialled (no cluster DNS) and named in the error.
    await unconfigure();
    await configure({ service: { namespace: NS, name: "nowhere", port: 443 } });
    const down = await apiError(annotate("worker-0", { "example.com/x": "3" }));
    expect(down.body.message).toContain(`Internal error occurred: failed calling webhook "lease-0.lockstep.io": failed to call webhook: Post "https://nowhere.${NS}.svc:443?timeout=10s": `);
  });

  it("userInfo carries the ServiceAccount of a TokenRequest token", async () => {
    await core.createNamespacedServiceAccount({ namespace: NS, body: { metadata: { name: "machine-config-controller" } } });
    const sa = await core.readNamespacedServiceAccount({ namespace: NS, name: "machine-config-controller" });
    const tr = await core.createNamespacedServiceAccountToken({ name: "machine-config-controller", namespace: NS, body: { spec: { audiences: [] } } });
    const saCore = kubeConfigFor({ url: sim.url, token: tr.status!.token }, k8s.KubeConfig).makeApiClient(k8s.CoreV1Api);
    // What the MCO's controller may do to nodes (a real server authorizes; kube-sim here does not).
    const rbac = kubeConfigFor(sim, k8s.KubeConfig).makeApiClient(k8s.RbacAuthorizationV1Api);
    await rbac.createClusterRole({ body: { metadata: { name: "node-patcher" }, rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "patch"] }] } });
    await rbac.createClusterRoleBinding({
      body: {
        metadata: { name: "mcc-node-patcher" },
        roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "node-patcher" },
        subjects: [{ kind: "ServiceAccount", name: "machine-config-controller", namespace: NS }],
      },
    });
    await configure({});
    await settled(() => annotate("worker-1", { [DESIRED]: "rendered-worker-6" }, saCore));
    const u = received[0]!.request.userInfo;
    expect(u).toMatchObject({
      username: `system:serviceaccount:${NS}:machine-config-controller`,
      uid: sa.metadata?.uid,
      groups: ["system:serviceaccounts", `system:serviceaccounts:${NS}`, "system:authenticated"],
    });
    // The credential id (the token's jti) is in extra from 1.30.
    if (!realServerBefore(30)) expect(u.extra["authentication.kubernetes.io/credential-id"]).toHaveLength(1);
  });

  it("objectSelector and namespaceSelector decide which requests are sent", async () => {
    await core.createNamespace({ body: { metadata: { name: "prod", labels: { env: "prod" } } } });
    await core.createNamespace({ body: { metadata: { name: "dev", labels: { env: "dev" } } } });
    const cmRules: k8s.V1RuleWithOperations[] = [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }];
    await configure(
      { name: "objects.lockstep.io", rules: cmRules, objectSelector: { matchLabels: { "lockstep.io/enforce": "true" } } },
      { name: "namespaces.lockstep.io", rules: cmRules, namespaceSelector: { matchLabels: { env: "prod" } } },
      // namespaceSelector does not apply to cluster-scoped objects: every Node update is sent.
      { name: "nodes.lockstep.io", namespaceSelector: { matchLabels: { env: "prod" } } },
    );
    const cm = (namespace: string, name: string, labels?: Record<string, string>) => core.createNamespacedConfigMap({ namespace, body: { metadata: { name, labels } } });
    await cm("dev", "plain");
    await cm("dev", "labelled", { "lockstep.io/enforce": "true" });
    await cm("prod", "plain");
    await annotate("worker-0", { "example.com/x": "4" });
    expect(received.map((r) => `${r.request.namespace ?? ""}/${r.request.name ?? r.request.object?.metadata?.name}`)).toEqual(["dev/labelled", "prod/plain", "/worker-0"]);
    if (!onRealServer) expect(sim.admission.calls.map((c) => c.webhook)).toEqual(["objects.lockstep.io", "namespaces.lockstep.io", "nodes.lockstep.io"]);
  });

  it("warnings come back as Warning headers; allowed requests keep them too", async () => {
    decide = () => ({ allowed: true, warnings: ['node worker-0 has a maintenance lease "m-1" until 12:10', "second"] });
    await configure({});
    const res = await call(sim, "PATCH", "/api/v1/nodes/worker-0", { metadata: { labels: { x: "y" } } }, { "content-type": "application/merge-patch+json" });
    expect(res.status).toBe(200);
    expect(res.headers.warning).toBe('299 - "node worker-0 has a maintenance lease \\"m-1\\" until 12:10", 299 - "second"');

    // deletecollection keeps the warnings of every object.
    await unconfigure();
    for (const name of ["warn-a", "warn-b"]) await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { name, labels: { warn: "1" } } } });
    decide = (r) => ({ allowed: true, warnings: [`deleting ${r.request.oldObject.metadata.name}`] });
    await configure({ rules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }] });
    const del = await call(sim, "DELETE", `/api/v1/namespaces/${NS}/configmaps?labelSelector=warn%3D1`);
    expect(del.status).toBe(200);
    expect(del.headers.warning).toBe('299 - "deleting warn-a", 299 - "deleting warn-b"');
  });

  it("misbehaving webhooks never crash kube-sim: wrong uid, not JSON, HTTP 500, no response", async () => {
    const cases: Array<[Decide, string]> = [
      [() => ({ http: { body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: "other", allowed: true } } } }), `${INVALID_RESPONSE}expected response.uid=`],
      [() => ({ http: { body: "<html>oops</html>" } }), `${CALL_FAILED}couldn't get version/kind; json parse error: `],
      // 1.20 does not quote the webhook's body here.
      [() => ({ http: { status: 500, body: "boom" } }), `${CALL_FAILED}an error on the server ("${realServerBefore(21) ? "unknown" : "boom"}") has prevented the request from succeeding`],
      [() => ({ http: { body: { apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview" } } }), `${INVALID_RESPONSE}webhook response was absent`],
      [
        (r) => ({ http: { body: { apiVersion: "admission.k8s.io/v1beta1", kind: "AdmissionReview", response: { uid: r.request.uid, allowed: true } } } }),
        realServerBefore(21)
          ? "converting (v1beta1.AdmissionReview) to (v1.AdmissionReview): unknown conversion"
          : `${INVALID_RESPONSE}expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got admission.k8s.io/v1beta1, Kind=AdmissionReview`,
      ],
    ];
    await configure({});
    for (const [d, text] of cases) {
      decide = d;
      const err = await apiError(annotate("worker-0", { "example.com/y": text.slice(0, 10) }));
      expect(err.code).toBe(500);
      expect(err.body.message).toContain(`Internal error occurred: failed calling webhook "lease-0.lockstep.io": ${text}`);
    }
    // A denial without status: 400 and "without explanation", as ToStatusErr.
    decide = () => ({ allowed: false });
    const err = await apiError(annotate("worker-0", { "example.com/y": "z" }));
    expect([err.code, err.body.message]).toEqual([400, 'admission webhook "lease-0.lockstep.io" denied the request without explanation']);
    expect((await call(sim, "GET", "/healthz")).status).toBe(200);
  });

  it("an object changed while its webhooks run is admitted again from the new state (GuaranteedUpdate retry)", async (ctx) => {
    ctx.skip(onRealServer, SIM_ONLY.store);
    let first = true;
    decide = (r) => {
      if (!first) return { allowed: true };
      first = false;
      // While the first review is in flight, someone else updates the node; the answer comes late.
      const nodes = sim.store.registry.get("", "nodes")!;
      const cur = sim.store.get(nodes, undefined, "worker-1").obj;
      sim.store.update(nodes, undefined, "worker-1", { ...cur, metadata: { ...cur.metadata, labels: { ...cur.metadata!.labels, racer: "yes" } } });
      return { http: { delayMs: 100, body: respond(r, { allowed: true }).http.body } };
    };
    await configure({});
    const node = await annotate("worker-1", { "example.com/mine": "yes" });
    expect(node.metadata?.labels?.racer).toBe("yes");
    expect(node.metadata?.annotations?.["example.com/mine"]).toBe("yes");
    expect(received).toHaveLength(2);
    expect(received[1]!.request.oldObject.metadata.labels.racer).toBe("yes");
  });

  it("a CREATE under generateName is reviewed with the generated name; deletecollection is served inside a namespace only", async () => {
    await configure({ rules: [{ operations: ["CREATE", "DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }] });
    const cm = await core.createNamespacedConfigMap({ namespace: NS, body: { metadata: { generateName: "gen-" } } });
    expect(received[0]!.request.name).toBe(cm.metadata?.name);
    expect(received[0]!.request.object.metadata.name).toBe(cm.metadata?.name);
    const everywhere = await call(sim, "DELETE", "/api/v1/configmaps");
    expect(everywhere.status).toBe(405);
    expect(everywhere.json).toMatchObject({ reason: "MethodNotAllowed", message: "the server does not allow this method on the requested resource" });
    expect(received).toHaveLength(1);
    const res = await call(sim, "DELETE", `/api/v1/namespaces/${NS}/configmaps`);
    expect(res.status).toBe(200);
    const deletions = received.slice(1).map((r) => [r.request.operation, r.request.namespace, r.request.name, r.request.oldObject.metadata.name]);
    expect(deletions).toContainEqual(["DELETE", NS, undefined, cm.metadata?.name]);
  });

  it("dryRun requests are sent with dryRun true and store nothing", async () => {
    await configure({ rules: [{ operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["configmaps"] }] });
    await core.createNamespacedConfigMap({ namespace: NS, dryRun: "All", body: { metadata: { name: "dry" } } });
    expect(received[0]!.request).toMatchObject({ dryRun: true, options: { kind: "CreateOptions", dryRun: ["All"] } });
    expect((await apiError(core.readNamespacedConfigMap({ namespace: NS, name: "dry" }))).code).toBe(404);
  });
});
