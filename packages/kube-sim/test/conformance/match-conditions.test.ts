// matchConditions (CEL) of validating webhooks, as kube-apiserver applies them: the lease webhook's
// chart registers its fail-closed webhooks with conditions that narrow Node UPDATEs to a change of
// desiredConfig and BareMetalHost UPDATEs to a power-off; anything else must not reach them. A real
// HTTPS receiver counts the calls; every write goes through kube-sim's HTTP API.
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { createTestPki, hasOpenssl, type TestPki } from "@lockstep/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startKubeSim, type KubeSim } from "../../src/index.js";
import { call, onRealServer } from "../helpers.js";

const DESIRED = "machineconfiguration.openshift.io/desiredConfig";
// The chart's expression (deploy/helm/lockstep/templates/_lease-webhook.tpl), verbatim.
const DESIRED_CHANGES =
  `has(object.metadata.annotations) && '${DESIRED}' in object.metadata.annotations && ` +
  `!(has(oldObject.metadata.annotations) && '${DESIRED}' in oldObject.metadata.annotations && ` +
  `oldObject.metadata.annotations['${DESIRED}'] == object.metadata.annotations['${DESIRED}'])`;
const MERGE = { "content-type": "application/merge-patch+json" };

// kube-sim's own (it starts one): skipped under the oracle tier, whose 1.20 server has no matchConditions (1.27+).
describe.skipIf(!hasOpenssl() || onRealServer)("matchConditions", () => {
  let pki: TestPki;
  let server: Server;
  let url: string;
  let sim: KubeSim;
  let calls = 0;

  const configure = async (name: string, conditions: Array<{ name: string; expression: string }>, failurePolicy: "Fail" | "Ignore" = "Fail") =>
    call(sim, "POST", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", {
      apiVersion: "admissionregistration.k8s.io/v1",
      kind: "ValidatingWebhookConfiguration",
      metadata: { name },
      webhooks: [
        {
          name: `${name}.lockstep.io`,
          clientConfig: { url, caBundle: pki.pem("ca.crt").toString("base64") },
          rules: [{ apiGroups: [""], apiVersions: ["v1"], resources: ["nodes"], operations: ["UPDATE"] }],
          matchConditions: conditions,
          failurePolicy,
          sideEffects: "None",
          admissionReviewVersions: ["v1"],
          timeoutSeconds: 5,
        },
      ],
    });
  const patchNode = (body: object) => call(sim, "PATCH", "/api/v1/nodes/n1", body, MERGE);

  beforeAll(async () => {
    pki = createTestPki();
    server = createServer({ key: pki.pem("server.key"), cert: pki.pem("server.crt") }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        calls++;
        const review = JSON.parse(Buffer.concat(chunks).toString("utf8"));
        res.writeHead(200, { "content-type": "application/json" });
        res.end(JSON.stringify({ apiVersion: "admission.k8s.io/v1", kind: "AdmissionReview", response: { uid: review.request.uid, allowed: false, status: { message: "refused by the test webhook" } } }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}/validate`;
    sim = await startKubeSim();
    const node = await call(sim, "POST", "/api/v1/nodes", { apiVersion: "v1", kind: "Node", metadata: { name: "n1", annotations: { [DESIRED]: "rendered-a" } } });
    expect(node.status).toBe(201);
  });
  afterAll(async () => {
    await sim?.stop();
    await new Promise((r) => server?.close(r));
    pki?.remove();
  });
  beforeEach(async () => {
    calls = 0;
    await call(sim, "DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations");
  });

  it("call the webhook only when every condition is true: a desiredConfig change, not a label or an unchanged annotation", async () => {
    expect((await configure("updates", [{ name: "desired-config-changes", expression: DESIRED_CHANGES }])).status).toBe(201);
    expect((await patchNode({ metadata: { labels: { rack: "b" } } })).status).toBe(200);
    expect((await patchNode({ metadata: { annotations: { [DESIRED]: "rendered-a", other: "x" } } })).status).toBe(200);
    expect(calls).toBe(0);
    const refused = await patchNode({ metadata: { annotations: { [DESIRED]: "rendered-b" } } });
    // No code in the webhook's status: the API server answers 400, as kube-apiserver does.
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe('admission webhook "updates.lockstep.io" denied the request: refused by the test webhook');
    expect(calls).toBe(1);
  });

  it("refuse the request without calling the webhook when a condition cannot be evaluated under Fail, and skip the webhook under Ignore", async () => {
    const broken = [{ name: "reads-a-missing-field", expression: "object.spec.nothing == 'x'" }];
    expect((await configure("broken", broken, "Fail")).status).toBe(201);
    const refused = await patchNode({ metadata: { labels: { rack: "c" } } });
    expect(refused.status).toBe(403);
    expect(refused.json).toMatchObject({ reason: "Forbidden", details: { name: "n1", kind: "nodes" } });
    expect(refused.json.message, refused.json.message).toMatch(/^nodes "n1" is forbidden: expression 'reads-a-missing-field' resulted in error: field not found: spec$/);
    await call(sim, "DELETE", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/broken");
    expect((await configure("broken-ignored", broken, "Ignore")).status).toBe(201);
    expect((await patchNode({ metadata: { labels: { rack: "d" } } })).status).toBe(200);
    expect(calls).toBe(0);
  });

  it("skip the webhook when any condition is false, even if another cannot be evaluated", async () => {
    const mixed = [
      { name: "errors", expression: "object.spec.nothing == 'x'" },
      { name: "never", expression: "false" },
    ];
    expect((await configure("mixed", mixed, "Fail")).status).toBe(201);
    expect((await patchNode({ metadata: { labels: { rack: "e" } } })).status).toBe(200);
    expect(calls).toBe(0);
  });

  it("are validated when the configuration is written: names required and unique, expressions that compile", async () => {
    const bad = await configure("invalid", [
      { name: "", expression: "true" },
      { name: "twice", expression: "true" },
      { name: "twice", expression: "object.(" },
    ]);
    expect(bad.status).toBe(422);
    const causes = bad.json.details.causes.map((c: any) => `${c.field} ${c.reason}`);
    expect(causes).toEqual([
      "webhooks[0].matchConditions[0].name FieldValueRequired",
      "webhooks[0].matchConditions[2].name FieldValueDuplicate",
      "webhooks[0].matchConditions[2].expression FieldValueInvalid",
    ]);
    expect(bad.json.message).toContain("compilation failed");
  });
});
