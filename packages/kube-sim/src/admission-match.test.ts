import { describe, expect, it } from "vitest";
import { isExempt, matchingVersion, matchingWebhooks, namespaceSelectorMatches, objectSelectorMatches, ruleMatches, type AdmissionAttributes } from "./admission-match.js";
import { denial, warningHeaders } from "./admission.js";
import { parseConfiguration, validatingWebhookConfigurationHooks, type WebhookRule } from "./webhook-config.js";
import type { KubeObject } from "./types.js";

const rule = (r: Partial<WebhookRule>): WebhookRule => ({ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"], scope: "*", ...r });
const node = (op = "UPDATE", sub = "") => ({ operation: op, resource: { group: "", version: "v1", resource: "nodes" }, subresource: sub, namespace: "" });
const pod = (op = "CREATE", sub = "", ns = "demo") => ({ operation: op, resource: { group: "", version: "v1", resource: "pods" }, subresource: sub, namespace: ns });
const namespaceReq = (op = "CREATE") => ({ operation: op, resource: { group: "", version: "v1", resource: "namespaces" }, subresource: "", namespace: "demo" });

describe("rules (rules.Matcher)", () => {
  const cases: Array<[string, Partial<WebhookRule>, ReturnType<typeof node>, boolean]> = [
    ["everything", {}, node(), true],
    ["operation listed", { operations: ["CREATE", "UPDATE"] }, node("UPDATE"), true],
    ["operation not listed", { operations: ["CREATE"] }, node("DELETE"), false],
    ["group mismatch", { apiGroups: ["apps"] }, node(), false],
    ["core group", { apiGroups: [""] }, node(), true],
    ["version mismatch", { apiVersions: ["v2"] }, node(), false],
    ["resource exact", { resources: ["nodes"] }, node(), true],
    ["resource does not cover its subresources", { resources: ["nodes"] }, node("UPDATE", "status"), false],
    ["* does not cover subresources", { resources: ["*"] }, node("UPDATE", "status"), false],
    ["*/* covers subresources", { resources: ["*/*"] }, node("UPDATE", "status"), true],
    ["*/* covers the main resource too", { resources: ["*/*"] }, node(), true],
    ["resource/subresource", { resources: ["pods/eviction"] }, pod("CREATE", "eviction"), true],
    ["resource/subresource does not cover the resource", { resources: ["pods/eviction"] }, pod("CREATE"), false],
    ["resource/*", { resources: ["pods/*"] }, pod("CREATE", "eviction"), true],
    ["*/subresource", { resources: ["*/eviction"] }, pod("CREATE", "eviction"), true],
    ["*/status is not eviction", { resources: ["*/status"] }, pod("CREATE", "eviction"), false],
    ["Cluster scope: a node", { scope: "Cluster" }, node(), true],
    ["Cluster scope: a pod", { scope: "Cluster" }, pod(), false],
    ["Namespaced scope: a pod", { scope: "Namespaced" }, pod(), true],
    ["Namespaced scope: a node", { scope: "Namespaced" }, node(), false],
    ["Cluster scope: a Namespace (cluster-scoped, namespace attribute = its name)", { scope: "Cluster" }, namespaceReq(), true],
    ["Namespaced scope: a Namespace", { scope: "Namespaced" }, namespaceReq(), false],
  ];
  it.each(cases)("%s", (_, r, req, want) => {
    expect(ruleMatches(rule(r), req)).toBe(want);
  });
});

const configuration = (webhooks: Record<string, unknown>[]): KubeObject => {
  const obj: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingWebhookConfiguration",
    metadata: { name: "lockstep" },
    webhooks: webhooks.map((w, i) => ({
      name: `w${i}.lockstep.io`,
      sideEffects: "None",
      admissionReviewVersions: ["v1"],
      clientConfig: { url: "https://127.0.0.1:1/validate" },
      rules: [{ operations: ["*"], apiGroups: ["*"], apiVersions: ["*"], resources: ["*"] }],
      ...w,
    })),
  };
  validatingWebhookConfigurationHooks.prepareForCreate!(obj);
  return obj;
};
const hook = (w: Record<string, unknown> = {}) => parseConfiguration(configuration([w]))[0]!;

const attrs = (a: Partial<AdmissionAttributes>): AdmissionAttributes => ({
  operation: "UPDATE",
  resource: { group: "", version: "v1", resource: "nodes" },
  subresource: "",
  kind: { group: "", version: "v1", kind: "Node" },
  namespace: "",
  name: "worker-0",
  ...a,
});

describe("defaulting and validation", () => {
  it("defaults like kube-apiserver", () => {
    const obj = configuration([{ clientConfig: { service: { namespace: "lockstep", name: "coordinator" } } }]);
    const w = obj.webhooks[0];
    expect(w).toMatchObject({ failurePolicy: "Fail", matchPolicy: "Equivalent", timeoutSeconds: 10, namespaceSelector: {}, objectSelector: {} });
    expect(w.rules[0].scope).toBe("*");
    expect(w.clientConfig.service.port).toBe(443);
    expect(validatingWebhookConfigurationHooks.validate!(obj, undefined)).toEqual([]);
  });

  it("refuses what kube-apiserver refuses", () => {
    const obj = configuration([
      { name: "short.name", sideEffects: undefined, admissionReviewVersions: [] },
      { clientConfig: { url: "http://x" }, timeoutSeconds: 31, sideEffects: "Some" },
      { clientConfig: {} },
    ]);
    const errs = validatingWebhookConfigurationHooks.validate!(obj, undefined).map((e) => `${e.field}: ${e.detail}`);
    expect(errs).toEqual([
      'webhooks[0].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots',
      "webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun",
      "webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1",
      'webhooks[1].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      "webhooks[1].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds",
      `webhooks[1].clientConfig.url: Invalid value: "http://x": 'https' is the only allowed URL scheme`,
      "webhooks[2].clientConfig: Required value: exactly one of url or service is required",
    ]);
  });

  it("parses selectors, service references and the caBundle", () => {
    const w = hook({
      clientConfig: { service: { namespace: "lockstep", name: "coordinator", path: "/validate", port: 8443 }, caBundle: Buffer.from("PEM").toString("base64") },
      namespaceSelector: { matchExpressions: [{ key: "lockstep.io/enforce", operator: "In", values: ["true"] }] },
      objectSelector: { matchLabels: { role: "worker" } },
    });
    expect(w.service).toEqual({ namespace: "lockstep", name: "coordinator", path: "/validate", port: 8443 });
    expect(w.caBundle?.toString()).toBe("PEM");
    expect(w.namespaceSelector).toEqual([{ key: "lockstep.io/enforce", op: "in", values: ["true"] }]);
    expect(w.objectSelector).toEqual([{ key: "role", op: "=", values: ["worker"] }]);
  });
});

describe("selectors", () => {
  const labelsOf: Record<string, Record<string, string>> = { demo: { env: "prod" }, other: {} };
  const nsLabels = (n: string) => labelsOf[n];
  const nsSel = hook({ namespaceSelector: { matchLabels: { env: "prod" } } });

  it("namespaceSelector uses the labels of the object's namespace", () => {
    expect(namespaceSelectorMatches(nsSel, attrs({ resource: { group: "", version: "v1", resource: "pods" }, namespace: "demo" }), nsLabels)).toBe(true);
    expect(namespaceSelectorMatches(nsSel, attrs({ resource: { group: "", version: "v1", resource: "pods" }, namespace: "other" }), nsLabels)).toBe(false);
    expect(namespaceSelectorMatches(nsSel, attrs({ resource: { group: "", version: "v1", resource: "pods" }, namespace: "gone" }), nsLabels)).toBe("namespace-not-found");
  });

  it("namespaceSelector is ignored for cluster-scoped objects other than Namespaces", () => {
    expect(namespaceSelectorMatches(nsSel, attrs({}), nsLabels)).toBe(true);
  });

  it("a Namespace is matched by its own new labels on CREATE/UPDATE, by the stored ones on DELETE", () => {
    const ns = (op: "CREATE" | "DELETE", labels: Record<string, string>) =>
      attrs({
        operation: op,
        resource: { group: "", version: "v1", resource: "namespaces" },
        kind: { group: "", version: "v1", kind: "Namespace" },
        namespace: "demo",
        name: "demo",
        object: op === "CREATE" ? { metadata: { name: "demo", labels } } : undefined,
      });
    expect(namespaceSelectorMatches(nsSel, ns("CREATE", { env: "dev" }), nsLabels)).toBe(false);
    expect(namespaceSelectorMatches(nsSel, ns("CREATE", { env: "prod" }), () => undefined)).toBe(true);
    expect(namespaceSelectorMatches(nsSel, ns("DELETE", {}), nsLabels)).toBe(true);
  });

  it("objectSelector matches the new or the old object", () => {
    const w = hook({ objectSelector: { matchLabels: { role: "worker" } } });
    const o = (labels?: Record<string, string>) => (labels ? { metadata: { labels } } : undefined);
    expect(objectSelectorMatches(w, attrs({ object: o({ role: "worker" }), oldObject: o({}) }))).toBe(true);
    expect(objectSelectorMatches(w, attrs({ object: o({}), oldObject: o({ role: "worker" }) }))).toBe(true);
    expect(objectSelectorMatches(w, attrs({ operation: "DELETE", oldObject: o({ role: "worker" }) }))).toBe(true);
    expect(objectSelectorMatches(w, attrs({ object: o({ role: "master" }) }))).toBe(false);
    expect(objectSelectorMatches(hook(), attrs({}))).toBe(true);
  });
});

describe("which webhooks are called", () => {
  it("Equivalent matches another served version of the resource; Exact does not", () => {
    const r = [{ operations: ["*"], apiGroups: ["lockstep.io"], apiVersions: ["v1alpha1"], resources: ["budgets"] }];
    const a = attrs({ resource: { group: "lockstep.io", version: "v1", resource: "budgets" }, equivalentVersions: ["v1", "v1alpha1"] });
    expect(matchingVersion(hook({ rules: r }), a)).toBe("v1alpha1");
    expect(matchingVersion(hook({ rules: r, matchPolicy: "Exact" }), a)).toBeUndefined();
  });

  it("never calls webhooks for the webhook configurations themselves", () => {
    const a = attrs({ resource: { group: "admissionregistration.k8s.io", version: "v1", resource: "validatingwebhookconfigurations" } });
    expect(isExempt(a)).toBe(true);
    expect(matchingWebhooks([hook()], a, () => ({})).matches).toEqual([]);
  });

  it("keeps configuration order and drops non-matching webhooks", () => {
    const hooks = parseConfiguration(
      configuration([{}, { rules: [{ operations: ["DELETE"], apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"] }] }, { objectSelector: { matchLabels: { x: "y" } } }, {}]),
    );
    expect(matchingWebhooks(hooks, attrs({ object: { metadata: {} } }), () => ({})).matches.map((m) => m.webhook.name)).toEqual(["w0.lockstep.io", "w3.lockstep.io"]);
  });
});

describe("refusals and warnings", () => {
  it("denial keeps the webhook's code (≥ 400, default 400) and prefixes the message, as ToStatusErr", () => {
    const d = (st?: Record<string, unknown>) => denial("lease.lockstep.io", st).status;
    expect(d({ code: 403, message: "node worker-0 is leased" })).toMatchObject({
      code: 403,
      status: "Failure",
      message: 'admission webhook "lease.lockstep.io" denied the request: node worker-0 is leased',
    });
    expect(d()).toMatchObject({ code: 400, message: 'admission webhook "lease.lockstep.io" denied the request without explanation' });
    expect(d({ code: 200, reason: "Leased" })).toMatchObject({ code: 400, reason: "Leased", message: 'admission webhook "lease.lockstep.io" denied the request: Leased' });
  });

  it("warnings become 299 Warning headers, quoted", () => {
    expect(warningHeaders(['lease "m" ends in 5m', "two\nlines"])).toEqual({ Warning: ['299 - "lease \\"m\\" ends in 5m"', '299 - "two lines"'] });
    expect(warningHeaders([])).toEqual({});
  });
});
