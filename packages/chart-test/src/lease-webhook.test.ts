// The lease webhook's chart wiring (leaseWebhook.*): its registration with one webhook per failure
// policy, the CA the API server verifies it with in each certificate mode, the Service and container
// port, the NetworkPolicy opening, and ADMISSION_* on the lease-coordinator.
import { X509Certificate } from "node:crypto";
import { leaseWebhookConfiguration } from "@lockstep/demo";
import { evaluateMatchConditions } from "@lockstep/kube-sim";
import { DEFAULT_TAINT_EXEMPT_KEYS } from "@lockstep/lease-coordinator";
import { describe, expect, it } from "vitest";
import { renderChart, type Manifest, type Values } from "./chart.js";
import { chartDir } from "./paths.js";

const render = (values: Values = {}, kubeVersion?: string) => renderChart(chartDir, { values, kubeVersion }).manifests;
const named = (ms: Manifest[], kind: string, name: string) => ms.find((m) => m.kind === kind && m.metadata.name === name) as any;
const vwc = (ms: Manifest[]) => named(ms, "ValidatingWebhookConfiguration", "lockstep-leases");
const coordinator = (ms: Manifest[]) => named(ms, "Deployment", "lockstep-lease-coordinator").spec.template.spec.containers[0];
const envOf = (ms: Manifest[]) => Object.fromEntries(coordinator(ms).env.map((e: any) => [e.name, e.value]));
const ENABLED: Values = { leaseWebhook: { enabled: true } };

describe("leaseWebhook off (leaseWebhook.enabled=false)", () => {
  it("renders no registration, no port and no ADMISSION_* variable", () => {
    const ms = render({ leaseWebhook: { enabled: false } });
    expect(ms.filter((m) => m.kind === "ValidatingWebhookConfiguration")).toEqual([]);
    expect(coordinator(ms).ports.map((p: any) => p.name)).toEqual(["grpc", "http"]);
    expect(Object.keys(envOf(ms)).filter((k) => k.startsWith("ADMISSION_"))).toEqual([]);
  });
});

describe("leaseWebhook on (the default)", () => {
  const ms = render(ENABLED);

  it("is what the default values render", () => {
    // Each render generates its own self-signed CA; everything but the bundle is the same.
    const withoutCa = (m: any) => m.webhooks.map((h: any) => ({ ...h, clientConfig: { ...h.clientConfig, caBundle: undefined } }));
    expect(withoutCa(vwc(render()))).toEqual(withoutCa(vwc(ms)));
  });

  it("fails open everywhere on API servers without matchConditions (before 1.28), where a fail-closed Node UPDATE webhook would hold every node write", () => {
    const old = vwc(render(ENABLED, "1.27.9")).webhooks;
    expect(old.map((h: any) => [h.name, h.failurePolicy, h.matchConditions])).toEqual([
      ["updates.leases.lockstep.io", "Ignore", undefined],
      ["power-off.leases.lockstep.io", "Ignore", undefined],
      ["node-disruptions.leases.lockstep.io", "Ignore", undefined],
      ["others.leases.lockstep.io", "Ignore", undefined],
      ["pod-deletes.leases.lockstep.io", "Ignore", undefined],
    ]);
    expect(vwc(render(ENABLED, "1.28.0")).webhooks.map((h: any) => h.failurePolicy)).toEqual(["Fail", "Fail", "Fail", "Ignore", "Ignore"]);
  });

  it("registers five webhooks on the lease-coordinator's Service: updates, cordons and evicting taints, and power changes fail closed, the rest fail open", () => {
    const hooks = vwc(ms).webhooks;
    expect(hooks.map((h: any) => [h.name, h.failurePolicy])).toEqual([
      ["updates.leases.lockstep.io", "Fail"],
      ["power-off.leases.lockstep.io", "Fail"],
      ["node-disruptions.leases.lockstep.io", "Fail"],
      ["others.leases.lockstep.io", "Ignore"],
      ["pod-deletes.leases.lockstep.io", "Ignore"],
    ]);
    for (const h of hooks) {
      expect(h.clientConfig.service).toEqual({ name: "lockstep-lease-coordinator", namespace: "lockstep", port: 9443, path: "/validate" });
      expect(h).toMatchObject({ sideEffects: "None", admissionReviewVersions: ["v1"], timeoutSeconds: h.name.startsWith("pod-deletes") ? 3 : 5 });
    }
    expect(hooks[0].rules).toEqual([{ apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE"], scope: "Cluster" }]);
    expect(hooks[0].matchConditions[0].expression).toContain("oldObject.metadata.annotations['machineconfiguration.openshift.io/desiredConfig'] == object.metadata.annotations['machineconfiguration.openshift.io/desiredConfig']");
    // Power-on too: undoing another's power-off or maintenance.
    expect(hooks[1].matchConditions[0].expression).toContain("!has(oldObject.spec.online) || oldObject.spec.online == false");
    expect(hooks[2].rules).toEqual([{ apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE"], scope: "Cluster" }]);
    expect(hooks[3].rules.map((r: any) => [r.resources[0], r.operations])).toEqual([
      ["nodes", ["DELETE"]],
      ["pods/eviction", ["CREATE"]],
      ["machines", ["UPDATE", "DELETE"]],
      ["selfnoderemediations", ["CREATE"]],
      ["fenceagentsremediations", ["CREATE"]],
    ]);
    // Every pod deletion in the cluster matches: the kubelets' and kube-system's never call it.
    expect(hooks[4].rules).toEqual([{ apiGroups: [""], apiVersions: ["v1"], resources: ["pods"], operations: ["DELETE"], scope: "Namespaced" }]);
    expect(hooks[4].matchConditions[0].expression).toMatch(/!request.userInfo.username.startsWith\('system:node:'\) &&\s*!request.userInfo.username.startsWith\('system:serviceaccount:kube-system:'\)/);
  });

  it("sets the pod-deletion policy and exempt taint keys; podDelete=Ignore registers no pod webhook", () => {
    expect(envOf(ms)).toMatchObject({ ADMISSION_POD_DELETE: "Warn" });
    expect(envOf(ms).ADMISSION_TAINT_EXEMPT_KEYS).toBeUndefined();
    const set = render({ leaseWebhook: { enabled: true, podDelete: "Ignore", taintExemptKeys: ["node.kubernetes.io/", "example.com/x"] } });
    expect(envOf(set)).toMatchObject({ ADMISSION_POD_DELETE: "Ignore", ADMISSION_TAINT_EXEMPT_KEYS: "node.kubernetes.io/,example.com/x" });
    expect(vwc(set).webhooks.map((h: any) => h.name)).not.toContain("pod-deletes.leases.lockstep.io");
    expect(() => render({ leaseWebhook: { enabled: true, podDelete: "Block" } })).toThrow(/podDelete/);
  });

  it("gives the API server the self-signed CA that signed the serving certificate", () => {
    const ca = named(ms, "ConfigMap", "lockstep-grpc-ca").data["ca.crt"];
    for (const h of vwc(ms).webhooks) expect(Buffer.from(h.clientConfig.caBundle, "base64").toString("utf8").trim()).toBe(ca.trim());
    const serving = new X509Certificate(Buffer.from(named(ms, "Secret", "lockstep-grpc-tls").data["tls.crt"], "base64"));
    expect(serving.verify(new X509Certificate(ca).publicKey)).toBe(true);
    expect(serving.subjectAltName).toContain("DNS:lockstep-lease-coordinator.lockstep.svc");
  });

  it("serves on the webhook port, also the Service's, with the gRPC certificate, and lets the API server in", () => {
    expect(coordinator(ms).ports).toContainEqual({ name: "webhook", containerPort: 9443, protocol: "TCP" });
    expect(named(ms, "Service", "lockstep-lease-coordinator").spec.ports).toContainEqual({ name: "webhook", port: 9443, targetPort: "webhook", protocol: "TCP" });
    expect(envOf(ms)).toMatchObject({
      ADMISSION_TLS_CERT: "/etc/lockstep/tls/tls.crt",
      ADMISSION_TLS_KEY: "/etc/lockstep/tls/tls.key",
      ADMISSION_PORT: "9443",
      ADMISSION_BREAK_GLASS_GROUPS: "lockstep:break-glass",
    });
    const np = named(ms, "NetworkPolicy", "lockstep-lease-coordinator");
    if (np) expect(np.spec.ingress).toContainEqual({ ports: [{ port: "webhook", protocol: "TCP" }] });
  });

  it("with cert-manager asks its CA injector for the bundle; with your own Secret takes leaseWebhook.caBundle", () => {
    const cm = vwc(render({ ...ENABLED, global: { grpcTls: { certManager: { issuerRef: { name: "ca-issuer" } } } } }));
    expect(cm.metadata.annotations).toEqual({ "cert-manager.io/inject-ca-from": "lockstep/lockstep-grpc-tls" });
    expect(cm.webhooks[0].clientConfig.caBundle).toBeUndefined();
    const own = vwc(render({ leaseWebhook: { enabled: true, caBundle: "-----BEGIN CERTIFICATE-----\nX\n-----END CERTIFICATE-----\n" }, global: { grpcTls: { secretName: "mine" } } }));
    expect(Buffer.from(own.webhooks[0].clientConfig.caBundle, "base64").toString()).toContain("BEGIN CERTIFICATE");
  });

  it("refuses to render without gRPC TLS, or with your own Secret but no CA", () => {
    expect(() => render({ ...ENABLED, global: { grpcTls: { enabled: false } } })).toThrow(/leaseWebhook.enabled needs global.grpcTls.enabled/);
    expect(() => render({ ...ENABLED, global: { grpcTls: { secretName: "mine" } } })).toThrow(/leaseWebhook.caBundle is required with global.grpcTls.secretName/);
    expect(() => render({ leaseWebhook: { enabled: true, failurePolicy: { updates: "Sometimes" } } })).toThrow(/failurePolicy/);
  });
});

describe("the node-disruptions webhook's matchConditions (CEL, evaluated as kube-apiserver does)", () => {
  const hookOf = (values: Values = ENABLED) => vwc(render(values)).webhooks.find((h: any) => h.name === "node-disruptions.leases.lockstep.io");
  const node = (spec: Record<string, unknown> | undefined) => ({ apiVersion: "v1", kind: "Node", metadata: { name: "w1", labels: { a: "b" } }, ...(spec ? { spec } : {}) });
  const calls = (hook: any, oldSpec: Record<string, unknown> | undefined, newSpec: Record<string, unknown> | undefined) => {
    const r = evaluateMatchConditions(hook.matchConditions, { object: node(newSpec), oldObject: node(oldSpec), request: { userInfo: { username: "alice" } } }, hook.failurePolicy);
    if ("error" in r) throw new Error(r.error);
    return r.call;
  };
  const taint = (key: string, effect: string, value?: string) => ({ key, effect, ...(value !== undefined ? { value } : {}) });

  it("calls the webhook for a cordon and an added or changed NoExecute or out-of-service taint, and for nothing else", () => {
    const h = hookOf();
    expect(calls(h, {}, { unschedulable: true })).toBe(true);
    expect(calls(h, { unschedulable: false }, { unschedulable: true })).toBe(true);
    expect(calls(h, { unschedulable: true }, { unschedulable: true })).toBe(false); // a no-op
    expect(calls(h, { unschedulable: true }, { unschedulable: false })).toBe(false); // uncordon
    expect(calls(h, {}, {})).toBe(false); // a label or status write
    expect(calls(h, undefined, undefined)).toBe(false); // no spec at all: no evaluation error under Fail
    expect(calls(h, {}, { taints: [taint("example.com/drain", "NoExecute")] })).toBe(true);
    expect(calls(h, { taints: [taint("example.com/drain", "NoExecute", "a")] }, { taints: [taint("example.com/drain", "NoExecute", "b")] })).toBe(true);
    expect(calls(h, { taints: [taint("example.com/drain", "NoExecute")] }, { taints: [taint("example.com/drain", "NoExecute")] })).toBe(false);
    expect(calls(h, { taints: [taint("example.com/drain", "NoExecute")] }, {})).toBe(false); // removed
    expect(calls(h, {}, { taints: [taint("example.com/soft", "NoSchedule")] })).toBe(false);
    expect(calls(h, {}, { taints: [taint("node.kubernetes.io/out-of-service", "NoSchedule", "nodeshutdown")] })).toBe(true);
    // Kubernetes' own: the node lifecycle controller never waits on Lockstep.
    expect(calls(h, {}, { taints: [taint("node.kubernetes.io/unreachable", "NoExecute")] })).toBe(false);
    expect(calls(h, {}, { taints: [taint("node.cloudprovider.kubernetes.io/shutdown", "NoExecute")] })).toBe(false);
  });

  it("exempts by default exactly the keys the lease-coordinator exempts by default", () => {
    const listed = /!\(t\.key in \[([^\]]*)\]\)/.exec(hookOf().matchConditions[0].expression)![1]!;
    expect(listed.split(", ").map((k) => k.replace(/^'|'$/g, ""))).toEqual([...DEFAULT_TAINT_EXEMPT_KEYS]);
  });

  it("exempts leaseWebhook.taintExemptKeys as ADMISSION_TAINT_EXEMPT_KEYS does (an entry ending in / is a prefix)", () => {
    const h = hookOf({ leaseWebhook: { enabled: true, taintExemptKeys: ["example.com/", "other.io/x"] } });
    expect(calls(h, {}, { taints: [taint("example.com/anything", "NoExecute")] })).toBe(false);
    expect(calls(h, {}, { taints: [taint("other.io/x", "NoExecute")] })).toBe(false);
    expect(calls(h, {}, { taints: [taint("other.io/y", "NoExecute")] })).toBe(true);
    // Replacing the defaults: the lifecycle controller's keys are judged again, as the coordinator would.
    expect(calls(h, {}, { taints: [taint("node.kubernetes.io/unreachable", "NoExecute")] })).toBe(true);
  });

  it("is what the demo and the e2e tests register (everything but where the Service is)", () => {
    const strip = (hooks: any[]) => hooks.map(({ clientConfig: _, ...rest }) => rest);
    const demo = leaseWebhookConfiguration(Buffer.from("ca")) as { webhooks: any[] };
    expect(strip(demo.webhooks)).toEqual(strip(vwc(render(ENABLED, "1.28.0")).webhooks));
  });
});
